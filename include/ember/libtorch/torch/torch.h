// LibTorch's umbrella header on ember (see docs/libtorch-idioms.md): programs written for
// LibTorch compile unchanged against this include root (pkg-config ember-libtorch, or
// find_package(Torch) with Torch_DIR=<prefix>/share/cmake/Torch).
#pragma once

#include "torch/all.h"

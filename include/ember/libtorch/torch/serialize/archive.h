// LibTorch's torch/serialize/archive.h: both archive kinds.
#pragma once

#include "torch/serialize/input-archive.h"
#include "torch/serialize/output-archive.h"

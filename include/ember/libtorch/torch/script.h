// LibTorch's torch/script.h without TorchScript: the rest of the API, as programs that include
// it for torch::Tensor expect. torch::jit (TorchScript modules, torch::jit::load) is not here:
// ember runs eager programs; docs/libtorch-idioms.md says why.
#pragma once

#include "torch/all.h"

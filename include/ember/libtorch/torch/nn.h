// torch::nn: LibTorch's layers, option builders, containers (Sequential, ModuleList,
// ModuleDict, AnyModule, Functional), handles (ModuleHolder, TORCH_MODULE), functional ops,
// initialisers and utils, over ember's nn.
#pragma once

#include "torch/enum.h"
#include "torch/expanding_array.h"
#include "torch/nn/functional.h"
#include "torch/nn/init.h"
#include "torch/nn/module.h"
#include "torch/nn/modules.h"
#include "torch/nn/options.h"
#include "torch/nn/pimpl.h"
#include "torch/nn/utils.h"
#include "torch/types.h"

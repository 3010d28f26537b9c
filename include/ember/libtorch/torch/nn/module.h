// torch::nn::Module: ember's Module (named parameters, buffers and children, train/eval, to(),
// state dicts), which torch/types.h names in torch::nn.
#pragma once

#include "ember/nn/module.h"
#include "torch/types.h"

// torch::nn::utils: gradient clipping with LibTorch's signatures; parameters_to_vector and
// vector_to_parameters are ember's (the same signatures).
#pragma once

#include "torch/nn/utils/clip_grad.h"
#include "torch/types.h"

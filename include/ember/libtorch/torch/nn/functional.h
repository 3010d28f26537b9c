// torch::nn::functional with LibTorch's option builders (namespace F = torch::nn::functional;).
// ember's functional ops that LibTorch spells the same way (F::linear, ...) come with
// torch/types.h.
#pragma once

#include "torch/nn/functional/activation.h"
#include "torch/nn/functional/batchnorm.h"
#include "torch/nn/functional/conv.h"
#include "torch/nn/functional/distance.h"
#include "torch/nn/functional/dropout.h"
#include "torch/nn/functional/embedding.h"
#include "torch/nn/functional/instancenorm.h"
#include "torch/nn/functional/linear.h"
#include "torch/nn/functional/loss.h"
#include "torch/nn/functional/normalization.h"
#include "torch/nn/functional/padding.h"
#include "torch/nn/functional/pooling.h"
#include "torch/nn/functional/upsampling.h"
#include "torch/types.h"

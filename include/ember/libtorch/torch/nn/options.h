// LibTorch's options builders for torch::nn's layers and functions.
#pragma once

#include "torch/nn/options/activation.h"
#include "torch/nn/options/batchnorm.h"
#include "torch/nn/options/conv.h"
#include "torch/nn/options/distance.h"
#include "torch/nn/options/dropout.h"
#include "torch/nn/options/embedding.h"
#include "torch/nn/options/linear.h"
#include "torch/nn/options/loss.h"
#include "torch/nn/options/normalization.h"
#include "torch/nn/options/padding.h"
#include "torch/nn/options/pooling.h"
#include "torch/nn/options/rnn.h"
#include "torch/nn/options/transformer.h"
#include "torch/nn/options/transformercoder.h"
#include "torch/nn/options/transformerlayer.h"
#include "torch/nn/options/upsampling.h"

// Everything the layer provides (LibTorch's torch/all.h).
#pragma once

#include "torch/autograd.h"
#include "torch/cuda.h"
#include "torch/data.h"
#include "torch/nn.h"
#include "torch/optim.h"
#include "torch/serialize.h"
#include "torch/types.h"
#include "torch/utils.h"
#include "torch/version.h"

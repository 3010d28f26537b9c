// torch::data::transforms: the transform bases, Lambda and BatchLambda, Collation and
// Collate, Stack, TensorTransform, TensorLambda and Normalize.
#pragma once

#include "torch/data/transforms/base.h"
#include "torch/data/transforms/collate.h"
#include "torch/data/transforms/lambda.h"
#include "torch/data/transforms/stack.h"
#include "torch/data/transforms/tensor.h"

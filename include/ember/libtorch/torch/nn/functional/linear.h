// F::linear: input @ weight^T + bias (ember's own, with LibTorch's signature).
#pragma once

#include "ember/nn/functional/layers.h"
#include "ember/tensor.h"

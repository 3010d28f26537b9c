// torch::nn::Cloneable<Derived>: ember's (ember/nn/cloneable.h), which torch/types.h names in
// torch::nn. A module deriving from it registers its state in reset() and gets clone().
#pragma once

#include "ember/nn/cloneable.h"
#include "torch/types.h"

// torch::cuda::is_available(), device_count(), synchronize(): ember's cuda namespace.
#pragma once

#include "torch/types.h"

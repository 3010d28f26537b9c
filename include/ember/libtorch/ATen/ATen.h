// ATen's header: at::Tensor, the ops and the dtypes under at::.
#pragma once

#include "torch/types.h"

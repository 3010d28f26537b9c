// Filled in by the layer (placeholder while it lands).
#pragma once

#include "torch/types.h"

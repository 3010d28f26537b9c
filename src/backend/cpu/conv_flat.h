// The flat stride-1 convolution kernels (conv_flat.cpp) for conv.cpp's choice of algorithm.
#pragma once

#include <cstdint>

#include "backend/cpu/conv_geometry.h"

namespace EMBER_CPU_NS {

/// Note [Flat direct convolution] in conv_flat.cpp: the flat kernels run while one group's
/// weights (Og, K) fit in L2.
constexpr int64_t kFlatMaxWeights = int64_t(1) << 16;  // elements of one group's (Og, K)

/// out (N, O, Ho, Wo) = conv(in, w) + bias (may be null), for stride 1.
void conv_flat(const Geometry& g, const float* in, const float* w, const float* bias, float* out);
void conv_flat(const Geometry& g, const double* in, const double* w, const double* bias,
               double* out);

/// gw (O, Cg, kh, kw) = the weight gradient of a stride-1 convolution, threaded over images.
void conv_weight_grad_flat(const Geometry& g, const float* grad, const float* in, float* gw);
void conv_weight_grad_flat(const Geometry& g, const double* grad, const double* in, double* gw);

}  // namespace EMBER_CPU_NS

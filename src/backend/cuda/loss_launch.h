// What the host side (loss.cpp) hands the CUDA class-index loss kernels (loss.cu): cross_entropy
// and nll_loss over x read as (N, C, S) (position r = n S + s has the C values x[n, :, s], S
// apart), fused over log-softmax as the CPU's (Note [Fused cross entropy] in
// backend/cpu/class_loss.cpp), in float32 or float64 (the front end computes the half types in
// float32). A plain struct, so nvcc compiles no ember header.
//
// Forward: `terms`, one block per position, writes its loss (reduction none) or its three terms
// (nll = -w[t] (x[t] - lse), smooth = -Σ_c w_c (x_c - lse), w[t]; zeros where ignored) for
// `total`, one block, which reduces them to the 0-d loss. Backward: `weight_sums`, one block,
// sums the weights of the targets ("mean" divides by them) and of the classes, for `grad`, one
// block per position. A target out of range is recorded in `bad` (gather_launch.h) and its
// position treated as ignored; the host raises the CPU's `Target t is out of bounds.`
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

struct ClassLossLaunch {
  enum Pass : int32_t { terms_pass, total_pass, weight_sums_pass, grad_pass } pass;
  enum Reduction : int32_t { none, mean, sum } reduction;
  Type type;           // float32 or float64
  int32_t logits;      // 1: cross_entropy (log-softmax x first); 0: nll_loss
  int64_t N, C, S, R;  // R = N S positions
  int64_t ignore_index;
  double label_smoothing;
  const char* x;
  const int64_t* target;  // (R)
  const char* weight;     // (C), null: all 1
  char* terms;            // forward: (3, R) scratch
  char* out;              // forward: (R) for none, else 0-d
  const char* grad;       // backward: (R) for none, else 0-d
  char* grad_input;       // backward: (N, C, S)
  char* sums;             // backward: 2 scratch values: Σ w[t] over the kept targets, Σ_c w_c
  int64_t* bad;
  uint32_t blocks, threads;
};

/// Queues the kernel on `stream` (a cudaStream_t); returns the launch's cudaError_t.
int launch_class_loss(const ClassLossLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels

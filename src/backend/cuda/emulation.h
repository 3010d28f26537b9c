// The CPU emulation of the CUDA kernels (*_emulation.cpp): each runs a planned launch's kernel
// bodies (the *_body.cuh headers the .cu files launch) over a grid loop of HostBlocks (Note
// [Block programs] in block.cuh), on host memory, in every build. The launches come from the same
// plans as the device's (the *_plan.h files) over CPU tensors; the CPU tests compare the
// results with the CPU backend's. Each throws `[cuda emulation] ...` for a launch the device
// would refuse.
#pragma once

#include "backend/cuda/amp_launch.h"
#include "backend/cuda/arg_reduce_launch.h"
#include "backend/cuda/batch_norm_launch.h"
#include "backend/cuda/conv_launch.h"
#include "backend/cuda/copy_launch.h"
#include "backend/cuda/creation_launch.h"
#include "backend/cuda/dropout_launch.h"
#include "backend/cuda/elementwise_launch.h"
#include "backend/cuda/gather_launch.h"
#include "backend/cuda/index_launch.h"
#include "backend/cuda/loss_launch.h"
#include "backend/cuda/multinomial_launch.h"
#include "backend/cuda/nonzero_launch.h"
#include "backend/cuda/norm_launch.h"
#include "backend/cuda/optim_launch.h"
#include "backend/cuda/pool_launch.h"
#include "backend/cuda/random_launch.h"
#include "backend/cuda/randperm_launch.h"
#include "backend/cuda/reduce_launch.h"
#include "backend/cuda/renorm_launch.h"
#include "backend/cuda/rearrange_launch.h"
#include "backend/cuda/resize_launch.h"
#include "backend/cuda/scan_launch.h"
#include "backend/cuda/softmax_launch.h"
#include "backend/cuda/sort_launch.h"

namespace ember::cuda::kernels {

void emulate_elementwise(const Launch& launch);
void emulate_copy(const CopyLaunch& launch);
void emulate_fill(const FillLaunch& launch);
/// launch.partial must hold reduce_partial_bytes(launch) bytes when it splits, as on the device.
void emulate_reduce(const ReduceLaunch& launch);
void emulate_arg_reduce(const ArgReduceLaunch& launch);
void emulate_softmax(const SoftmaxLaunch& launch);
void emulate_softmax_backward(const SoftmaxBackwardLaunch& launch);
void emulate_optim(const OptimLaunch& launch);
void emulate_renorm_rows(const RenormRowsLaunch& launch);
void emulate_multinomial(const MultinomialLaunch& launch);
void emulate_unscale(const UnscaleLaunch& launch);
/// The index entries out of range are recorded in launch.bad (host memory here).
void emulate_gather(const GatherLaunch& launch);
void emulate_select(const SelectLaunch& launch);
void emulate_check_index(const CheckIndexLaunch& launch);
void emulate_index_offsets(const IndexOffsetsLaunch& launch);
void emulate_nonzero(const NonzeroLaunch& launch);
void emulate_row_norm(const RowNormLaunch& launch);
void emulate_row_norm_backward(const RowNormBackwardLaunch& launch);
void emulate_batch_norm(const BatchNormLaunch& launch);
void emulate_class_loss(const ClassLossLaunch& launch);
void emulate_sort(const SortLaunch& launch);
void emulate_scan(const ScanLaunch& launch);
void emulate_max_pool(const MaxPoolLaunch& launch);
void emulate_avg_pool(const AvgPoolLaunch& launch);
void emulate_resize(const ResizeLaunch& launch);
void emulate_pad(const PadLaunch& launch);
void emulate_flip(const FlipLaunch& launch);
void emulate_triangle(const TriangleLaunch& launch);
void emulate_trace(const TraceLaunch& launch);
void emulate_int_stats(const IntStatsLaunch& launch);
void emulate_one_hot(const OneHotLaunch& launch);
void emulate_repeat(const RepeatLaunch& launch);
void emulate_searchsorted(const SearchsortedLaunch& launch);
void emulate_unique(const UniqueLaunch& launch);
void emulate_random(const RandomLaunch& launch);
void emulate_dropout(const DropoutLaunch& launch);
void emulate_dropout_backward(const DropoutBackwardLaunch& launch);
void emulate_randperm(const RandpermLaunch& launch);
/// cub's radix sort on the device; here a stable sort on the same radix keys.
void emulate_randperm_sort(const RandpermSort& sort);
void emulate_range(const RangeLaunch& launch);
void emulate_im2col(const Im2colLaunch& launch);
/// The index entries out of range are recorded in launch.bad (host memory here).
void emulate_renorm(const RenormLaunch& launch);

}  // namespace ember::cuda::kernels

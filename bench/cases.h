// The benchmark cases shared by the ember and LibTorch twins (bench/ember_ops.cpp,
// bench/libtorch_ops.cpp): each case is named, sized and described once here, so both sides
// run exactly the same work. compare.py drives them (and PyTorch from Python) side by side.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember_bench {

struct Case {
  std::string name;    // also the key compare.py uses for the Python side
  std::string unit;    // what `work` counts: "GB/s", "GFLOP/s" or "" (time only)
  double work;         // bytes or FLOPs per iteration, for the throughput column
};

inline const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"add_16M", "GB/s", 12.0 * (1 << 24)},
      {"exp_16M", "GB/s", 8.0 * (1 << 24)},
      {"sigmoid_16M", "GB/s", 8.0 * (1 << 24)},
      {"gelu_16M", "GB/s", 8.0 * (1 << 24)},
      {"gelu_tanh_16M", "GB/s", 8.0 * (1 << 24)},
      // The reduced-precision elementwise paths (Note [float16 in float blocks]): half the bytes.
      {"add_16M_f16", "GB/s", 6.0 * (1 << 24)},
      {"gelu_16M_f16", "GB/s", 4.0 * (1 << 24)},
      {"add_16M_bf16", "GB/s", 6.0 * (1 << 24)},
      {"gelu_16M_bf16", "GB/s", 4.0 * (1 << 24)},
      {"sum_4096x4096", "GB/s", 4.0 * 4096 * 4096},
      {"softmax_4096x4096", "GB/s", 8.0 * 4096 * 4096},
      {"matmul_256", "GFLOP/s", 2.0 * 256 * 256 * 256},
      {"matmul_1024", "GFLOP/s", 2.0 * 1024 * 1024 * 1024},
      {"matmul_2048", "GFLOP/s", 2.0 * 2048.0 * 2048 * 2048},
      {"bmm_64x128x128", "GFLOP/s", 2.0 * 64 * 128 * 128 * 128},
      {"conv_1to32_28x28_b128", "", 0},
      {"conv_32to64_14x14_b128", "", 0},
      // The backward of the same convolutions, one gradient at a time (PyTorch:
      // aten.convolution_backward with one output_mask entry): grad_input is a transposed
      // convolution, grad_weight a correlation of grad_output with the input over the batch.
      // Training needs no grad_input for the first layer (its input is the data).
      {"conv_1to32_28x28_b128_bwd_weight", "", 0},
      {"conv_32to64_14x14_b128_bwd_input", "", 0},
      {"conv_32to64_14x14_b128_bwd_weight", "", 0},
      {"add_1elem", "", 0},
      {"add_16elem", "", 0},
      {"add_16elem_grad", "", 0},  // a + b with requires_grad: the recording cost
      // a + b inside a recording profiler (ember: profiler::profile; PyTorch:
      // torch.profiler.profile(activities=[CPU])): minus add_16elem, the profiler's cost per op
      {"add_16elem_profiled", "", 0},
      {"add_16elem_profiled_shapes", "", 0},  // ... with record_shapes
      {"mlp8_step", "", 0},        // 3 linear layers (8 -> 8, batch 8) + relu: forward + backward
      {"adamw_10M", "GB/s", 28.0 * 10000000},  // one AdamW step: 4 tensors read, 3 written
      // A state_dict of 25 x 1M float32 to a .pt file: ember's save (atomic and durable: temp
      // file, fsync, rename) against plain torch.save (in place, no fsync) ...
      {"save_100MB", "GB/s", 100.0 * (1 << 20)},
      // ... against what a PyTorch user writes for a safe checkpoint: torch.save to a temp file,
      // os.fsync, os.replace, fsync of the directory (like for like) ...
      {"save_100MB_durable", "GB/s", 100.0 * (1 << 20)},
      // ... and ember without the fsyncs (SaveOptions{.sync = false}, still atomic) against
      // plain torch.save.
      {"save_100MB_nosync", "GB/s", 100.0 * (1 << 20)},
      {"load_100MB", "GB/s", 100.0 * (1 << 20)},  // and back: ember::load (mmap) / torch.load
      // ... ember copying every storage (LoadOptions::mmap = false; CRC-checked) / torch.load
      {"load_100MB_copy", "GB/s", 100.0 * (1 << 20)},
      // load, then read one byte of every 4 KiB page of every tensor: ember's mapped pages are
      // faulted in here, on first use, where torch.load paid for its copy up front.
      {"load_100MB_touch", "GB/s", 100.0 * (1 << 20)},
      // Mixed precision (src/amp). A 16-element a @ b inside a CPU bfloat16 autocast region: the
      // cost of autocast's bookkeeping (ember's target: <= 0.5x LibTorch's).
      {"amp_matmul_16elem", "", 0},
      // A 1024 GEMM on bfloat16 / float16 operands (Note [Reduced-precision GEMM]).
      {"amp_matmul_1024_bf16", "GFLOP/s", 2.0 * 1024 * 1024 * 1024},
      {"amp_matmul_1024_fp16", "GFLOP/s", 2.0 * 1024 * 1024 * 1024},
      // TransformerEncoderLayer(256, 8, 1024), batch_first input (32, 128, 256): forward,
      // mean-square loss, backward, AdamW step; in float32 and under bfloat16 autocast.
      {"amp_transformer_step_f32", "", 0},
      {"amp_transformer_step_bf16", "", 0},
  };
  return all;
}

}  // namespace ember_bench

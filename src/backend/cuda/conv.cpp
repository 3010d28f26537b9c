// The host side of the CUDA convolution: the kCUDA backend's conv2d, conv2d_adjoint and
// conv2d_weight_grad entries. Each plans its call for cuDNN (cudnn_conv_plan.cpp, tested in every
// build) and runs it through cuDNN 9's convolution descriptor API (cudnn_cnn.h), on the current
// stream of the operands' device; the calls the plan leaves out run conv_plan.cpp's im2col + GEMM
// driver (tested in every build with the emulated column kernels and the CPU's gemm) with the
// CUDA backend's cuBLAS gemm and conv.cu's column kernel.
//
// cuDNN marks this API deprecated in version 9 (its warnings are opt-in, CUDNN_WARN_DEPRECATED);
// it is the API PyTorch 1.13 calls, and it still runs on cuDNN 9's engines.
#include <cudnn.h>

#include <array>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/conv_plan.h"
#include "backend/cuda/cudnn_conv_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

using backend::Conv2dParams;

// ── the own kernels ─────────────────────────────────────────────────────────────────────────

ConvSteps device_steps(Device device, const char* op) {
  return {backend::backend_for(kCUDA)->linalg.gemm, [device, op](const kernels::Im2colLaunch& l) {
            launch_on(device, op, &kernels::launch_im2col, l);
          }};
}

// ── cuDNN ───────────────────────────────────────────────────────────────────────────────────

void check_cudnn(cudnnStatus_t status, const char* op, const char* what) {
  EMBER_CHECK(status == CUDNN_STATUS_SUCCESS, op, "cuDNN error: ", cudnnGetErrorString(status),
              " (", int(status), ") in ", what);
}

// One cuDNN handle per thread and device, as PyTorch's handle pool: a handle is not safe to share
// between threads and costs milliseconds to create. Each call binds it to the current stream.
cudnnHandle_t handle_for(int device, const char* op) {
  struct Handles {
    std::vector<cudnnHandle_t> by_device;
    ~Handles() {  // at exit the runtime may be gone: nothing to report then
      for (cudnnHandle_t h : by_device)
        if (h) (void)cudnnDestroy(h);
    }
  };
  static thread_local Handles handles;
  if (size_t(device) >= handles.by_device.size()) handles.by_device.resize(size_t(device) + 1);
  cudnnHandle_t& h = handles.by_device[size_t(device)];
  if (!h) check_cudnn(cudnnCreate(&h), op, "cudnnCreate");
  check_cudnn(cudnnSetStream(h, current_stream_handle(device)), op, "cudnnSetStream");
  return h;
}

cudnnDataType_t data_type(CudnnType t) {
  switch (t) {
    case CudnnType::float64: return CUDNN_DATA_DOUBLE;
    case CudnnType::float16: return CUDNN_DATA_HALF;
    case CudnnType::bfloat16: return CUDNN_DATA_BFLOAT16;
    case CudnnType::float32: break;
  }
  return CUDNN_DATA_FLOAT;
}

cudnnMathType_t math_type(CudnnMath m) {
  switch (m) {
    case CudnnMath::tensor_op: return CUDNN_TENSOR_OP_MATH;
    case CudnnMath::fma: return CUDNN_FMA_MATH;
    case CudnnMath::default_math: break;
  }
  return CUDNN_DEFAULT_MATH;
}

// A descriptor destroyed with its owner, also when a later step of the set-up throws.
template <class D>
using Owned = std::unique_ptr<std::remove_pointer_t<D>, cudnnStatus_t (*)(D)>;

Owned<cudnnTensorDescriptor_t> tensor_desc(cudnnDataType_t type, const std::array<int, 4>& dims,
                                           const std::array<int, 4>& strides, const char* op) {
  cudnnTensorDescriptor_t d = nullptr;
  check_cudnn(cudnnCreateTensorDescriptor(&d), op, "cudnnCreateTensorDescriptor");
  Owned<cudnnTensorDescriptor_t> owned(d, &cudnnDestroyTensorDescriptor);
  check_cudnn(cudnnSetTensorNdDescriptor(d, type, 4, dims.data(), strides.data()), op,
              "cudnnSetTensorNdDescriptor");
  return owned;
}

/// The descriptors of one planned call.
struct Descriptors {
  Owned<cudnnTensorDescriptor_t> x, y, bias{nullptr, &cudnnDestroyTensorDescriptor};
  Owned<cudnnFilterDescriptor_t> w{nullptr, &cudnnDestroyFilterDescriptor};
  Owned<cudnnConvolutionDescriptor_t> conv{nullptr, &cudnnDestroyConvolutionDescriptor};

  Descriptors(const CudnnConvPlan& plan, const char* op)
      : x(tensor_desc(data_type(plan.data_type), plan.x_dims, plan.x_strides, op)),
        y(tensor_desc(data_type(plan.data_type), plan.y_dims, plan.y_strides, op)) {
    const cudnnDataType_t type = data_type(plan.data_type);
    if (plan.bias) bias = tensor_desc(type, plan.bias_dims, plan.bias_strides, op);
    cudnnFilterDescriptor_t f = nullptr;
    check_cudnn(cudnnCreateFilterDescriptor(&f), op, "cudnnCreateFilterDescriptor");
    w.reset(f);
    check_cudnn(cudnnSetFilterNdDescriptor(f, type, CUDNN_TENSOR_NCHW, 4, plan.w_dims.data()), op,
                "cudnnSetFilterNdDescriptor");
    cudnnConvolutionDescriptor_t c = nullptr;
    check_cudnn(cudnnCreateConvolutionDescriptor(&c), op, "cudnnCreateConvolutionDescriptor");
    conv.reset(c);
    check_cudnn(cudnnSetConvolutionNdDescriptor(c, 2, plan.padding.data(), plan.stride.data(),
                                                plan.dilation.data(), CUDNN_CROSS_CORRELATION,
                                                data_type(plan.compute_type)),
                op, "cudnnSetConvolutionNdDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(c, plan.groups), op,
                "cudnnSetConvolutionGroupCount");
    set_math(plan.math, op);
  }

  void set_math(CudnnMath math, const char* op) const {
    check_cudnn(cudnnSetConvolutionMathType(conv.get(), math_type(math)), op,
                "cudnnSetConvolutionMathType");
  }
};

/// The first algorithm cuDNN's heuristics (cudnnGetConvolution*Algorithm_v7, best first) rank as
/// runnable, with its math type set on the descriptor, as PyTorch does for torch.backends.cudnn.
/// benchmark = False; float32 without TF32 then goes back to FMA math (PyTorch's order too).
template <class Perf, class Get>
decltype(Perf::algo) choose_algorithm(const Descriptors& d, const CudnnConvPlan& plan, int count,
                                      const char* op, const char* what, Get get) {
  std::vector<Perf> perfs(static_cast<size_t>(count));
  int returned = 0;
  check_cudnn(get(count, &returned, perfs.data()), op, what);
  for (int i = 0; i < returned; ++i) {
    const Perf& perf = perfs[size_t(i)];
    if (perf.status != CUDNN_STATUS_SUCCESS) continue;
    check_cudnn(cudnnSetConvolutionMathType(d.conv.get(), perf.mathType), op,
                "cudnnSetConvolutionMathType");
    if (plan.math == CudnnMath::fma) d.set_math(CudnnMath::fma, op);
    return perf.algo;
  }
  const auto text = [](const std::array<int, 4>& dims) {
    std::ostringstream os;
    os << "[" << dims[0] << ", " << dims[1] << ", " << dims[2] << ", " << dims[3] << "]";
    return os.str();
  };
  fail(op, "cuDNN found no algorithm for this convolution (input ", text(plan.x_dims),
       ", weight ", text(plan.w_dims), ", output ", text(plan.y_dims), ", ", plan.groups,
       " groups)");
}

/// A workspace of `bytes` from the device's caching allocator, freed (for reuse on this stream)
/// when the call returns.
Tensor workspace(size_t bytes, Device device, const char* op) {
  return bytes == 0 ? Tensor() : backend::new_buffer({int64_t(bytes)}, kUInt8, device, op);
}

/// alpha = 1 and beta = 0 in the type cuDNN reads them in: double for double data, else float.
struct Scaling {
  double d1 = 1, d0 = 0;
  float f1 = 1, f0 = 0;
  bool is_double;
  const void* one() const { return is_double ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return is_double ? static_cast<const void*>(&d0) : &f0; }
};

int compute_capability_major(int device, const char* op) {
  int major = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), op,
        " reading the compute capability of cuda:", device);
  return major;
}

/// Runs `pass` over x, w, y (cudnn_conv_plan.h) with cuDNN when the plan takes it, and returns
/// whether it did.
bool run_cudnn(const char* op, CudnnConvPass pass, const Tensor& x, const Tensor& w,
               const Tensor& y, const Tensor& bias, const Conv2dParams& p) {
  const Device device = x.device();
  const int index = resolve_device(device, op);
  DeviceGuard guard(index, op);
  const CudnnConvPlan plan = plan_cudnn_conv(
      op, pass, x, w, y, bias, p, {compute_capability_major(index, op), kCudnnAllowTf32});
  if (!plan.use_cudnn) return false;
  const cudnnHandle_t h = handle_for(index, op);
  const Descriptors d(plan, op);
  const Scaling s{.is_double = plan.data_type == CudnnType::float64};
  size_t bytes = 0;
  switch (pass) {
    case CudnnConvPass::forward: {
      const auto algo = choose_algorithm<cudnnConvolutionFwdAlgoPerf_t>(
          d, plan, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, op, "cudnnGetConvolutionForwardAlgorithm_v7",
          [&](int n, int* got, cudnnConvolutionFwdAlgoPerf_t* perfs) {
            return cudnnGetConvolutionForwardAlgorithm_v7(h, d.x.get(), d.w.get(), d.conv.get(),
                                                          d.y.get(), n, got, perfs);
          });
      check_cudnn(cudnnGetConvolutionForwardWorkspaceSize(h, d.x.get(), d.w.get(), d.conv.get(),
                                                          d.y.get(), algo, &bytes),
                  op, "cudnnGetConvolutionForwardWorkspaceSize");
      const Tensor ws = workspace(bytes, device, op);
      check_cudnn(cudnnConvolutionForward(h, s.one(), d.x.get(), x.data_ptr(), d.w.get(),
                                          w.data_ptr(), d.conv.get(), algo, ws.data_ptr(), bytes,
                                          s.zero(), d.y.get(), y.data_ptr()),
                  op, "cudnnConvolutionForward");
      break;
    }
    case CudnnConvPass::backward_data: {
      const auto algo = choose_algorithm<cudnnConvolutionBwdDataAlgoPerf_t>(
          d, plan, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, op,
          "cudnnGetConvolutionBackwardDataAlgorithm_v7",
          [&](int n, int* got, cudnnConvolutionBwdDataAlgoPerf_t* perfs) {
            return cudnnGetConvolutionBackwardDataAlgorithm_v7(
                h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), n, got, perfs);
          });
      check_cudnn(cudnnGetConvolutionBackwardDataWorkspaceSize(
                      h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), algo, &bytes),
                  op, "cudnnGetConvolutionBackwardDataWorkspaceSize");
      const Tensor ws = workspace(bytes, device, op);
      check_cudnn(cudnnConvolutionBackwardData(h, s.one(), d.w.get(), w.data_ptr(), d.y.get(),
                                               y.data_ptr(), d.conv.get(), algo, ws.data_ptr(),
                                               bytes, s.zero(), d.x.get(), x.data_ptr()),
                  op, "cudnnConvolutionBackwardData");
      break;
    }
    case CudnnConvPass::backward_filter: {
      const auto algo = choose_algorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
          d, plan, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, op,
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
          [&](int n, int* got, cudnnConvolutionBwdFilterAlgoPerf_t* perfs) {
            return cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), n, got, perfs);
          });
      check_cudnn(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                      h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), algo, &bytes),
                  op, "cudnnGetConvolutionBackwardFilterWorkspaceSize");
      const Tensor ws = workspace(bytes, device, op);
      check_cudnn(cudnnConvolutionBackwardFilter(h, s.one(), d.x.get(), x.data_ptr(), d.y.get(),
                                                 y.data_ptr(), d.conv.get(), algo, ws.data_ptr(),
                                                 bytes, s.zero(), d.w.get(), w.data_ptr()),
                  op, "cudnnConvolutionBackwardFilter");
      break;
    }
  }
  if (plan.bias) {  // out += bias over its channels, after the convolution, as PyTorch adds it
    const bool on_y = pass == CudnnConvPass::forward;
    check_cudnn(cudnnAddTensor(h, s.one(), d.bias.get(), bias.data_ptr(), s.one(),
                               on_y ? d.y.get() : d.x.get(), on_y ? y.data_ptr() : x.data_ptr()),
                op, "cudnnAddTensor");
  }
  return true;
}

// ── the kernel entries ──────────────────────────────────────────────────────────────────────

void conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& out,
            const Conv2dParams& p) {
  if (run_cudnn("conv2d", CudnnConvPass::forward, input, weight, out, bias, p)) return;
  conv2d_by_gemm(device_steps(input.device(), "conv2d"), input, weight, bias, out, p);
}

void conv2d_adjoint(const Tensor& grad, const Tensor& weight, const Tensor& bias, const Tensor& out,
                    const Conv2dParams& p) {
  if (run_cudnn("conv2d_adjoint", CudnnConvPass::backward_data, out, weight, grad, bias, p)) return;
  conv2d_adjoint_by_gemm(device_steps(grad.device(), "conv2d_adjoint"), grad, weight, bias, out, p);
}

void conv2d_weight_grad(const Tensor& grad, const Tensor& input, const Tensor& grad_weight,
                        const Conv2dParams& p) {
  if (run_cudnn("conv2d_weight_grad", CudnnConvPass::backward_filter, input, grad_weight, grad,
                Tensor(), p))
    return;
  conv2d_weight_grad_by_gemm(device_steps(grad.device(), "conv2d_weight_grad"), grad, input,
                             grad_weight, p);
}

}  // namespace

void install_conv_kernels(backend::Backend& b) {
  b.conv.conv2d = &conv2d;
  b.conv.conv2d_adjoint = &conv2d_adjoint;
  b.conv.conv2d_weight_grad = &conv2d_weight_grad;
}

}  // namespace ember::cuda

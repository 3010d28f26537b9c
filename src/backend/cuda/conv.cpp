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

#include <algorithm>
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
  if (!h) {  // kept only once created: a failed cudnnCreate leaves nothing to reuse
    cudnnHandle_t created = nullptr;
    check_cudnn(cudnnCreate(&created), op, "cudnnCreate");
    h = created;
  }
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
    check_cudnn(cudnnSetConvolutionMathType(c, math_type(plan.math)), op,
                "cudnnSetConvolutionMathType");
  }
};

/// What every pass of one call shares: the handle, the descriptors, alpha = 1 and beta = 0 in
/// the type cuDNN reads them in (double for double data, else float), the plan, where a
/// workspace comes from and the op naming errors.
struct Call {
  cudnnHandle_t h;
  const Descriptors& d;
  const void* one;
  const void* zero;
  const CudnnConvPlan& plan;
  Device device;
  const char* op;
};

/// One pass. cuDNN's three passes have calls of one shape over their two inputs and their
/// output (forward: x, w -> y; backward data: w, dy -> dx; backward filter: x, dy -> dw): the
/// heuristic (cudnnGet*Algorithm_v7), the workspace query and the convolution. The algorithm is
/// the first the heuristics (best first) rank runnable, with its math type then set on the
/// descriptor, as PyTorch does for torch.backends.cudnn.benchmark = False. The workspace comes
/// from the device's caching allocator (freed for reuse on this stream when the call returns);
/// where it does not fit, the allocator's out-of-memory error stands (PyTorch would try the next
/// algorithm).
template <class Perf, class Algo, class D1, class D2, class D3>
void run_pass(const Call& c, const char* name, int algorithms,
              cudnnStatus_t (*heuristic)(cudnnHandle_t, D1, D2, cudnnConvolutionDescriptor_t, D3,
                                         int, int*, Perf*),
              cudnnStatus_t (*workspace)(cudnnHandle_t, D1, D2, cudnnConvolutionDescriptor_t, D3,
                                         Algo, size_t*),
              cudnnStatus_t (*run)(cudnnHandle_t, const void*, D1, const void*, D2, const void*,
                                   cudnnConvolutionDescriptor_t, Algo, void*, size_t, const void*,
                                   D3, void*),
              D1 in1, const void* in1_data, D2 in2, const void* in2_data, D3 out, void* out_data) {
  const cudnnConvolutionDescriptor_t conv = c.d.conv.get();
  std::vector<Perf> perfs(static_cast<size_t>(algorithms));
  int returned = 0;
  check_cudnn(heuristic(c.h, in1, in2, conv, out, algorithms, &returned, perfs.data()), c.op,
              "cudnnGetConvolution*Algorithm_v7");
  // float32 without TF32 set FMA math before the heuristics, so they rank FMA algorithms; PyTorch
  // asserts the one it takes is one, this takes the first that is.
  const bool fma_only = c.plan.math == CudnnMath::fma;
  const auto usable =
      std::find_if(perfs.begin(), perfs.begin() + returned, [fma_only](const Perf& p) {
        return p.status == CUDNN_STATUS_SUCCESS && (!fma_only || p.mathType == CUDNN_FMA_MATH);
      });
  if (usable == perfs.begin() + returned) {
    const auto text = [](const std::array<int, 4>& dims) {
      std::ostringstream os;
      os << "[" << dims[0] << ", " << dims[1] << ", " << dims[2] << ", " << dims[3] << "]";
      return os.str();
    };
    fail(c.op, "cuDNN found no algorithm for ", name, " (input ", text(c.plan.x_dims),
         ", weight ", text(c.plan.w_dims), ", output ", text(c.plan.y_dims), ", ",
         c.plan.groups, " groups)");
  }
  check_cudnn(cudnnSetConvolutionMathType(conv, usable->mathType), c.op,
              "cudnnSetConvolutionMathType");
  size_t bytes = 0;
  check_cudnn(workspace(c.h, in1, in2, conv, out, usable->algo, &bytes), c.op,
              "cudnnGetConvolution*WorkspaceSize");
  const Tensor ws =
      bytes == 0 ? Tensor() : backend::new_buffer({int64_t(bytes)}, kUInt8, c.device, c.op);
  check_cudnn(run(c.h, c.one, in1, in1_data, in2, in2_data, conv, usable->algo,
                  ws.defined() ? ws.data_ptr() : nullptr, bytes, c.zero, out, out_data),
              c.op, name);
}

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
  const Descriptors d(plan, op);
  const double d1 = 1, d0 = 0;
  const float f1 = 1, f0 = 0;
  const bool is_double = plan.data_type == CudnnType::float64;
  const Call c{handle_for(index, op),
               d,
               is_double ? static_cast<const void*>(&d1) : &f1,
               is_double ? static_cast<const void*>(&d0) : &f0,
               plan,
               device,
               op};
  switch (pass) {
    case CudnnConvPass::forward:
      run_pass(c, "cudnnConvolutionForward", CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
               &cudnnGetConvolutionForwardAlgorithm_v7, &cudnnGetConvolutionForwardWorkspaceSize,
               &cudnnConvolutionForward, d.x.get(), x.data_ptr(), d.w.get(), w.data_ptr(),
               d.y.get(), y.data_ptr());
      break;
    case CudnnConvPass::backward_data:
      run_pass(c, "cudnnConvolutionBackwardData", CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
               &cudnnGetConvolutionBackwardDataAlgorithm_v7,
               &cudnnGetConvolutionBackwardDataWorkspaceSize, &cudnnConvolutionBackwardData,
               d.w.get(), w.data_ptr(), d.y.get(), y.data_ptr(), d.x.get(), x.data_ptr());
      break;
    case CudnnConvPass::backward_filter:
      run_pass(c, "cudnnConvolutionBackwardFilter", CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
               &cudnnGetConvolutionBackwardFilterAlgorithm_v7,
               &cudnnGetConvolutionBackwardFilterWorkspaceSize, &cudnnConvolutionBackwardFilter,
               d.x.get(), x.data_ptr(), d.y.get(), y.data_ptr(), d.w.get(), w.data_ptr());
      break;
  }
  if (plan.bias) {  // out += bias over its channels, after the convolution, as PyTorch adds it
    const bool on_y = pass == CudnnConvPass::forward;
    check_cudnn(cudnnAddTensor(c.h, c.one, d.bias.get(), bias.data_ptr(), c.one,
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
  b.conv.conv2d_backward = &backend::conv2d_backward_in_parts;
}

}  // namespace ember::cuda

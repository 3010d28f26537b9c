// Tensor: a cheap, reference-counted handle to a strided view over shared storage.
// Copying a Tensor shares the data (like Python's `b = a`); clone() copies it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/indexing.h"
#include "ember/int_array.h"
#include "ember/scalar.h"
#include "ember/tensor_impl.h"
#include "ember/tensor_options.h"

namespace ember {

namespace autograd {
class Node;
}
namespace cuda {
class Stream;
}
struct BackwardOptions;
class HookHandle;
class Tensor;
template <class T, size_t N>
class TensorAccessor;

namespace detail {

/// Tensor::data<Spelling>()'s template argument as a type, so that the call it makes is looked
/// up where the program uses it (see Tensor::data).
template <class Spelling>
struct DataSpelling {};

template <class Spelling>
auto tensor_data(const Tensor& t, DataSpelling<Spelling>) {
  static_assert(!std::is_same_v<Spelling, Spelling>,
                "ember has no Tensor::data(): use t.detach() (same storage, no autograd "
                "history); for an in-place update of a parameter, write it under NoGradGuard: "
                "{ NoGradGuard g; p.sub_(lr * p.grad()); }");
  return t;
}

}  // namespace detail

class Tensor {
 public:
  /// An undefined tensor (defined() == false), like a default torch::Tensor.
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  Tensor(const Tensor&) = default;
  Tensor(Tensor&&) noexcept = default;
  /// Assigning to a named handle re-points it (both handles then share one tensor).
  Tensor& operator=(const Tensor&) & = default;
  Tensor& operator=(Tensor&&) & noexcept = default;
  /// Assigning to a temporary writes into the elements it views, as LibTorch's and Python's
  /// `t[i] = x` do: `w[0] = row` copies row in (broadcast, converted), `w[0] = 0.5` fills. A
  /// temporary handle cannot be re-pointed usefully, so this is the only meaning it can have.
  Tensor& operator=(const Tensor& src) && { return copy_(src); }
  Tensor& operator=(Tensor&& src) && { return copy_(src); }
  Tensor& operator=(Scalar value) && { return fill_(value); }

  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// True when both handles point at the same tensor object (Python's `a is b`).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ── layout ───────────────────────────────────────────────────────────
  IntArrayRef sizes() const { return checked("sizes")->sizes(); }
  IntArrayRef shape() const { return checked("shape")->sizes(); }
  IntArrayRef strides() const { return checked("strides")->strides(); }
  /// Size of dim d (negative d counts from the end).
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t dim() const { return checked("dim")->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return checked("numel")->numel(); }
  int64_t storage_offset() const { return checked("storage_offset")->storage_offset(); }
  bool is_contiguous() const { return checked("is_contiguous")->is_contiguous(); }
  Dtype dtype() const { return checked("dtype")->dtype(); }
  Dtype scalar_type() const { return checked("scalar_type")->dtype(); }
  Device device() const { return checked("device")->device(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  int64_t element_size() const { return itemsize(dtype()); }
  int64_t nbytes() const { return numel() * element_size(); }
  const Storage& storage() const { return checked("storage")->storage(); }
  /// Options describing this tensor (dtype, device); used by *_like.
  TensorOptions options() const { return {.dtype = dtype(), .device = device()}; }

  /// Typed pointer to the first element, for host access: throws if T does not match dtype()
  /// or the tensor is not on the CPU.
  template <class T>
  T* data_ptr() const {
    check_data_ptr(dtype_of<std::remove_const_t<T>>());
    return static_cast<T*>(impl_->data());
  }
  /// The same untyped. A backend reaches its own device's memory through impl()->data().
  void* data_ptr() const {
    TensorImpl* impl = checked("data_ptr");
    if (!impl->device().is_cpu()) [[unlikely]]
      host_access_error();
    return impl->data();
  }

  /// The value of a one-element tensor.
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }

  // ── views (share storage and the version counter) ────────────────────
  Tensor view(IntArrayRef sizes) const;
  Tensor view(Dtype dtype) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor swapaxes(int64_t d0, int64_t d1) const { return transpose(d0, d1); }
  Tensor permute(IntArrayRef dims) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  /// Transpose of a tensor with at most 2 dims (PyTorch's .t()).
  Tensor t() const;
  /// All dims reversed (Python's .T).
  Tensor T() const;
  /// Last two dims swapped (Python's .mT).
  Tensor mT() const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  /// The in-place forms change this tensor's sizes and strides (the data stays); with autograd
  /// history the tensor takes the view's node, as PyTorch's UnsqueezeBackward1 & co.
  Tensor& unsqueeze_(int64_t dim) const;
  Tensor& squeeze_() const;
  Tensor& squeeze_(int64_t dim) const;
  Tensor& t_() const;
  Tensor& transpose_(int64_t d0, int64_t d1) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
               int64_t step = 1) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  /// A new handle on the same data with no autograd history.
  Tensor detach() const;
  Tensor alias() const;

  // ── copies ───────────────────────────────────────────────────────────
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor to(Dtype dtype, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, Dtype dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other) const { return to(other.device(), other.dtype()); }
  /// LibTorch's name for to(dtype).
  Tensor toType(Dtype dtype) const { return to(dtype); }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA)); }
  /// A copy of this CPU tensor in page-locked (pinned) host memory, from which non_blocking
  /// copies to a CUDA device can run asynchronously (torch.Tensor.pin_memory); this tensor itself
  /// when it is pinned already. Needs CUDA: a build without it throws ember::Error, as PyTorch's
  /// CPU-only build refuses aten::_pin_memory.
  Tensor pin_memory() const;
  /// Whether this tensor's storage is pinned host memory (so are all its views). Always false in
  /// a build without CUDA.
  bool is_pinned() const;
  /// Marks this CUDA tensor's memory as used by `stream` (torch.Tensor.record_stream): when the
  /// storage is freed, the caching allocator hands the block out again only after the work
  /// queued on `stream` up to the free is done, not just the work of its own stream. Throws
  /// ember::Error for a tensor that is not on a CUDA device.
  void record_stream(const cuda::Stream& stream) const;
  /// Elements in row-major order as std::vector<T> (converted to T).
  template <class T>
  std::vector<T> tolist() const;

  // ── indexing ─────────────────────────────────────────────────────────
  /// Python's t[...]: integers and slices give views; None adds an axis; Ellipsis fills.
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  /// LibTorch's t[i] (select(0, i), a view) and t[indices_or_mask] (index({t})).
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor operator[](const Tensor& index) const { return this->index({index}); }
  /// LibTorch's element access for CPU loops: a.accessor<float, 2>()[i][j] reads and writes
  /// element (i, j) through the strides (ember/tensor_accessor.h). Checks dim() == N and dtype.
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() const&;
  template <class T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;  // the accessor would outlive the tensor
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const;
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, Scalar value) const;
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) const;
  Tensor& index_put_(const std::vector<TensorIndex>& indices, Scalar value) const;
  /// With accumulate, values add into the indexed elements and repeated indices sum up.
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                     bool accumulate) const;
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value,
                     bool accumulate) const;

  // ── in place ─────────────────────────────────────────────────────────
  /// Copies src into this tensor (broadcasting src, converting dtype).
  Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  Tensor& fill_(Scalar value) const;
  Tensor& fill_(const Tensor& value) const;
  Tensor& zero_() const;

  // ── elementwise math (src/ops/binary.cpp, unary.cpp, compare.cpp) ──────
  Tensor add(const Tensor& other, Scalar alpha = 1) const;
  Tensor add(Scalar other, Scalar alpha = 1) const;
  Tensor& add_(const Tensor& other, Scalar alpha = 1) const;
  Tensor& add_(Scalar other, Scalar alpha = 1) const;
  Tensor sub(const Tensor& other, Scalar alpha = 1) const;
  Tensor sub(Scalar other, Scalar alpha = 1) const;
  Tensor& sub_(const Tensor& other, Scalar alpha = 1) const;
  Tensor& sub_(Scalar other, Scalar alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(Scalar other) const;
  Tensor& mul_(const Tensor& other) const;
  Tensor& mul_(Scalar other) const;
  /// True division; rounding_mode "floor" or "trunc" rounds the quotient.
  Tensor div(const Tensor& other, std::optional<std::string> rounding_mode = {}) const;
  Tensor div(Scalar other, std::optional<std::string> rounding_mode = {}) const;
  Tensor& div_(const Tensor& other, std::optional<std::string> rounding_mode = {}) const;
  Tensor& div_(Scalar other, std::optional<std::string> rounding_mode = {}) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(Scalar other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(Scalar other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(Scalar other) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor& pow_(const Tensor& exponent) const;
  Tensor& pow_(Scalar exponent) const;
  Tensor atan2(const Tensor& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor lerp(const Tensor& end, Scalar weight) const;
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  Tensor addcmul(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;
  Tensor& addcmul_(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;
  Tensor addcdiv(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;
  Tensor& addcdiv_(const Tensor& t1, const Tensor& t2, Scalar value = 1) const;

  Tensor neg() const;
  Tensor& neg_() const;
  Tensor abs() const;
  Tensor& abs_() const;
  Tensor sign() const;
  Tensor sqrt() const;
  Tensor& sqrt_() const;
  Tensor rsqrt() const;
  Tensor square() const;
  Tensor exp() const;
  Tensor& exp_() const;
  Tensor exp2() const;
  Tensor expm1() const;
  Tensor log() const;
  Tensor& log_() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor log1p() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor tanh() const;
  Tensor& tanh_() const;
  Tensor sigmoid() const;
  Tensor& sigmoid_() const;
  Tensor logit(std::optional<double> eps = {}) const;
  Tensor relu() const;
  Tensor& relu_() const;
  Tensor erf() const;
  Tensor erfc() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round(int64_t decimals = 0) const;
  Tensor trunc() const;
  Tensor frac() const;
  Tensor reciprocal() const;
  Tensor& reciprocal_() const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = {}) const;
  Tensor clamp(const Tensor& min, const Tensor& max) const;
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = {}) const;
  Tensor clamp_min(Scalar min) const;
  Tensor clamp_max(Scalar max) const;
  Tensor nan_to_num(std::optional<double> nan = {}, std::optional<double> posinf = {},
                    std::optional<double> neginf = {}) const;

  Tensor eq(const Tensor& other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(Scalar other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(Scalar other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(Scalar other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(Scalar other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(Scalar other) const;
  Tensor logical_and(const Tensor& other) const;
  Tensor logical_or(const Tensor& other) const;
  Tensor logical_xor(const Tensor& other) const;
  Tensor logical_not() const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_not() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, Scalar value) const;
  Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  /// where(condition, *this, other).
  Tensor where(const Tensor& condition, const Tensor& other) const;

  // ── reductions (src/ops/reduce.cpp) ──────────────────────────────────
  Tensor sum(std::optional<Dtype> dtype = {}) const;
  Tensor sum(IntArrayRef dims, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  Tensor sum(int64_t dim, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  Tensor nansum(std::optional<Dtype> dtype = {}) const;
  Tensor nansum(IntArrayRef dims, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  Tensor mean(std::optional<Dtype> dtype = {}) const;
  Tensor mean(IntArrayRef dims, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  Tensor mean(int64_t dim, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  Tensor nanmean(std::optional<IntArrayRef> dims = {}, bool keepdim = false) const;
  Tensor prod(std::optional<Dtype> dtype = {}) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<Dtype> dtype = {}) const;
  /// Standard deviation with Bessel's correction (correction = 1) unless given.
  Tensor std(std::optional<IntArrayRef> dims = {}, int64_t correction = 1,
             bool keepdim = false) const;
  Tensor std(int64_t dim, int64_t correction = 1, bool keepdim = false) const;
  Tensor var(std::optional<IntArrayRef> dims = {}, int64_t correction = 1,
             bool keepdim = false) const;
  Tensor var(int64_t dim, int64_t correction = 1, bool keepdim = false) const;
  /// Global max / min as a 0-d tensor.
  Tensor max() const;
  Tensor min() const;
  /// (values, indices) along dim.
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  /// Elementwise with another tensor: LibTorch's spelling of maximum / minimum.
  Tensor max(const Tensor& other) const { return maximum(other); }
  Tensor min(const Tensor& other) const { return minimum(other); }
  Tensor argmax(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor norm(Scalar p = 2) const;
  Tensor norm(Scalar p, IntArrayRef dims, bool keepdim = false) const;
  Tensor norm(Scalar p, int64_t dim, bool keepdim = false) const;
  Tensor logsumexp(IntArrayRef dims, bool keepdim = false) const;
  Tensor logsumexp(int64_t dim, bool keepdim = false) const;
  Tensor softmax(int64_t dim, std::optional<Dtype> dtype = {}) const;
  Tensor log_softmax(int64_t dim, std::optional<Dtype> dtype = {}) const;
  Tensor cumsum(int64_t dim, std::optional<Dtype> dtype = {}) const;
  Tensor cumprod(int64_t dim, std::optional<Dtype> dtype = {}) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor count_nonzero(std::optional<IntArrayRef> dims = {}) const;
  /// Largest k values along dim (sorted), with their indices.
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  /// Sorted values and the permutation; stable.
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;

  // ── linear algebra (src/ops/linalg.cpp) ──────────────────────────────
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor mv(const Tensor& vec) const;
  Tensor dot(const Tensor& other) const;

  // ── indexing ops (src/ops/gather.cpp, ...) ───────────────────────────
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     Scalar alpha = 1) const;
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor& index_fill_(int64_t dim, const Tensor& index, Scalar value) const;
  Tensor masked_select(const Tensor& mask) const;
  Tensor nonzero() const;
  Tensor flip(IntArrayRef dims) const;
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;

  // ── autograd (include/ember/autograd.h, src/autograd) ────────────────
  /// True for leaves that require grad and for results recorded in the graph.
  bool requires_grad() const;
  /// Created under InferenceMode (it can never enter autograd).
  bool is_inference() const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  /// LibTorch's spelling: requires_grad_ on a leaf. A result recorded in the graph keeps
  /// requiring grad whatever is set (its grad_fn decides), as in LibTorch, instead of refusing.
  const Tensor& set_requires_grad(bool requires_grad) const;
  /// Backpropagates from this tensor: an implicit gradient of 1 only for one-element outputs.
  void backward() const;
  void backward(const BackwardOptions& options) const;
  /// LibTorch's positional form: y.backward(gradient[, retain_graph[, create_graph]]).
  void backward(const Tensor& gradient, std::optional<bool> retain_graph = {},
                bool create_graph = false) const;
  /// The accumulated gradient (leaves, or non-leaves after retain_grad()); undefined if none.
  const Tensor& grad() const;
  /// Assignable gradient slot: t.mutable_grad() = Tensor() resets it.
  Tensor& mutable_grad() const;
  /// The node that produced this tensor, or null for leaves and untracked tensors.
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  /// Which output of grad_fn() this tensor is.
  uint32_t output_nr() const;
  /// Keeps the gradient of a non-leaf tensor in grad() during backward.
  Tensor& retain_grad() const;
  bool retains_grad() const;
  /// Detaches in place: this handle leaves the graph (shares data as before).
  Tensor& detach_() const;
  /// Runs hook(grad) when this tensor's gradient is computed; a defined return value replaces
  /// the gradient.
  HookHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// For leaves: runs hook(*this) after the gradient was accumulated into grad().
  HookHandle register_post_accumulate_grad_hook(std::function<void(const Tensor&)> hook) const;
  /// Bumped by every in-place write to this tensor's storage (shared by all views).
  uint32_t _version() const { return checked("_version")->storage()->version(); }

  /// Whole-tensor equality of shape and values (torch.equal).
  bool equal(const Tensor& other) const;
  /// allclose(*this, other, ...) of math.h, as LibTorch's method.
  bool allclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                bool equal_nan = false) const;

  // Note [in-place on a const handle]: a Tensor is a handle, so const on it does not make the
  // data read-only, as in LibTorch, whose in-place methods are all const: x.grad().zero_() and
  // `for (const Tensor& p : params) p.add_(...)` compile. The in-place methods above are const
  // for that reason: they write the shared TensorImpl and storage, never this handle's pointer,
  // and return *this as a mutable handle (mut()), as LibTorch's do.
  /// LibTorch's random fills as methods: t.uniform_(a, b), t.normal_(mean, std), t.bernoulli_(p),
  /// t.random_(from, to) (src/core/tensor_libtorch_methods.cpp, over the free fills).
  Tensor& uniform_(double from = 0.0, double to = 1.0, Generator* gen = nullptr) const;
  Tensor& normal_(double mean = 0.0, double std = 1.0, Generator* gen = nullptr) const;
  Tensor& bernoulli_(double p = 0.5, Generator* gen = nullptr) const;
  Tensor& random_(int64_t from, int64_t to, Generator* gen = nullptr) const;
  Tensor& exponential_(double lambd = 1.0, Generator* gen = nullptr) const;
  /// ember::multinomial(*this, ...).
  Tensor multinomial(int64_t num_samples, bool replacement = false,
                     Generator* gen = nullptr) const;

  /// LibTorch's Tensor::data() is refused with a message naming ember's spelling: detach()
  /// shares the data without history (and, unlike .data, the version counter, so autograd still
  /// sees in-place changes). The LibTorch layer (include/ember/libtorch) gives it LibTorch's
  /// meaning by declaring detail::tensor_data(const Tensor&, DataSpelling<void>), which the
  /// call below finds by argument-dependent lookup in programs that include the layer; without
  /// it only the refusing template matches.
  template <class Spelling = void>
  auto data() const {
    return tensor_data(*this, detail::DataSpelling<Spelling>{});
  }

 private:
  void check_data_ptr(Dtype requested) const;
  [[noreturn]] void host_access_error() const;
  // The impl, or an ember::Error naming `op` for an undefined tensor (never a null dereference).
  TensorImpl* checked(const char* op) const {
    if (!impl_) [[unlikely]]
      undefined_error(op);
    return impl_.get();
  }
  [[noreturn]] static void undefined_error(const char* op);
  Tensor& mut() const { return const_cast<Tensor&>(*this); }  // Note [in-place on a const handle]

  intrusive_ptr<TensorImpl> impl_;
};

struct BackwardOptions {
  Tensor gradient = {};                   // required for outputs with more than one element
  std::optional<bool> retain_graph = {};  // default: create_graph
  bool create_graph = false;              // record the backward itself (double backward)
};

inline void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                             bool create_graph) const {
  backward({.gradient = gradient, .retain_graph = retain_graph, .create_graph = create_graph});
}

/// Removes the hook it was returned for (no-op once removed).
class HookHandle {
 public:
  HookHandle() = default;
  explicit HookHandle(std::function<void()> remover) : remover_(std::move(remover)) {}
  void remove() {
    if (remover_) std::exchange(remover_, nullptr)();
  }

 private:
  std::function<void()> remover_;
};

/// Prints like PyTorch's repr: tensor([[1, 2, 3],\n        [4, 5, 6]]).
std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// The repr as a string.
std::string repr(const Tensor& t);

}  // namespace ember

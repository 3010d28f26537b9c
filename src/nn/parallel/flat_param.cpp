// FlatParamUnit: flattening, padding and sharding (1.13's _get_shard: every rank holds
// ceil(N / W) elements, the zero padding at the end of the last ranks), the all-gather into a
// full flat tensor the parameters point into, and the gradient reduce-scatter.
#include "nn/parallel/flat_param.h"

#include <algorithm>
#include <sstream>

#include "core/tensor_impl_mutators.h"
#include "distributed/device_communicator.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ember/tensor_impl.h"

namespace ember::nn::fsdp_detail {
namespace {

constexpr const char* kFlatParamOp = "FullyShardedDataParallel";

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

std::string shape_text(IntArrayRef shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  return os.str() + "]";
}

}  // namespace

FlatParamUnit::FlatParamUnit(std::string module_path, std::vector<Tensor> params,
                             std::vector<std::string> names, dist::ProcessGroup group,
                             bool sharded, bool sync_module_states,
                             std::optional<Dtype> compute_dtype, std::optional<Dtype> reduce_dtype)
    : module_path_(std::move(module_path)),
      params_(std::move(params)),
      names_(std::move(names)),
      group_(std::move(group)),
      sharded_(sharded),
      world_(dist::get_world_size(group_)),
      rank_(dist::get_rank(group_)),
      ready_(params_.size(), false) {
  NoGradGuard no_grad;
  EMBER_CHECK(!params_.empty(), kFlatParamOp, unit_text(), " has no parameters");
  const Dtype dtype = params_[0].dtype();
  device_ = params_[0].device();
  const bool requires_grad = params_[0].requires_grad();
  std::vector<Tensor> pieces;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    EMBER_CHECK(p.is_floating_point(), kFlatParamOp, "parameter '", names_[i], "' is ", p.dtype(),
                ": integer parameters are unsupported (a flat parameter holds floating point)");
    EMBER_CHECK(p.dtype() == dtype, kFlatParamOp,
                "a flat parameter requires a uniform dtype, but in ", unit_text(), " '", names_[0],
                "' is ", dtype, " and '", names_[i], "' is ", p.dtype());
    EMBER_CHECK(p.requires_grad() == requires_grad, kFlatParamOp,
                "a flat parameter requires uniform requires_grad, but in ", unit_text(), " '",
                names_[0], "' has ", requires_grad, " and '", names_[i], "' has ",
                p.requires_grad());
    EMBER_CHECK(p.device() == device_, kFlatParamOp,
                "a flat parameter requires one device, but in ", unit_text(), " '", names_[0], "' is on ", device_, " and '", names_[i], "' on ",
                p.device());
    const Device takes = dist::collective_device(group_, device_);
    EMBER_CHECK(takes == device_, kFlatParamOp, "parameter '", names_[i], "' is on ", p.device(),
                ", but the process group's backend (", group_.backend(), ") takes ",
                takes.is_cpu() ? "CPU tensors; use init_process_group with backend 'nccl' for a "
                                 "CUDA module"
                               : "CUDA tensors; move the module with ->to(\"cuda:<local rank>\") "
                                 "first");
    shapes_.emplace_back(p.sizes().begin(), p.sizes().end());
    offsets_.push_back(numel_);
    numel_ += p.numel();
    pieces.push_back(p.detach().reshape({-1}));
  }
  compute_dtype_ = compute_dtype.value_or(dtype);
  reduce_dtype_ = reduce_dtype.value_or(compute_dtype_);
  separate_full_ = sharded_ || compute_dtype_ != dtype;
  const int64_t chunks = sharded_ ? world_ : 1;
  shard_numel_ = (numel_ + chunks - 1) / chunks;
  Tensor flat = zeros({shard_numel_ * chunks}, {.dtype = dtype, .device = device_});
  flat.narrow(0, 0, numel_).copy_(cat(pieces, 0));
  pieces.clear();
  if (sync_module_states) dist::broadcast(flat, 0, {.group = group_});
  shard_ = sharded_ ? flat.narrow(0, rank_ * shard_numel_, shard_numel_).clone() : flat;
  shard_.requires_grad_(requires_grad);
  if (separate_full_) {
    reshard();
  } else {
    point_params_into(shard_);
  }
}

std::string FlatParamUnit::unit_text() const {
  return module_path_.empty() ? std::string("the root unit") : "unit '" + module_path_ + "'";
}

void FlatParamUnit::point_params_into(const Tensor& flat) {
  for (size_t i = 0; i < params_.size(); ++i)
    TensorImplMutators::set_data(*params_[i].impl(), flat.storage(), flat.dtype(), shapes_[i],
                                 contiguous_strides(shapes_[i]),
                                 flat.storage_offset() + offsets_[i]);
}

bool FlatParamUnit::unshard() {
  if (!separate_full_ || full_.defined()) return false;
  NoGradGuard no_grad;
  bool issued = false;
  if (!gather_in_flight_) {
    if (!sharded_) {  // only a cast to the compute dtype
      full_ = shard_.detach().to(compute_dtype_);
      point_params_into(full_);
      return false;
    }
    issued = prefetch();
  }
  gather_in_flight_ = false;
  gather_work_.wait();
  full_ = gathering_;
  gathering_ = gather_input_ = Tensor();
  point_params_into(full_);
  return issued;
}

bool FlatParamUnit::prefetch() {
  if (!sharded_ || full_.defined() || gather_in_flight_) return false;
  NoGradGuard no_grad;
  // Without a cast the collective reads the shard itself: nothing writes it meanwhile, since
  // every gather completes by the end of backward (finish_backward reshards every unit), before
  // an optimizer can step.
  gather_input_ = shard_.detach().to(compute_dtype_);
  gathering_ = empty({shard_numel_ * world_}, {.dtype = compute_dtype_, .device = device_});
  gather_work_ = dist::all_gather_into_tensor(gathering_, gather_input_,
                                              {.group = group_, .async_op = true});
  gather_in_flight_ = true;
  return true;
}

void FlatParamUnit::drop_prefetch() {
  if (!gather_in_flight_) return;
  gather_in_flight_ = false;
  gather_work_.wait();
  gathering_ = gather_input_ = Tensor();
}

void FlatParamUnit::reshard() {
  if (!separate_full_) return;
  drop_prefetch();
  full_ = Tensor();
  const Tensor nothing = empty({0}, {.dtype = compute_dtype_, .device = device_});
  for (const Tensor& p : params_) TensorImplMutators::set_data(*p.impl(), *nothing.impl());
}

std::vector<Tensor> FlatParamUnit::gather_values() const { return gather_like_shard(shard_); }

std::vector<Tensor> FlatParamUnit::gather_like_shard(const Tensor& local) const {
  NoGradGuard no_grad;
  EMBER_CHECK(local.dim() == 1 && local.numel() == shard_numel_, kFlatParamOp, unit_text(),
              ": expected a tensor of the shard's ", shard_numel_, " elements, got ",
              shape_text(local.sizes()));
  Tensor flat = local.detach();
  if (sharded_) {
    flat = empty({shard_numel_ * world_}, {.dtype = local.dtype(), .device = device_});
    dist::all_gather_into_tensor(flat, local.detach().contiguous(), {.group = group_});
  }
  std::vector<Tensor> values;
  for (size_t i = 0; i < params_.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : shapes_[i]) n *= d;
    values.push_back(flat.narrow(0, offsets_[i], n).view(shapes_[i]).clone());
  }
  return values;
}

bool FlatParamUnit::mark_ready(size_t param) {
  if (!ready_[param]) {
    ready_[param] = true;
    ++ready_count_;
  }
  return ready_count_ == params_.size();
}

void FlatParamUnit::reduce_gradients() {
  launch_reduce();
  finish_reduce();
}

Tensor FlatParamUnit::take_flat_gradients(Dtype dtype) {
  NoGradGuard no_grad;
  const int64_t chunks = sharded_ ? world_ : 1;
  Tensor flat = zeros({shard_numel_ * chunks}, {.dtype = dtype, .device = device_});
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& g = params_[i].mutable_grad();
    if (g.defined()) flat.narrow(0, offsets_[i], g.numel()).copy_(g.reshape({-1}));
    g = Tensor();
  }
  std::fill(ready_.begin(), ready_.end(), false);
  ready_count_ = 0;
  return flat;
}

void FlatParamUnit::accumulate_unsharded() {
  NoGradGuard no_grad;
  Tensor flat = take_flat_gradients(shard_.dtype());
  if (accumulated_.defined()) accumulated_.add_(flat);
  else accumulated_ = flat;
}

void FlatParamUnit::launch_reduce() {
  NoGradGuard no_grad;
  EMBER_CHECK(!reduce_in_flight_, kFlatParamOp, unit_text(),
              ": a gradient reduction is already running");
  Tensor flat;
  if (accumulated_.defined()) {  // no_sync's steps, summed in the shard's precision
    accumulated_.add_(take_flat_gradients(shard_.dtype()));
    flat = accumulated_.to(reduce_dtype_);
    accumulated_ = Tensor();
  } else {
    flat = take_flat_gradients(reduce_dtype_);
  }
  // Asynchronous: the rest of backward runs while the group's thread reduces.
  if (sharded_) {
    reduced_ = empty({shard_numel_}, {.dtype = reduce_dtype_, .device = device_});
    reduce_work_ = dist::reduce_scatter_tensor(
        reduced_, flat, {.op = dist::ReduceOp::AVG, .group = group_, .async_op = true});
  } else {
    reduced_ = flat;
    reduce_work_ = dist::all_reduce(
        reduced_, {.op = dist::ReduceOp::AVG, .group = group_, .async_op = true});
  }
  reduce_in_flight_ = true;
}

void FlatParamUnit::finish_reduce() {
  if (!reduce_in_flight_) return;
  reduce_in_flight_ = false;
  reduce_work_.wait();
  NoGradGuard no_grad;
  Tensor reduced = reduced_.dtype() == shard_.dtype() ? reduced_ : reduced_.to(shard_.dtype());
  reduced_ = Tensor();
  Tensor& grad = shard_.mutable_grad();
  if (grad.defined()) grad.add_(reduced);
  else grad = reduced;
}

Tensor FlatParamUnit::shard_of(const std::vector<Tensor>& values) const {
  NoGradGuard no_grad;
  const int64_t chunks = sharded_ ? world_ : 1;
  Tensor flat = zeros({shard_numel_ * chunks}, {.dtype = values.empty() ? shard_.dtype()
                                                                        : values[0].dtype(),
                                                .device = device_});
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::vector<int64_t> got(values[i].sizes().begin(), values[i].sizes().end());
    EMBER_CHECK(got == shapes_[i], kFlatParamOp, "size mismatch for ", names_[i], ": ",
                shape_text(values[i].sizes()), " given, the parameter is ", shape_text(shapes_[i]));
    flat.narrow(0, offsets_[i], values[i].numel()).copy_(values[i].reshape({-1}));
  }
  return sharded_ ? flat.narrow(0, rank_ * shard_numel_, shard_numel_).clone() : flat;
}

void FlatParamUnit::load_full(const std::vector<Tensor>& values) {
  NoGradGuard no_grad;
  drop_prefetch();  // it gathered the old values
  const int64_t chunks = sharded_ ? world_ : 1;
  Tensor flat = zeros({shard_numel_ * chunks}, {.dtype = shard_.dtype(), .device = device_});
  for (size_t i = 0; i < params_.size(); ++i) {
    const std::vector<int64_t> got(values[i].sizes().begin(), values[i].sizes().end());
    EMBER_CHECK(got == shapes_[i], kFlatParamOp, "size mismatch for ", names_[i],
                ": copying a param with shape ", shape_text(values[i].sizes()),
                " from checkpoint, the shape in current model is ", shape_text(shapes_[i]));
    flat.narrow(0, offsets_[i], values[i].numel()).copy_(values[i].reshape({-1}));
  }
  if (sharded_) shard_.detach().copy_(flat.narrow(0, rank_ * shard_numel_, shard_numel_));
  else shard_.detach().copy_(flat);
  if (full_.defined()) full_.copy_(flat);  // a gathered copy sees the new values too
}

}  // namespace ember::nn::fsdp_detail

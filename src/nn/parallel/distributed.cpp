// DistributedDataParallel's construction (the parameter list, the cross-rank shape check, rank
// 0's state broadcast) and what its forward does around the module: buffers broadcast first,
// the reducer armed after (or kept quiet inside no_sync).
#include "ember/nn/parallel/distributed.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "distributed/device_communicator.h"
#include "nn/parallel/reducer.h"

namespace ember::nn::parallel {
namespace {

constexpr const char* kDdpOp = "DistributedDataParallel";

// _build_params_for_reducer: each module's own parameters that require grad, in named_modules
// order, each tensor once.
void collect_parameters(const Module& module, std::vector<Tensor>& params,
                        std::vector<std::string>& names) {
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& [prefix, m] : module.named_modules())
    for (const auto& [name, p] : m->named_parameters(/*recurse=*/false)) {
      if (!p.requires_grad() || !seen.insert(p.impl()).second) continue;
      params.push_back(p);
      names.push_back(prefix.empty() ? name : prefix + "." + name);
    }
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  return os.str() + "]";
}

// Each rank's parameter shapes as [count, ndim, sizes..., ndim, sizes..., ...].
std::vector<std::vector<int64_t>> decode_shapes(const std::vector<int64_t>& code) {
  std::vector<std::vector<int64_t>> shapes;
  size_t at = 1;
  for (int64_t p = 0; p < code[0]; ++p) {
    const auto ndim = static_cast<size_t>(code[at++]);
    shapes.emplace_back(code.begin() + static_cast<ptrdiff_t>(at),
                        code.begin() + static_cast<ptrdiff_t>(at + ndim));
    at += ndim;
  }
  return shapes;
}

// _verify_params_across_processes: every rank gathers every rank's shapes and compares them
// with rank 0's, so all ranks raise the same error.
void verify_shapes_across_ranks(const std::vector<Tensor>& params,
                                const std::vector<std::string>& names,
                                const dist::ProcessGroup& group) {
  std::vector<int64_t> code{static_cast<int64_t>(params.size())};
  for (const Tensor& p : params) {
    code.push_back(p.dim());
    for (int64_t s : p.sizes()) code.push_back(s);
  }
  // On the group's device: an nccl group takes only CUDA tensors.
  const Device on =
      dist::collective_device(group, params.empty() ? Device(kCPU) : params[0].device());
  Tensor length = from_vector(std::vector<int64_t>{static_cast<int64_t>(code.size())}).to(on);
  dist::all_reduce(length, {.op = dist::ReduceOp::MAX, .group = group});
  const int64_t longest = length.cpu().item<int64_t>();
  code.resize(static_cast<size_t>(longest), -1);
  const int world = dist::get_world_size(group);
  Tensor gathered = zeros({world * longest}, {.dtype = kInt64, .device = on});
  dist::all_gather_into_tensor(gathered, from_vector(code).to(on), {.group = group});
  const auto all = gathered.cpu().tolist<int64_t>();
  auto rank_code = [&](int r) {
    return std::vector<int64_t>(all.begin() + r * longest, all.begin() + (r + 1) * longest);
  };
  const auto reference = decode_shapes(rank_code(0));
  for (int r = 1; r < world; ++r) {
    const auto shapes = decode_shapes(rank_code(r));
    for (size_t i = 0; i < std::min(shapes.size(), reference.size()); ++i)
      if (shapes[i] != reference[i])
        fail(kDdpOp, "DDP expects the same model on every rank, but rank ", r, "'s parameter ", i,
             " ('", names[i], "') has shape ", shape_text(shapes[i]), " while rank 0's has shape ",
             shape_text(reference[i]));
    if (shapes.size() != reference.size())
      fail(kDdpOp, "DDP expects the same model on every rank, but rank ", r, " has ", shapes.size(),
           " parameters that require grad and rank 0 has ", reference.size());
  }
}

// _broadcast_coalesced: one broadcast per dtype of the tensors flattened together.
void broadcast_coalesced(const std::vector<Tensor>& tensors, int src,
                         const dist::ProcessGroup& group) {
  NoGradGuard no_grad;
  std::vector<Dtype> dtypes;
  for (const Tensor& t : tensors)
    if (std::find(dtypes.begin(), dtypes.end(), t.dtype()) == dtypes.end())
      dtypes.push_back(t.dtype());
  for (Dtype dtype : dtypes) {
    std::vector<Tensor> group_tensors;
    for (const Tensor& t : tensors)
      if (t.dtype() == dtype && t.numel() > 0) group_tensors.push_back(t.detach().reshape({-1}));
    if (group_tensors.empty()) continue;
    Tensor flat = cat(group_tensors, 0);
    dist::broadcast(flat, src, {.group = group});
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (t.dtype() != dtype || t.numel() == 0) continue;
      Tensor dst = t.detach();
      dst.copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
      offset += t.numel();
    }
  }
}

}  // namespace

struct DistributedDataParallelImpl::State {
  DistributedDataParallelOptions options;
  std::unique_ptr<Reducer> reducer;
  std::vector<Tensor> buffers;
  bool require_backward_grad_sync = true;  // false inside no_sync()
  // After a synced backward's forward: the next forward broadcasts the buffers first.
  bool require_forward_param_sync = true;
};

DistributedDataParallelImpl::DistributedDataParallelImpl(std::shared_ptr<Module> module,
                                                         DistributedDataParallelOptions options)
    : module_ptr_(std::move(module)), state_(new State{.options = std::move(options)}) {
  EMBER_CHECK(module_ptr_ != nullptr, kDdpOp, "got an empty module");
  EMBER_CHECK(dist::is_initialized(), kDdpOp,
              "the default process group has not been initialized: call "
              "dist::init_process_group() first");
  EMBER_CHECK(state_->options.bucket_cap_mb > 0, kDdpOp, "bucket_cap_mb must be positive, got ",
              state_->options.bucket_cap_mb);
  register_module("module", module_ptr_);
  std::vector<Tensor> params;
  std::vector<std::string> names;
  collect_parameters(*module_ptr_, params, names);
  EMBER_CHECK(!params.empty(), kDdpOp,
              "DistributedDataParallel is not needed when a module doesn't have any parameter "
              "that requires a gradient.");
  // One device, the one the group's backend takes (PyTorch 1.13's DDP wants one device type
  // too; its Gloo stages CUDA tensors, ember's Gloo group takes CPU tensors only).
  const Device device = params[0].device();
  const Device takes = dist::collective_device(state_->options.process_group, device);
  for (const Tensor& p : params) {
    EMBER_CHECK(p.device() == device, kDdpOp, "DistributedDataParallel's input module must be on "
                "one device, but its parameters are on ", device, " and ", p.device());
    EMBER_CHECK(p.device() == takes, kDdpOp, "a parameter is on ", p.device(),
                ", but the process "
                "group's backend (",
                state_->options.process_group.backend(), ") takes ",
                takes.is_cpu() ? "CPU tensors" : "CUDA tensors",
                takes.is_cpu() ? "; use init_process_group with backend 'nccl' for a CUDA module"
                               : "; move the module with ->to(\"cuda:<local rank>\") first");
  }
  verify_shapes_across_ranks(params, names, state_->options.process_group);
  state_->buffers = module_ptr_->buffers();
  std::vector<Tensor> state = params;
  state.insert(state.end(), state_->buffers.begin(), state_->buffers.end());
  broadcast_coalesced(state, 0, state_->options.process_group);
  state_->reducer = std::make_unique<Reducer>(std::move(params), std::move(names), state_->options);
}

DistributedDataParallelImpl::~DistributedDataParallelImpl() = default;

bool DistributedDataParallelImpl::require_backward_grad_sync() const {
  return state_->require_backward_grad_sync;
}
const dist::ProcessGroup& DistributedDataParallelImpl::process_group() const {
  return state_->options.process_group;
}
const DistributedDataParallelOptions& DistributedDataParallelImpl::options() const {
  return state_->options;
}

DistributedDataParallelImpl::NoSyncGuard::NoSyncGuard(DistributedDataParallelImpl& ddp)
    : ddp_(ddp), previous_(ddp.require_backward_grad_sync()) {
  ddp_.state_->require_backward_grad_sync = false;
}

DistributedDataParallelImpl::NoSyncGuard::~NoSyncGuard() {
  ddp_.state_->require_backward_grad_sync = previous_;
}

void DistributedDataParallelImpl::register_comm_hook(CommHook hook) {
  state_->reducer->register_comm_hook(std::move(hook));
}

std::vector<std::vector<size_t>> DistributedDataParallelImpl::bucket_assignment() const {
  return state_->reducer->bucket_assignment();
}

const std::vector<std::string>& DistributedDataParallelImpl::parameter_names() const {
  return state_->reducer->names();
}

void DistributedDataParallelImpl::pre_forward() {
  if (is_grad_enabled() && state_->require_backward_grad_sync)
    state_->reducer->prepare_for_forward();
  if (state_->require_forward_param_sync && state_->options.broadcast_buffers &&
      !state_->buffers.empty())
    broadcast_coalesced(state_->buffers, 0, state_->options.process_group);
}

void DistributedDataParallelImpl::post_forward(const std::vector<Tensor>& outputs) {
  if (is_grad_enabled() && state_->require_backward_grad_sync) {
    state_->require_forward_param_sync = true;
    state_->reducer->prepare_for_backward(outputs);
  } else {
    state_->require_forward_param_sync = false;
    if (!state_->require_backward_grad_sync) state_->reducer->disarm();
  }
}

}  // namespace ember::nn::parallel

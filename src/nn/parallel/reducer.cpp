// The Reducer: buckets filled from the parameters' post-accumulate-grad hooks, each reduced
// asynchronously when full, and an end-of-backward step (autograd::queue_callback) that waits for
// the reductions and writes the averages back. Buckets are launched strictly in order, so every
// rank issues the same sequence of collectives whatever order its hooks fire in.
#include "nn/parallel/reducer.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/autograd_meta.h"
#include "autograd/final_callbacks.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "distributed/device_communicator.h"
#include "ember/error.h"

namespace ember::nn::parallel {
namespace {

constexpr size_t kFirstBucketBytes = 1024 * 1024;  // dist._DEFAULT_FIRST_BUCKET_BYTES

size_t bytes_of(const Tensor& t) { return static_cast<size_t>(t.numel()) * t.element_size(); }

// The parameters whose AccumulateGrad the outputs' graph reaches.
std::unordered_set<const TensorImpl*> reachable_leaves(const std::vector<Tensor>& outputs) {
  std::unordered_set<const TensorImpl*> leaves;
  std::unordered_set<const autograd::Node*> seen;
  std::vector<std::shared_ptr<autograd::Node>> stack;
  for (const Tensor& out : outputs) {
    if (!out.defined() || !out.requires_grad()) continue;
    autograd::Edge e = autograd::gradient_edge(out);
    if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function);
  }
  while (!stack.empty()) {
    std::shared_ptr<autograd::Node> node = std::move(stack.back());
    stack.pop_back();
    if (auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node.get()))
      leaves.insert(acc->leaf().get());
    for (const autograd::Edge& e : node->next_functions())
      if (e.is_valid() && seen.insert(e.function.get()).second) stack.push_back(e.function);
  }
  return leaves;
}

std::string join_names(const std::vector<std::string>& names, const std::vector<size_t>& which,
                       const char* separator) {
  std::ostringstream os;
  for (size_t i = 0; i < which.size(); ++i) os << (i ? separator : "") << names[which[i]];
  return os.str();
}

}  // namespace

std::vector<std::vector<size_t>> compute_bucket_assignment_by_size(
    const std::vector<Tensor>& tensors, const std::vector<size_t>& tensor_order,
    const std::vector<size_t>& bucket_limits_bytes) {
  EMBER_CHECK(!bucket_limits_bytes.empty(), "compute_bucket_assignment_by_size",
              "needs at least one bucket size limit");
  struct Open {
    std::vector<size_t> indices;
    size_t bytes = 0;
    size_t limit = 0;  // index into bucket_limits_bytes
  };
  std::map<Dtype, Open> open;
  std::vector<std::vector<size_t>> result;
  for (size_t index : tensor_order) {
    EMBER_CHECK(index < tensors.size(), "compute_bucket_assignment_by_size", "tensor index ",
                index, " out of range for ", tensors.size(), " tensors");
    Open& bucket = open[tensors[index].dtype()];
    bucket.indices.push_back(index);
    bucket.bytes += bytes_of(tensors[index]);
    if (bucket.bytes >= bucket_limits_bytes[bucket.limit]) {
      result.push_back(std::move(bucket.indices));
      bucket.indices.clear();
      bucket.bytes = 0;
      bucket.limit = std::min(bucket.limit + 1, bucket_limits_bytes.size() - 1);
    }
  }
  for (auto& [dtype, bucket] : open)
    if (!bucket.indices.empty()) result.push_back(std::move(bucket.indices));
  // In the order their first tensor comes, so buckets fill in order when tensors are ready in
  // tensor_order.
  std::vector<size_t> position(tensors.size());
  for (size_t i = 0; i < tensor_order.size(); ++i) position[tensor_order[i]] = i;
  std::stable_sort(result.begin(), result.end(), [&](const auto& a, const auto& b) {
    return position[a.front()] < position[b.front()];
  });
  return result;
}

Reducer::Reducer(std::vector<Tensor> parameters, std::vector<std::string> names,
                 const DistributedDataParallelOptions& options)
    : params_(std::move(parameters)),
      names_(std::move(names)),
      options_(options),
      world_size_(dist::get_world_size(options.process_group)),
      rank_(dist::get_rank(options.process_group)) {
  // Reverse registration order until the first iteration shows the real one: backward
  // produces the last layers' gradients first.
  std::vector<size_t> order(params_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = order.size() - 1 - i;
  build_buckets(order);
  comm_hook_ = [group = options.process_group](GradBucket& bucket) {
    return dist::all_reduce(bucket.buffer,
                            {.op = dist::ReduceOp::AVG, .group = group, .async_op = true});
  };
  for (size_t i = 0; i < params_.size(); ++i)
    hooks_.push_back(params_[i].register_post_accumulate_grad_hook(
        [this, i](const Tensor&) { on_gradient_ready(i); }));
  reset_iteration();
}

// Where the reducer's bookkeeping collectives run: the group's device for the parameters'.
Device Reducer::collective_device() const {
  return dist::collective_device(options_.process_group, params_.front().device());
}

void Reducer::build_buckets(const std::vector<size_t>& order) {
  const auto cap = static_cast<size_t>(options_.bucket_cap_mb * 1024 * 1024);
  const auto assignment = compute_bucket_assignment_by_size(params_, order,
                                                            {kFirstBucketBytes, cap});
  buckets_.clear();
  locators_.assign(params_.size(), {});
  for (const auto& indices : assignment) {
    Bucket bucket;
    int64_t total = 0;
    for (size_t i : indices) total += params_[i].numel();
    // On the parameters' device, which the group's communicator takes (DDP checked).
    bucket.flat = zeros({total}, {.dtype = params_[indices.front()].dtype(),
                                  .device = collective_device()});
    int64_t offset = 0;
    for (size_t i : indices) {
      locators_[i] = {buckets_.size(), bucket.views.size()};
      bucket.views.push_back(
          bucket.flat.narrow(0, offset, params_[i].numel()).view(params_[i].sizes()));
      bucket.params.push_back(i);
      offset += params_[i].numel();
    }
    buckets_.push_back(std::move(bucket));
  }
}

// PyTorch's _rebuild_buckets, once, at the forward after the first reduced iteration: the
// buckets follow the order the gradients became ready in, rank 0's order for every rank (so all
// launch the same buckets in the same order). Gradients that are views of the old buckets stay
// valid; the next mark_ready copies them into the new views.
void Reducer::rebuild_buckets_once() {
  if (buckets_rebuilt_ || options_.find_unused_parameters ||
      ready_order_.size() != params_.size())
    return;
  buckets_rebuilt_ = true;
  Tensor order = from_vector(std::vector<int64_t>(ready_order_.begin(), ready_order_.end()))
                     .to(collective_device());
  dist::broadcast(order, 0, {.group = options_.process_group});
  std::vector<size_t> rank0_order;
  for (int64_t i : order.cpu().tolist<int64_t>()) rank0_order.push_back(static_cast<size_t>(i));
  build_buckets(rank0_order);
  ready_order_.clear();
}

Reducer::~Reducer() {
  for (HookHandle& h : hooks_) h.remove();
  // A reduction still in flight writes into our buckets: let it finish first.
  for (Bucket& b : buckets_) {
    try {
      b.work.wait();
    } catch (...) {
    }
  }
}

void Reducer::register_comm_hook(CommHook hook) {
  EMBER_CHECK(!comm_hook_registered_, "DistributedDataParallel.register_comm_hook",
              "register_comm_hook can only be called once");
  EMBER_CHECK(hook != nullptr, "DistributedDataParallel.register_comm_hook", "got an empty hook");
  comm_hook_ = std::move(hook);
  comm_hook_registered_ = true;
}

std::vector<std::vector<size_t>> Reducer::bucket_assignment() const {
  std::vector<std::vector<size_t>> out;
  for (const Bucket& b : buckets_) out.push_back(b.params);
  return out;
}

void Reducer::reset_iteration() {
  ready_.assign(params_.size(), false);
  locally_used_.assign(params_.size(), false);
  for (Bucket& b : buckets_) {
    b.pending = b.params.size();
    b.work = dist::Work();
  }
  next_bucket_ = 0;
  finalize_queued_ = false;
  require_finalize_ = false;
}

void Reducer::prepare_for_forward() {
  if (!require_finalize_) return rebuild_buckets_once();
  std::vector<size_t> missing;
  for (size_t i = 0; i < params_.size(); ++i)
    if (!ready_[i]) missing.push_back(i);
  wait_launched();
  reset_iteration();
  expect_hooks_ = false;
  fail("DistributedDataParallel",
       "rank ", rank_, ": Expected to have finished reduction in the prior iteration before "
       "starting a new one. The prior forward's backward did not run (or did not reach every "
       "parameter). Parameters which did not receive grad for rank ", rank_, ": ",
       join_names(names_, missing, ", "));
}

void Reducer::prepare_for_backward(const std::vector<Tensor>& outputs) {
  reset_iteration();
  expect_hooks_ = true;
  if (!options_.find_unused_parameters) return;
  const auto used = reachable_leaves(outputs);
  for (size_t i = 0; i < params_.size(); ++i)
    if (!used.count(params_[i].impl())) mark_ready(i);
}

void Reducer::on_gradient_ready(size_t index) {
  if (!expect_hooks_) return;
  if (!finalize_queued_) {
    autograd::queue_callback([this] { finalize_backward(); });
    finalize_queued_ = true;
  }
  locally_used_[index] = true;
  if (!buckets_rebuilt_ && !ready_[index]) ready_order_.push_back(index);
  mark_ready(index);
}

void Reducer::mark_ready(size_t index) {
  if (ready_[index]) {
    expect_hooks_ = false;
    fail("DistributedDataParallel", "rank ", rank_,
         ": Expected to mark a variable ready only once. Parameter '", names_[index],
         "' (index ", index, ") got its gradient twice in one iteration. This happens when a "
         "module parameter is used outside the forward function (with find_unused_parameters, "
         "forward found it unused), or in several reentrant backward passes of one iteration "
         "(activation checkpointing).");
  }
  ready_[index] = true;
  require_finalize_ = true;
  const Locator at = locators_[index];
  Bucket& bucket = buckets_[at.bucket];
  Tensor& view = bucket.views[at.slot];
  Tensor& grad = params_[index].mutable_grad();
  {
    NoGradGuard no_grad;
    if (grad.defined()) {
      if (!grad.is_same(view)) view.copy_(grad);
      if (options_.gradient_as_bucket_view) grad = view;
    } else {
      view.zero_();
    }
  }
  if (--bucket.pending == 0) launch_ready_buckets();
}

void Reducer::launch_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& b = buckets_[next_bucket_];
    GradBucket view{next_bucket_, b.flat, b.params, next_bucket_ + 1 == buckets_.size()};
    b.work = comm_hook_(view);
    ++next_bucket_;
  }
}

void Reducer::wait_launched() {
  for (size_t i = 0; i < next_bucket_; ++i) {
    try {
      buckets_[i].work.wait();
    } catch (...) {
    }
  }
}

void Reducer::fail_unused() const {
  std::vector<size_t> missing;
  for (size_t i = 0; i < params_.size(); ++i)
    if (!ready_[i]) missing.push_back(i);
  std::ostringstream indices;
  for (size_t i = 0; i < missing.size(); ++i) indices << (i ? " " : "") << missing[i];
  fail("DistributedDataParallel", "rank ", rank_,
       ": backward finished without a gradient for parameters whose buckets DDP waits for, so "
       "the gradients were not reduced. This error indicates that your module has parameters "
       "that were not used in producing loss. You can enable unused parameter detection by "
       "passing find_unused_parameters = true to nn::parallel::DistributedDataParallel, and by "
       "making sure all forward outputs participate in calculating loss.\n"
       "Parameters which did not receive grad for rank ", rank_, ": ",
       join_names(names_, missing, ", "), "\nParameter indices which did not receive grad for "
       "rank ", rank_, ": ", indices.str());
}

// PyTorch's warning, once: the flag costs a graph walk every iteration for nothing.
void Reducer::warn_if_nothing_unused(const std::vector<char>& used_anywhere) {
  if (warned_nothing_unused_) return;
  warned_nothing_unused_ = true;
  if (rank_ != 0 || std::find(used_anywhere.begin(), used_anywhere.end(), 0) != used_anywhere.end())
    return;
  std::cerr << "[DistributedDataParallel] warning: find_unused_parameters=true was specified in "
               "DDP constructor, but did not find any unused parameters in the forward pass. "
               "This flag results in an extra traversal of the autograd graph every iteration, "
               "which can adversely affect performance. If your model indeed never has any "
               "unused parameters in the forward pass, consider turning this flag off.\n";
}

void Reducer::finalize_backward() {
  expect_hooks_ = false;
  finalize_queued_ = false;
  if (next_bucket_ < buckets_.size()) {
    wait_launched();
    require_finalize_ = false;
    ready_order_.clear();
    fail_unused();
  }
  for (size_t i = 0; i < buckets_.size(); ++i) {
    try {
      buckets_[i].work.wait();
    } catch (const Error& e) {
      fail("DistributedDataParallel", "rank ", rank_, ": the gradient all_reduce of bucket ", i,
           " failed: ", e.what(),
           "\nWhen one rank runs out of batches before the others (uneven inputs), the others "
           "wait for it here: give every rank the same number of batches (a DistributedSampler "
           "pads every rank to the same count; drop_last = true drops a short last batch).");
    }
  }
  // With find_unused_parameters: which parameters some rank used (the others keep their grad).
  std::vector<char> used_anywhere(params_.size(), 1);
  if (options_.find_unused_parameters) {
    Tensor host = empty({int64_t(params_.size())}, {.dtype = kInt32});
    int32_t* used = host.data_ptr<int32_t>();
    for (size_t i = 0; i < params_.size(); ++i) used[i] = locally_used_[i];
    Tensor flags = host.to(collective_device());
    dist::all_reduce(flags, {.op = dist::ReduceOp::MAX, .group = options_.process_group});
    host = flags.cpu();
    used = host.data_ptr<int32_t>();
    for (size_t i = 0; i < params_.size(); ++i) used_anywhere[i] = used[i] != 0;
    warn_if_nothing_unused(used_anywhere);
  }
  NoGradGuard no_grad;
  for (Bucket& b : buckets_) {
    for (size_t slot = 0; slot < b.params.size(); ++slot) {
      const size_t i = b.params[slot];
      if (!used_anywhere[i]) continue;
      Tensor& grad = params_[i].mutable_grad();
      const Tensor& view = b.views[slot];
      if (options_.gradient_as_bucket_view)
        grad = view;
      else if (grad.defined())
        grad.copy_(view);
      else
        grad = view.clone();
    }
  }
  require_finalize_ = false;
}

}  // namespace ember::nn::parallel

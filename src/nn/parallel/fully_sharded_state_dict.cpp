// FullyShardedDataParallel's state in distributed checkpoints: the sharded state dict (each rank
// its dim-0 chunk of every parameter, gathered back on load when the sharding differs), and the
// optimizer's state, sharded or full (PyTorch 1.13's layouts).
#include <algorithm>
#include <any>
#include <cmath>
#include <functional>
#include <unordered_set>

#include "autograd/final_callbacks.h"
#include "distributed/device_communicator.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/nn/layers/attention.h"
#include "ember/nn/layers/container.h"
#include "ember/nn/parallel/fully_sharded.h"
#include "ember/tensor_impl.h"
#include "nn/parallel/flat_param.h"
#include "nn/parallel/fsdp_names.h"
#include "nn/parallel/fully_sharded_state.h"

namespace ember::nn {
using fsdp_detail::join_path;
using fsdp_detail::kFsdpOp;
using fsdp_detail::shape_text;

namespace {
// A rank's dim-0 chunk (dcp::shard_dim0's cut) back to the full tensor: every rank pads its chunk
// to the common chunk size and all-gathers.
Tensor gather_dim0(const dcp::ShardedTensor& sharded, const std::vector<int64_t>& shape,
                   const dist::ProcessGroup& group) {
  NoGradGuard no_grad;
  const int world = dist::get_world_size(group);
  const int64_t rows = shape[0];
  int64_t row_numel = 1;
  for (size_t d = 1; d < shape.size(); ++d) row_numel *= shape[d];
  const int64_t chunk = (rows + world - 1) / world * row_numel;
  // On the device the group's collectives take (the shard's, on an nccl group).
  const Device on = dist::collective_device(group, sharded.local.device());
  Tensor mine = zeros({chunk}, {.dtype = sharded.local.dtype(), .device = on});
  mine.narrow(0, 0, sharded.local.numel()).copy_(sharded.local.reshape({-1}));
  Tensor all = empty({chunk * world}, {.dtype = mine.dtype(), .device = on});
  dist::all_gather_into_tensor(all, mine, {.group = group});
  return all.narrow(0, 0, rows * row_numel).view(shape);
}

}  // namespace

dcp::State FullyShardedDataParallelImpl::sharded_state_dict() {
  const int rank = dist::get_rank(state_->options_.process_group);
  const int world = dist::get_world_size(state_->options_.process_group);
  dcp::State state;
  Dict buffers;
  const StateDict all = module_ptr_->state_dict();
  for (const auto& [name, b] : module_ptr_->named_buffers())
    if (all.contains(name))
      buffers.insert(name, b.detach().to(state_->original_dtype(name, b)).clone());
  for (auto& u : state_->units_) {
    const std::vector<Tensor> values = u->gather_values();
    for (size_t i = 0; i < values.size(); ++i) {
      const Tensor& full = values[i];
      if (full.dim() == 0) {
        buffers.insert(u->names()[i], full.clone());  // a 0-d parameter: replicated
        continue;
      }
      dcp::ShardedTensor chunk = dcp::shard_dim0(full, rank, world);
      chunk.local = chunk.local.clone();
      state.sharded.emplace_back(u->names()[i], std::move(chunk));
    }
  }
  for (const auto& [path, nested] : state_->nested_) {
    dcp::State inner = nested->sharded_state_dict();
    for (auto& [key, chunk] : inner.sharded)
      state.sharded.emplace_back(join_path(path, key), std::move(chunk));
    for (const auto& [key, value] : inner.tree.to_dict())
      buffers.insert(join_path(path, key.to_string()), value);
  }
  state.tree = buffers;
  return state;
}

void FullyShardedDataParallelImpl::load_sharded_state_dict(const dcp::State& state) {
  const Dict& tree = state.tree.to_dict();
  auto find_sharded = [&](const std::string& name) -> const dcp::ShardedTensor* {
    for (const auto& [key, chunk] : state.sharded)
      if (key == name) return &chunk;
    return nullptr;
  };
  StateDict full;
  for (auto& u : state_->units_)
    for (size_t i = 0; i < u->params().size(); ++i) {
      const std::string& name = u->names()[i];
      const std::vector<int64_t>& shape = u->shape(i);
      if (shape.empty()) {
        EMBER_CHECK(tree.contains(name), kFsdpOp, "load_sharded_state_dict: missing key '", name,
                    "'");
        full.insert(name, tree.at(name).to_tensor());
        continue;
      }
      const dcp::ShardedTensor* chunk = find_sharded(name);
      EMBER_CHECK(chunk != nullptr, kFsdpOp, "load_sharded_state_dict: missing key '", name, "'");
      EMBER_CHECK(chunk->global_sizes == shape, kFsdpOp,
                  "load_sharded_state_dict: size mismatch for ", name, ": the sharded tensor is ",
                  shape_text(chunk->global_sizes), ", the parameter ", shape_text(shape));
      full.insert(name, gather_dim0(*chunk, shape, state_->options_.process_group));
    }
  for (const auto& [name, b] : module_ptr_->named_buffers())
    if (tree.contains(name)) full.insert(name, tree.at(name).to_tensor());
  // The nested instances take their part the same way.
  for (const auto& [path, nested] : state_->nested_) {
    dcp::State inner;
    Dict inner_tree;
    for (const auto& [key, chunk] : state.sharded)
      if (key.rfind(path + ".", 0) == 0) inner.sharded.emplace_back(key.substr(path.size() + 1), chunk);
    for (const auto& [key, value] : tree) {
      const std::string k = key.to_string();
      if (k.rfind(path + ".", 0) == 0) inner_tree.insert(k.substr(path.size() + 1), value);
    }
    inner.tree = inner_tree;
    nested->load_sharded_state_dict(inner);
  }
  state_->load_own_state(full);
}

namespace {
std::string optim_key(const std::string& prefix, const std::string& param,
                      const std::string& state) {
  return "optim." + join_path(prefix, param) + "." + state;
}
}  // namespace

dcp::State FullyShardedDataParallelImpl::sharded_optim_state_dict(optim::Optimizer& optimizer) {
  const int rank = dist::get_rank(state_->options_.process_group);
  const int world = dist::get_world_size(state_->options_.process_group);
  std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>> all;
  state_->collect_named_units(all);
  dcp::State out;
  Dict tree;
  for (const auto& [prefix, u] : all) {
    const Dict& state = optimizer.state(u->shard());
    EMBER_CHECK(!state.empty() || !u->shard().requires_grad(), kFsdpOp,
                "sharded_optim_state_dict: the optimizer has no state for unit '",
                join_path(prefix, u->module_path()), "' yet (take a step first)");
    for (const auto& [k, v] : state) {
      const std::string key = k.to_string();
      if (v.is_tensor() && v.to_tensor().dim() == 1 && v.to_tensor().numel() == u->shard_numel()) {
        const std::vector<Tensor> values = u->gather_like_shard(v.to_tensor());
        for (size_t i = 0; i < values.size(); ++i) {
          dcp::ShardedTensor chunk = dcp::shard_dim0(values[i].dim() ? values[i]
                                                                     : values[i].reshape({1}),
                                                     rank, world);
          chunk.local = chunk.local.clone();
          out.sharded.emplace_back(optim_key(prefix, u->names()[i], key), std::move(chunk));
        }
      } else {
        for (const std::string& name : u->names())
          tree.insert(optim_key(prefix, name, key),
                      v.is_tensor() ? Value(v.to_tensor().clone()) : v);
      }
    }
  }
  out.tree = tree;
  return out;
}

void FullyShardedDataParallelImpl::load_sharded_optim_state_dict(optim::Optimizer& optimizer,
                                                                 const dcp::State& state) {
  const Dict& tree = state.tree.to_dict();
  std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>> all;
  state_->collect_named_units(all);
  for (const auto& [prefix, u] : all) {
    Dict& target = optimizer.state(u->shard());
    for (auto& [k, v] : target) {
      const std::string key = k.to_string();
      if (v.is_tensor() && v.to_tensor().dim() == 1 && v.to_tensor().numel() == u->shard_numel()) {
        std::vector<Tensor> values;
        for (size_t i = 0; i < u->params().size(); ++i) {
          const std::string name = optim_key(prefix, u->names()[i], key);
          const dcp::ShardedTensor* chunk = nullptr;
          for (const auto& [n, c] : state.sharded)
            if (n == name) chunk = &c;
          EMBER_CHECK(chunk != nullptr, kFsdpOp, "load_sharded_optim_state_dict: missing key '",
                      name, "'");
          std::vector<int64_t> shape = u->shape(i);
          if (shape.empty()) shape = {1};
          EMBER_CHECK(chunk->global_sizes == shape, kFsdpOp,
                      "load_sharded_optim_state_dict: size mismatch for ", name,
                      ": the sharded tensor is ", shape_text(chunk->global_sizes),
                      ", the parameter ", shape_text(shape));
          values.push_back(
              gather_dim0(*chunk, shape, state_->options_.process_group).view(u->shape(i)));
        }
        NoGradGuard no_grad;
        v.to_tensor().detach().copy_(u->shard_of(values));
      } else {
        const std::string name = optim_key(prefix, u->names()[0], key);
        EMBER_CHECK(tree.contains(name), kFsdpOp, "load_sharded_optim_state_dict: missing key '",
                    name, "'");
        const Value& saved = tree.at(name);
        if (v.is_tensor() && saved.is_tensor()) {
          NoGradGuard no_grad;
          v.to_tensor().detach().copy_(saved.to_tensor());
        } else {
          v = saved;
        }
      }
    }
  }
}

namespace {
bool is_shard_state(const Value& v, const fsdp_detail::FlatParamUnit& u) {
  return v.is_tensor() && v.to_tensor().dim() == 1 && v.to_tensor().numel() == u.shard_numel();
}
}  // namespace

Value FullyShardedDataParallelImpl::full_optim_state_dict(optim::Optimizer& optimizer,
                                                          bool rank0_only) {
  const bool keep = !rank0_only || dist::get_rank(state_->options_.process_group) == 0;
  std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>> all;
  state_->collect_named_units(all);
  Dict state;
  for (const auto& [prefix, u] : all) {
    std::vector<Dict> per_param(u->params().size());
    for (const auto& [k, v] : optimizer.state(u->shard())) {
      if (is_shard_state(v, *u)) {
        const std::vector<Tensor> values = u->gather_like_shard(v.to_tensor());
        for (size_t i = 0; i < values.size(); ++i) per_param[i].insert(k, values[i]);
      } else {
        for (Dict& d : per_param) d.insert(k, v.is_tensor() ? Value(v.to_tensor().clone()) : v);
      }
    }
    for (size_t i = 0; i < per_param.size(); ++i)
      if (!per_param[i].empty()) state.insert(join_path(prefix, u->names()[i]), per_param[i]);
  }
  if (!keep) return Value();
  // The groups list parameters by name (1.13's OptimStateKeyType.PARAM_NAME), every original
  // parameter of each flat one.
  const Value own = optimizer.state_dict();
  const List& own_groups = own.to_dict().at("param_groups").to_list();
  List groups;
  for (const auto& group : optimizer.param_groups()) {
    Dict g = own_groups[groups.size()].to_dict();
    List names;
    for (const Tensor& p : group.params())
      for (const auto& [prefix, u] : all)
        if (u->shard().impl() == p.impl())
          for (const std::string& n : u->names()) names.push_back(join_path(prefix, n));
    g.insert("params", names);
    groups.push_back(g);
  }
  return Dict{{"state", state}, {"param_groups", groups}};
}

void FullyShardedDataParallelImpl::load_full_optim_state_dict(optim::Optimizer& optimizer,
                                                              const Value& full) {
  const Dict& by_name = full.to_dict().at("state").to_dict();
  std::vector<std::pair<std::string, fsdp_detail::FlatParamUnit*>> all;
  state_->collect_named_units(all);
  // The optimizer's own layout: parameter index -> shard, to build its state_dict().
  Value own = optimizer.state_dict();
  Dict state;
  int64_t index = 0;
  for (const auto& group : optimizer.param_groups())
    for (const Tensor& p : group.params()) {
      const fsdp_detail::FlatParamUnit* unit = nullptr;
      std::string prefix;
      for (const auto& [pre, u] : all)
        if (u->shard().impl() == p.impl()) unit = u, prefix = pre;
      EMBER_CHECK(unit != nullptr, kFsdpOp,
                  "load_full_optim_state_dict: the optimizer's parameter ", index,
                  " is not one of this FSDP's flat parameters");
      const std::string first = join_path(prefix, unit->names()[0]);
      if (by_name.contains(first)) {
        Dict flat_state;
        for (const auto& [k, v] : by_name.at(first).to_dict()) {
          // Per-element states have the parameter's shape; the rest (step) is per parameter.
          const bool per_element =
              v.is_tensor() && !unit->shape(0).empty() &&
              std::vector<int64_t>(v.to_tensor().sizes().begin(), v.to_tensor().sizes().end()) ==
                  unit->shape(0);
          if (per_element) {
            std::vector<Tensor> values;
            for (const std::string& name : unit->names()) {
              const std::string key = join_path(prefix, name);
              EMBER_CHECK(by_name.contains(key) && by_name.at(key).to_dict().contains(k), kFsdpOp,
                          "load_full_optim_state_dict: missing state '", k.to_string(), "' of '",
                          key, "'");
              values.push_back(by_name.at(key).to_dict().at(k).to_tensor());
            }
            flat_state.insert(k, unit->shard_of(values));
          } else {
            flat_state.insert(k, v);
          }
        }
        state.insert(index, flat_state);
      }
      ++index;
    }
  // The groups' options from the dict, their parameters as this optimizer numbers them.
  const List& saved_groups = full.to_dict().at("param_groups").to_list();
  const List& own_groups = own.to_dict().at("param_groups").to_list();
  EMBER_CHECK(saved_groups.size() == own_groups.size(), kFsdpOp,
              "load_full_optim_state_dict: the dict has ", saved_groups.size(),
              " parameter groups, the optimizer ", own_groups.size());
  List groups;
  for (size_t g = 0; g < own_groups.size(); ++g) {
    Dict group = saved_groups[g].to_dict();
    group.insert("params", own_groups[g].to_dict().at("params"));
    groups.push_back(group);
  }
  optimizer.load_state_dict(Dict{{"state", state}, {"param_groups", groups}});
}

}  // namespace ember::nn

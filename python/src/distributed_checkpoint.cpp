// ember.distributed.checkpoint's C++ side (ember._C._dcp): a Python state dict as the C++ DCP's
// State — its nested dicts as a Value tree (serialize.cpp's conversion for the leaves) and its
// ShardedTensors as sharded entries under their dotted keys — and, after a load, the values the
// C++ side replaced written back into the Python dicts. Tensors are shared, never copied, so a
// load fills the program's own tensors in place.
#include "common.h"
#include "ember/distributed/checkpoint.h"

namespace ember::python {
namespace {

// ember.distributed.checkpoint.ShardedTensor, looked up once and kept for the process's life.
py::handle sharded_tensor_type() {
  static PyObject* type =
      py::object(
          py::module_::import("ember.distributed.checkpoint.sharded_tensor").attr("ShardedTensor"))
          .release()
          .ptr();
  return type;
}

// A key as the C++ side names items: strings as they are, ints in decimal. Only those two can
// be part of a dotted key (PyTorch's flattening has the same rule).
std::string key_text(py::handle key, const std::string& where) {
  if (PyUnicode_Check(key.ptr())) return key.cast<std::string>();
  if (PyLong_Check(key.ptr()) && !PyBool_Check(key.ptr()))
    return std::to_string(to_int(key, "dcp", "key"));
  throw py::type_error("dcp: state dict key " + py::repr(key).cast<std::string>() + " under '" +
                       where + "' is a " + Py_TYPE(key.ptr())->tp_name +
                       "; only str and int keys can name checkpoint items");
}

// The tree of `dict` with its ShardedTensors moved to state.sharded. A dict that held only
// ShardedTensors is left out of the tree (it would otherwise be saved as an empty value); a dict
// that was empty stays (a fresh optimizer's "state", which load fills).
Dict tree_of(py::handle dict, const std::string& prefix, dcp::State& state, int depth) {
  if (depth > 200) throw py::value_error("dcp: the state dict is nested more than 200 levels deep");
  Dict out;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(dict)) {
    const std::string name = (prefix.empty() ? "" : prefix + ".") + key_text(k, prefix);
    if (py::isinstance(v, sharded_tensor_type())) {
      py::object local = v.attr("local_tensor")();
      if (!is_tensor(local)) type_error("dcp", "a ShardedTensor with a tensor block", local);
      state.sharded.push_back({name,
                               {unwrap(local), v.attr("offsets").cast<std::vector<int64_t>>(),
                                v.attr("global_size").cast<std::vector<int64_t>>()}});
    } else if (is_tensor(v) && py::hasattr(v, "_dcp_shard")) {
      // A block of a flat tensor (sharded_tensor.py's protocol: FSDP's flat-parameter shards and
      // the optimizer states of their size): saved and loaded as that rank's part.
      const auto [offset, numel] = v.attr("_dcp_shard").cast<std::pair<int64_t, int64_t>>();
      const Tensor local = unwrap(v);
      if (local.dim() != 1 || offset < 0 || offset + local.numel() > numel)
        throw py::value_error("dcp: '" + name + "' is marked as elements [" +
                              std::to_string(offset) + ", " +
                              std::to_string(offset + local.numel()) + ") of a flat tensor of " +
                              std::to_string(numel) + " but has shape " +
                              py::repr(v.attr("shape")).cast<std::string>());
      state.sharded.push_back({name, {local, {offset}, {numel}}});
    } else if (PyDict_Check(v.ptr())) {
      Dict child = tree_of(v, name, state, depth + 1);
      if (child.empty() && PyDict_Size(v.ptr()) > 0) continue;
      out.insert(to_value(k), Value(std::move(child)));
    } else {
      out.insert(to_value(k), to_value(v, depth + 1));
    }
  }
  return out;
}

dcp::State state_of(py::handle state_dict) {
  if (!PyDict_Check(state_dict.ptr())) type_error("dcp", "a dict as the state_dict", state_dict);
  dcp::State state;
  state.tree = tree_of(state_dict, "", state, 0);
  return state;
}

// Puts what load() replaced or added in `tree` back into the Python dict it came from. Tensors
// the C++ side filled in place (the same tensor on both sides) and ShardedTensors (not in the
// tree) are left as they are.
void write_back(py::handle dict, const Dict& tree) {
  for (const auto& [k, v] : tree) {
    py::object key = from_value(k);
    PyObject* current = PyDict_GetItemWithError(dict.ptr(), key.ptr());  // borrowed
    if (!current && PyErr_Occurred()) throw py::error_already_set();
    if (current) {
      py::handle cur(current);
      if (v.is_tensor() && is_tensor(cur) && unwrap(cur).is_same(v.to_tensor())) continue;
      if (v.is_dict() && PyDict_Check(current)) {
        write_back(cur, v.to_dict());
        continue;
      }
    }
    py::reinterpret_borrow<py::dict>(dict)[key] = from_value(v);
  }
}

dist::ProcessGroup group_of(py::handle g) {
  return g.is_none() ? dist::ProcessGroup() : g.cast<dist::ProcessGroup>();
}

}  // namespace

void bind_distributed_checkpoint(py::module_& parent) {
  py::module_ m = parent.def_submodule("_dcp", "distributed checkpoints (the C++ side's DCP)");
  m.def(
      "save",
      [](py::handle state_dict, const std::string& path, py::handle group, int coordinator_rank,
         bool no_dist, bool sync) {
        const dcp::State state = state_of(state_dict);
        const dcp::SaveOptions options{.group = group_of(group),
                                       .coordinator_rank = coordinator_rank,
                                       .sync = sync,
                                       .no_dist = no_dist};
        py::gil_scoped_release release;  // the ranks wait for each other
        dcp::save(state, path, options);
      },
      py::arg("state_dict"), py::arg("path"), py::arg("group"), py::arg("coordinator_rank"),
      py::arg("no_dist"), py::arg("sync"));
  m.def(
      "load",
      [](py::handle state_dict, const std::string& path, py::handle group, int coordinator_rank,
         bool no_dist) {
        dcp::State state = state_of(state_dict);
        const dcp::LoadOptions options{
            .group = group_of(group), .coordinator_rank = coordinator_rank, .no_dist = no_dist};
        {
          py::gil_scoped_release release;
          dcp::load(state, path, options);
        }
        write_back(state_dict, state.tree.to_dict());
      },
      py::arg("state_dict"), py::arg("path"), py::arg("group"), py::arg("coordinator_rank"),
      py::arg("no_dist"));
}

}  // namespace ember::python

// torch.distributed's C++ side for ember.distributed (ember._C._distributed): process groups
// (gloo on CPU) from torchrun's environment, every collective with async_op, and Work handles.
// Every blocking call releases the GIL: a rank waiting for its peers must not stop its own
// Python threads (a DataLoader's, a watchdog's).
#include <chrono>

#include "common.h"
#include "distributed/launch_environment.h"
#include "ember/distributed/process_group.h"

namespace ember::python {
namespace {

namespace D = dist;

D::CollectiveOptions collective(int op, py::handle group, bool async_op) {
  D::CollectiveOptions o;
  o.op = D::ReduceOp(op);
  if (!group.is_none()) o.group = group.cast<D::ProcessGroup>();
  o.async_op = async_op;
  return o;
}

D::ProcessGroup group_of(py::handle g) {
  return g.is_none() ? D::ProcessGroup() : g.cast<D::ProcessGroup>();
}

// Runs a collective (pure C++) without the GIL and returns what torch.distributed does: the Work
// when async_op, else None.
template <class Call>
py::object run(bool async_op, Call call) {
  D::Work w;
  {
    py::gil_scoped_release release;
    w = call();
  }
  if (async_op) return py::cast(w);
  return py::none();
}

}  // namespace

void bind_distributed(py::module_& parent) {
  py::module_ m = parent.def_submodule("_distributed", "process groups and collectives");
  py::class_<D::Work>(m, "Work")
      .def(
          "wait",
          [](const D::Work& w, py::handle) {
            py::gil_scoped_release release;
            w.wait();
            return true;
          },
          py::arg("timeout") = py::none())
      .def("is_completed", &D::Work::is_completed)
      .def("is_success", &D::Work::is_success);
  py::class_<D::ProcessGroup>(m, "ProcessGroup")
      .def("rank", &D::ProcessGroup::rank)
      .def("size", &D::ProcessGroup::size)
      .def("ranks", &D::ProcessGroup::ranks)
      .def("backend", &D::ProcessGroup::backend)
      .def("__repr__", [](const D::ProcessGroup& g) {
        return "<ProcessGroup " + g.backend() + " rank " + std::to_string(g.rank()) + " of " +
               std::to_string(g.size()) + ">";
      });
  m.def("init_process_group", [](const std::string& backend, const std::string& init_method,
                                 double timeout_seconds, int world_size, int rank) {
    D::InitOptions o;
    o.backend = backend;
    o.init_method = init_method;
    o.timeout = std::chrono::milliseconds(int64_t(timeout_seconds * 1000));
    o.world_size = world_size;
    o.rank = rank;
    py::gil_scoped_release release;
    D::init_process_group(o);
  });
  // Where srun, mpirun or torchrun placed this process (src/distributed/launch_environment.cpp).
  m.def("launch_place", [] {
    const D::detail::LaunchPlace p = D::detail::launch_place();
    py::dict d;
    d["rank"] = p.rank;
    d["world_size"] = p.world_size;
    d["local_rank"] = p.local_rank;
    d["master_addr"] = p.master_addr;
    d["master_port"] = p.master_port;
    d["source"] = p.source;
    return d;
  });
  m.def("is_initialized", &D::is_initialized);
  m.def("destroy_process_group", [] {
    py::gil_scoped_release release;
    D::destroy_process_group();
  });
  m.def(
      "get_rank", [](py::handle g) { return D::get_rank(group_of(g)); },
      py::arg("group") = py::none());
  m.def(
      "get_world_size", [](py::handle g) { return D::get_world_size(group_of(g)); },
      py::arg("group") = py::none());
  m.def(
      "new_group",
      [](std::vector<int> ranks, double timeout_seconds) {
        py::gil_scoped_release release;
        return D::new_group(ranks, std::chrono::milliseconds(int64_t(timeout_seconds * 1000)));
      },
      py::arg("ranks"), py::arg("timeout_seconds") = 0.0);

  // The collectives: (tensors..., op, group, async_op) as torch.distributed orders them.
  m.def("all_reduce", [](const Tensor& t, int op, py::handle g, bool async_op) {
    Tensor x = t;
    D::CollectiveOptions o = collective(op, g, async_op);
    return run(async_op, [&] { return D::all_reduce(x, o); });
  });
  m.def("broadcast", [](const Tensor& t, int src, py::handle g, bool async_op) {
    Tensor x = t;
    D::CollectiveOptions o = collective(0, g, async_op);
    return run(async_op, [&] { return D::broadcast(x, src, o); });
  });
  m.def("reduce", [](const Tensor& t, int dst, int op, py::handle g, bool async_op) {
    Tensor x = t;
    D::CollectiveOptions o = collective(op, g, async_op);
    return run(async_op, [&] { return D::reduce(x, dst, o); });
  });
  m.def("all_gather", [](py::handle outputs, const Tensor& input, py::handle g, bool async_op) {
    std::vector<Tensor> outs = to_tensor_list(outputs, "all_gather", "tensor_list");
    D::CollectiveOptions o = collective(0, g, async_op);
    return run(async_op, [&] { return D::all_gather(outs, input, o); });
  });
  m.def("all_gather_into_tensor",
        [](const Tensor& output, const Tensor& input, py::handle g, bool async_op) {
          Tensor out = output;
          D::CollectiveOptions o = collective(0, g, async_op);
          return run(async_op, [&] { return D::all_gather_into_tensor(out, input, o); });
        });
  m.def("reduce_scatter",
        [](const Tensor& output, py::handle inputs, int op, py::handle g, bool async_op) {
          Tensor out = output;
          std::vector<Tensor> ins = to_tensor_list(inputs, "reduce_scatter", "input_list");
          D::CollectiveOptions o = collective(op, g, async_op);
          return run(async_op, [&] { return D::reduce_scatter(out, ins, o); });
        });
  m.def("reduce_scatter_tensor",
        [](const Tensor& output, const Tensor& input, int op, py::handle g, bool async_op) {
          Tensor out = output;
          D::CollectiveOptions o = collective(op, g, async_op);
          return run(async_op, [&] { return D::reduce_scatter_tensor(out, input, o); });
        });
  m.def("barrier", [](py::handle g, bool async_op) {
    D::CollectiveOptions o = collective(0, g, async_op);
    return run(async_op, [&] { return D::barrier(o); });
  });
  m.def("send", [](const Tensor& t, int dst, py::handle g, int tag) {
    D::ProcessGroup pg = group_of(g);
    py::gil_scoped_release release;
    D::send(t, dst, pg, tag);
  });
  m.def("recv", [](const Tensor& t, int src, py::handle g, int tag) {
    Tensor x = t;
    D::ProcessGroup pg = group_of(g);
    py::gil_scoped_release release;
    D::recv(x, src, pg, tag);
    return src;
  });
}

}  // namespace ember::python

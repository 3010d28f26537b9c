// The optimizers' C++ side for ember.optim (ember._C._optim): a C++ optimizer (its fused update
// kernels, its state and PyTorch-layout state dicts) behind each Python Optimizer, whose
// param_groups stay Python dicts that a program may edit; python/ember/optim/optimizer.py pushes
// their options here before every step.
#include <memory>

#include "common.h"

namespace ember::python {
namespace {

// Groups from Python: [(params, options dict), ...]; each C++ group's options become the dict's
// (PyTorch's full set of keys, defaults resolved by the Python side as PyTorch does).
template <class T, class O>
std::unique_ptr<optim::Optimizer> make(
    const std::vector<std::pair<std::vector<Tensor>, Dict>>& groups, const Dict& defaults) {
  std::vector<typename T::Group> gs;
  for (const auto& [params, options] : groups) {
    O o;
    o.lr = options.at(Value("lr")).to_double();
    gs.push_back({params, o});
  }
  O d;
  d.lr = groups.front().second.at(Value("lr")).to_double();
  // Adagrad fills its state at construction from the constructor's value, as PyTorch 1.13.
  if constexpr (requires { d.initial_accumulator_value; })
    if (defaults.contains(Value("initial_accumulator_value")))
      d.initial_accumulator_value = defaults.at(Value("initial_accumulator_value")).to_double();
  auto opt = std::make_unique<T>(std::move(gs), d);
  for (size_t i = 0; i < groups.size(); ++i) opt->param_groups()[i].options() = groups[i].second;
  return opt;
}

using Maker = std::unique_ptr<optim::Optimizer> (*)(
    const std::vector<std::pair<std::vector<Tensor>, Dict>>&, const Dict&);

Maker maker(const std::string& name) {
  if (name == "SGD") return make<optim::SGD, optim::SGDOptions>;
  if (name == "Adam") return make<optim::Adam, optim::AdamOptions>;
  if (name == "AdamW") return make<optim::AdamW, optim::AdamWOptions>;
  if (name == "Adamax") return make<optim::Adamax, optim::AdamaxOptions>;
  if (name == "NAdam") return make<optim::NAdam, optim::NAdamOptions>;
  if (name == "RAdam") return make<optim::RAdam, optim::RAdamOptions>;
  if (name == "RMSprop") return make<optim::RMSprop, optim::RMSpropOptions>;
  if (name == "Adagrad") return make<optim::Adagrad, optim::AdagradOptions>;
  if (name == "LBFGS") return make<optim::LBFGS, optim::LBFGSOptions>;
  throw std::runtime_error("optim: ember has no optimizer '" + name + "'");
}

// A Python group dict without its "params", as the C++ options.
Dict options_of(py::handle group) {
  Dict d;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(group)) {
    if (k.cast<std::string>() == "params") continue;
    d.insert(to_value(k), to_value(v));
  }
  return d;
}

std::vector<std::pair<std::vector<Tensor>, Dict>> groups_of(py::handle groups) {
  std::vector<std::pair<std::vector<Tensor>, Dict>> out;
  for (py::handle g : py::reinterpret_borrow<py::sequence>(groups))
    out.emplace_back(to_tensor_list(g["params"], "optimizer", "params"), options_of(g));
  return out;
}

}  // namespace

void bind_optim(py::module_& parent) {
  py::module_ m = parent.def_submodule("_optim", "the C++ optimizers behind ember.optim");
  py::class_<optim::Optimizer>(m, "Optimizer")
      .def(py::init([](const std::string& name, py::handle groups, py::handle defaults) {
        return maker(name)(groups_of(groups), to_value(defaults).to_dict());
      }))
      .def("add_param_group",
           [](optim::Optimizer&, py::handle) {
             throw std::runtime_error("add_param_group goes through ember.optim.Optimizer");
           })
      // Pushes the Python groups' options (they may have been edited: g['lr'] = ...).
      .def("sync",
           [](optim::Optimizer& o, py::handle groups) {
             py::sequence gs = py::reinterpret_borrow<py::sequence>(groups);
             if (size_t(py::len(gs)) != o.param_groups().size())
               throw std::runtime_error(
                   "optimizer: param_groups changed length outside add_param_group");
             for (size_t i = 0; i < o.param_groups().size(); ++i) {
               Dict& options = o.param_groups()[i].options();
               for (const auto& [k, v] : options_of(gs[i])) options.insert(k, v);
             }
           })
      .def("step",
           [](optim::Optimizer& o) {
             py::gil_scoped_release release;
             o.step();
           })
      // LBFGS's step: the closure is Python, so the GIL stays held while C++ calls it.
      .def("step_closure",
           [](optim::Optimizer& o, py::function closure) {
             return o.step([&closure] { return closure().cast<Tensor>(); });
           })
      .def(
          "zero_grad",
          [](optim::Optimizer& o, bool set_to_none) { o.zero_grad({.set_to_none = set_to_none}); },
          py::arg("set_to_none") = false)
      .def("state_dict", [](const optim::Optimizer& o) { return from_value(o.state_dict()); })
      .def("load_state_dict",
           [](optim::Optimizer& o, py::handle sd) { o.load_state_dict(to_value(sd)); })
      .def("group_options",
           [](optim::Optimizer& o, size_t i) {
             if (i >= o.param_groups().size())
               throw py::index_error("param group index out of range");
             return from_value(Value(o.param_groups()[i].options()));
           })
      .def("state",
           [](optim::Optimizer& o, const Tensor& p) { return from_value(Value(o.state(p))); });
}

}  // namespace ember::python

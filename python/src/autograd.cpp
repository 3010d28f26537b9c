// Autograd from Python: Tensor's autograd attributes (requires_grad, grad, grad_fn, is_leaf,
// hooks, backward), grad modes, torch.autograd.grad/backward, grad_fn nodes as Python objects
// whose type is named after the node (type(c.grad_fn).__name__ == "PowBackward0"), and custom
// autograd.Function subclasses whose Python backward the C++ engine calls.
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "autograd/accumulate_grad.h"
#include "autograd/function.h"
#include "common.h"
#include "core/tensor_impl_mutators.h"

namespace ember::python {
namespace {

// ── grad_fn objects ──
// One Python type per node name, made on first sight: a subclass of ember.autograd.graph.Node
// with __slots__ = () so that an instance's __class__ can be set to it.
py::object node_type(const std::string& name) {
  static std::unordered_map<std::string, PyObject*> types;
  auto it = types.find(name);
  if (it != types.end()) return py::reinterpret_borrow<py::object>(it->second);
  py::object base = py::module_::import("ember._C").attr("_Node");
  py::dict ns;
  ns["__slots__"] = py::tuple();
  ns["__module__"] = "ember.autograd.graph";
  py::object t = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyType_Type))(
      name, py::make_tuple(base), ns);
  types.emplace(name, t.inc_ref().ptr());
  return t;
}

py::object node_object(const std::shared_ptr<autograd::Node>& node) {
  if (!node) return py::none();
  py::object o = py::cast(node);
  py::object type = node_type(node->name());
  if (!o.get_type().is(type)) o.attr("__class__") = type;
  return o;
}

std::vector<Tensor> tensors_or_empty(py::handle h, const char* op, const char* arg) {
  if (h.is_none()) return {};
  if (is_tensor(h)) return {unwrap(h)};
  std::vector<Tensor> out;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(h))
    out.push_back(item.is_none() ? Tensor() : to_tensor(item, op, arg));
  return out;
}

// ── custom Functions ──
const char* intern_name(const std::string& s) {
  static std::mutex mu;
  static std::unordered_set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return names.insert(s).first->c_str();
}

// One forward output as backward sees it: its gradient comes from the node (`slot` >= 0),
// is zeros of its shape (a non-differentiable tensor, or an undefined gradient when ctx
// materializes them), or None (not a tensor).
struct OutputMeta {
  int slot = -1;  // index among the node's outputs, -1 for none
  bool is_tensor = false;
  DimVector sizes;
  Dtype dtype = kFloat32;
  Device device;
};

// Function.apply(*args): forward under no_grad, then one node named "<Class>Backward" whose
// backward calls cls.backward(ctx, *grads) with the GIL.
py::object function_apply(py::object cls, py::object ctx, py::args args) {
  std::vector<Tensor> inputs;
  std::vector<int> input_position;  // which argument each tensor input is
  py::list needs;
  const bool grad_mode = is_grad_enabled();
  for (size_t i = 0; i < args.size(); ++i) {
    if (is_tensor(args[i])) {
      Tensor t = unwrap(args[i]);
      inputs.push_back(t);
      input_position.push_back(int(i));
      needs.append(py::bool_(grad_mode && t.requires_grad()));
    } else {
      needs.append(py::bool_(false));
    }
  }
  ctx.attr("needs_input_grad") = py::tuple(needs);
  std::string name = cls.attr("__name__").cast<std::string>() + "Backward";
  const char* node_name = intern_name(name);
  autograd::Recorder rec(node_name, inputs);
  py::object result;
  {
    NoGradGuard no_grad;
    py::tuple call_args(args.size() + 1);
    call_args[0] = ctx;
    for (size_t i = 0; i < args.size(); ++i) call_args[i + 1] = args[i];
    result = cls.attr("forward")(*call_args);
  }
  const bool is_tuple = PyTuple_Check(result.ptr());
  py::tuple outs = is_tuple ? py::reinterpret_borrow<py::tuple>(result) : py::make_tuple(result);
  auto in_list = [](py::handle list, const Tensor& t) {
    if (list.is_none()) return false;
    for (py::handle h : py::reinterpret_borrow<py::sequence>(list))
      if (is_tensor(h) && unwrap(h).is_same(t)) return true;
    return false;
  };
  py::object dirty = py::getattr(ctx, "_dirty", py::none());
  py::object non_diff = py::getattr(ctx, "_non_differentiable", py::none());
  std::vector<Tensor> outputs;
  std::vector<OutputMeta> metas;
  py::list final_outs;
  for (py::handle o : outs) {
    if (!is_tensor(o)) {
      final_outs.append(o);
      metas.push_back({});
      continue;
    }
    Tensor t = unwrap(o);
    const bool differentiable = !in_list(non_diff, t);
    bool is_input = false;
    for (const Tensor& in : inputs) is_input |= in.is_same(t);
    // An input returned as is becomes a new alias (its own history), unless marked dirty.
    if (is_input && !in_list(dirty, t)) t = t.alias();
    metas.push_back({differentiable ? int(outputs.size()) : -1, true, DimVector(t.sizes()),
                     t.dtype(), t.device()});
    if (differentiable) outputs.push_back(t);
    final_outs.append(wrap(t));
  }
  if (rec) {
    bool materialize = py::getattr(ctx, "materialize_grads", py::bool_(true)).cast<bool>();
    GilObject pycls(cls), pyctx(ctx);
    size_t nargs = args.size();
    auto backward = [pycls, pyctx, metas, input_position, nargs, materialize, name](
                        const autograd::Grads& grads, const autograd::Saved& saved) {
      py::gil_scoped_acquire gil;
      py::tuple saved_py(saved.size());
      for (size_t i = 0; i < saved.size(); ++i) saved_py[i] = wrap(saved[i]);
      pyctx.get().attr("_saved") = saved_py;
      py::tuple call_args(metas.size() + 1);
      call_args[0] = pyctx.get();
      for (size_t i = 0; i < metas.size(); ++i) {
        const OutputMeta& m = metas[i];
        Tensor g = m.slot >= 0 ? grads[size_t(m.slot)] : Tensor();
        if (!g.defined() && materialize && m.is_tensor)
          g = zeros(m.sizes, {.dtype = m.dtype, .device = m.device});
        call_args[i + 1] = wrap(g);
      }
      py::object r = pycls.get().attr("backward")(*call_args);
      py::tuple rs =
          PyTuple_Check(r.ptr()) ? py::reinterpret_borrow<py::tuple>(r) : py::make_tuple(r);
      if (rs.size() < nargs || (rs.size() > nargs))
        throw std::runtime_error(
            "function " + name + " returned an incorrect number of gradients (expected " +
            std::to_string(nargs) + ", got " + std::to_string(rs.size()) + ")");
      autograd::TensorList out;
      for (int pos : input_position) {
        py::handle g = rs[size_t(pos)];
        out.push_back(g.is_none() ? Tensor() : to_tensor(g, "backward", "gradient"));
      }
      return out;
    };
    auto node = rec.record(node_name, outputs, {}, backward);
    // What ctx.save_for_backward kept: outputs of this node without their grad_fn (a cycle).
    py::object to_save = py::getattr(ctx, "to_save", py::none());
    if (!to_save.is_none()) {
      for (py::handle h : py::reinterpret_borrow<py::sequence>(to_save)) {
        if (h.is_none()) {
          node->saved.emplace_back();
          continue;
        }
        Tensor t = to_tensor(h, "save_for_backward", "tensors");
        bool is_output = false;
        for (const Tensor& o : outputs) is_output |= o.is_same(t);
        node->saved.emplace_back(t, is_output);
      }
      ctx.attr("to_save") = py::none();  // the node owns them now (no cycle through ctx)
    }
  } else {
    // Not recorded: saved_tensors still reads what was saved (e.g. a forward under no_grad).
    py::object to_save = py::getattr(ctx, "to_save", py::none());
    if (!to_save.is_none()) ctx.attr("_saved") = py::tuple(to_save);
  }
  if (is_tuple) return py::tuple(final_outs);
  return final_outs[0];
}

class InferenceModeScope {
 public:
  explicit InferenceModeScope(bool enabled) : enabled_(enabled) {}
  void enter() { guard_ = std::make_unique<InferenceMode>(enabled_); }
  void exit() { guard_.reset(); }

 private:
  bool enabled_;
  std::unique_ptr<InferenceMode> guard_;
};

}  // namespace

void bind_autograd(py::module_& m, py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls) {
  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "_Node", py::dynamic_attr())
      .def("name", &autograd::Node::name)
      .def_property_readonly("next_functions",
                             [](const autograd::Node& n) {
                               py::list out;
                               for (const autograd::Edge& e : n.next_functions())
                                 out.append(py::make_tuple(node_object(e.function), e.input_nr));
                               return py::tuple(out);
                             })
      // AccumulateGrad's leaf, as PyTorch's: what DDP's unused-parameter search looks for.
      .def_property_readonly(
          "variable",
          [](const autograd::Node& n) -> py::object {
            auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
            if (!acc)
              throw py::attribute_error("'" + n.name() + "' object has no attribute 'variable'");
            return py::cast(acc->leaf());
          })
      .def("__repr__",
           [](const autograd::Node& n) {
             std::ostringstream os;
             os << "<" << n.name() << " object at 0x" << std::hex << reinterpret_cast<uintptr_t>(&n)
                << ">";
             return os.str();
           })
      .def("register_hook", [](autograd::Node&, py::object) {
        throw std::runtime_error(
            "grad_fn.register_hook is not in ember: register the hook on the "
            "tensor (Tensor.register_hook)");
      });

  cls.def_property(
      "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
      [](const Tensor& t, bool v) { t.requires_grad_(v); });
  cls.def_property(
      "grad", [](const Tensor& t) { return t.grad(); },
      [](const Tensor& t, py::handle g) {
        if (g.is_none()) {
          t.mutable_grad() = Tensor();
          return;
        }
        Tensor grad = to_tensor(g, "grad", "value");
        if (!std::equal(grad.sizes().begin(), grad.sizes().end(), t.sizes().begin(),
                        t.sizes().end()))
          throw std::runtime_error("assigned grad has data of a different size");
        if (grad.dtype() != t.dtype())
          throw std::runtime_error("assigned grad has data of a different type");
        t.mutable_grad() = grad;
      });
  cls.def_property_readonly("grad_fn", [](const Tensor& t) { return node_object(t.grad_fn()); });
  cls.def_property_readonly("is_leaf", [](const Tensor& t) { return t.is_leaf(); });
  cls.def_property_readonly("retains_grad", [](const Tensor& t) { return t.retains_grad(); });
  cls.def_property_readonly("output_nr", [](const Tensor& t) { return t.output_nr(); });
  cls.def("is_inference", [](const Tensor& t) { return t.is_inference(); });
  cls.def_property(
      "data", [](const Tensor& t) { return t.detach(); },
      [](const Tensor& t, const Tensor& d) { TensorImplMutators::set_data(*t.impl(), *d.impl()); });
  cls.def(
      "requires_grad_", [](const Tensor& t, bool v) { return t.requires_grad_(v); },
      py::arg("requires_grad") = true);
  cls.def("retain_grad", [](const Tensor& t) { t.retain_grad(); });
  cls.def("detach", [](const Tensor& t) { return t.detach(); });
  m.def(
      "detach", [](const Tensor& t) { return t.detach(); }, py::arg("input"));
  cls.def("detach_", [](const Tensor& t) { return t.detach_(); });
  cls.def(
      "backward",
      [](const Tensor& t, py::handle gradient, std::optional<bool> retain_graph, bool create_graph,
         py::handle inputs) {
        if (!inputs.is_none())
          throw std::runtime_error("backward(inputs=...) is not in ember: use ember.autograd.grad");
        BackwardOptions o{
            .gradient = gradient.is_none() ? Tensor() : to_tensor(gradient, "backward", "gradient"),
            .retain_graph = retain_graph,
            .create_graph = create_graph};
        py::gil_scoped_release release;
        t.backward(o);
      },
      py::arg("gradient") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false, py::kw_only(), py::arg("inputs") = py::none());
  cls.def(
      "register_hook",
      [](const Tensor& t, py::object fn) {
        GilObject hook(fn);
        HookHandle h = t.register_hook([hook](const Tensor& g) -> Tensor {
          py::gil_scoped_acquire gil;
          py::object r = hook.get()(wrap(g));
          if (r.is_none()) return Tensor();
          return to_tensor(r, "register_hook", "hook result");
        });
        return py::module_::import("ember.utils.hooks")
            .attr("RemovableHandle")(py::cpp_function([h]() mutable { h.remove(); }));
      },
      py::arg("hook"));

  cls.def(
      "register_post_accumulate_grad_hook",
      [](const Tensor& t, py::object fn) {
        if (!t.is_leaf())
          throw std::runtime_error(
              "post accumulate grad hooks cannot be registered on non-leaf tensors");
        GilObject hook(fn);
        HookHandle h = t.register_post_accumulate_grad_hook([hook](const Tensor& leaf) {
          py::gil_scoped_acquire gil;
          hook.get()(wrap(leaf));
        });
        return py::module_::import("ember.utils.hooks")
            .attr("RemovableHandle")(py::cpp_function([h]() mutable { h.remove(); }));
      },
      py::arg("hook"));

  m.def("_backward", [](py::handle tensors, py::handle grads, std::optional<bool> retain_graph,
                        bool create_graph) {
    std::vector<Tensor> ts = tensors_or_empty(tensors, "backward", "tensors");
    std::vector<Tensor> gs = tensors_or_empty(grads, "backward", "grad_tensors");
    py::gil_scoped_release release;
    autograd::backward(ts, gs, retain_graph, create_graph);
  });
  m.def("_grad", [](py::handle outputs, py::handle inputs, py::handle grad_outputs,
                    std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    autograd::GradOptions o{.grad_outputs = tensors_or_empty(grad_outputs, "grad", "grad_outputs"),
                            .retain_graph = retain_graph,
                            .create_graph = create_graph,
                            .allow_unused = allow_unused};
    std::vector<Tensor> outs = tensors_or_empty(outputs, "grad", "outputs");
    std::vector<Tensor> ins = tensors_or_empty(inputs, "grad", "inputs");
    std::vector<Tensor> r;
    {
      py::gil_scoped_release release;
      r = autograd::grad(outs, ins, o);
    }
    py::tuple out(r.size());
    for (size_t i = 0; i < r.size(); ++i) out[i] = wrap(r[i]);
    return out;
  });
  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled);
  m.def("is_inference_mode_enabled", &is_inference_mode_enabled);
  m.def("set_detect_anomaly", &autograd::set_detect_anomaly);
  m.def("is_anomaly_enabled", &autograd::is_anomaly_enabled);
  py::class_<InferenceModeScope>(m, "_InferenceModeScope")
      .def(py::init<bool>())
      .def("__enter__", &InferenceModeScope::enter)
      .def("__exit__", [](InferenceModeScope& s, py::args) { s.exit(); });
  m.def("_function_apply", &function_apply);
  // gradcheck / gradgradcheck with a Python function of the inputs (tensors or a tuple of them).
  m.def("_gradcheck", [](py::object fn, py::handle inputs, double eps, double atol, double rtol,
                         bool second_order) {
    std::vector<Tensor> ins = tensors_or_empty(inputs, "gradcheck", "inputs");
    autograd::TensorsFunction f = [fn](const std::vector<Tensor>& xs) {
      py::tuple args(xs.size());
      for (size_t i = 0; i < xs.size(); ++i) args[i] = wrap(xs[i]);
      py::object r = fn(*args);
      return tensors_or_empty(r, "gradcheck", "outputs");
    };
    autograd::GradcheckOptions o{.eps = eps, .atol = atol, .rtol = rtol};
    return second_order ? autograd::gradgradcheck(f, ins, o) : autograd::gradcheck(f, ins, o);
  });
}

}  // namespace ember::python

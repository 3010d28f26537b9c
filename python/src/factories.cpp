// Tensor factories from Python: tensor() from nested sequences (PyTorch's dtype inference and
// shape checks), zeros/ones/full/empty/eye/arange/linspace/logspace, the random ones with
// PyTorch's streams, *_like, new_*, and the in-place random fills.
#include <cmath>
#include <limits>

#include "common.h"

namespace ember::python {
namespace {

// The keywords every factory takes: dtype, device, requires_grad; layout and pin_memory only
// with the values ember has (strided, unpinned), anything else is an error, not ignored.
struct FactoryOptions {
  std::optional<Dtype> dtype;
  std::optional<Device> device;
  bool requires_grad = false;
  Generator* generator = nullptr;
  py::object out;  // out=: the result is written there (write_out)

  /// The factory's result, or `out` with the result written into it.
  py::object finish(const char* op, const Tensor& result) const {
    if (!out || out.is_none()) return wrap(result);
    return wrap(write_out(to_tensor(out, op, "out"), result, op));
  }

  TensorOptions tensor() const {
    return {.dtype = dtype, .device = device, .requires_grad = requires_grad};
  }
  RandomOptions random() const {
    return {
        .dtype = dtype, .device = device, .requires_grad = requires_grad, .generator = generator};
  }
};

FactoryOptions factory_options(const char* op, py::kwargs kw, bool allow_generator = false) {
  FactoryOptions o;
  for (auto [k, v] : kw) {
    std::string key = k.cast<std::string>();
    if (key == "dtype")
      o.dtype = to_optional_dtype(v, op);
    else if (key == "device")
      o.device = to_optional_device(v, op);
    else if (key == "requires_grad")
      o.requires_grad = v.cast<bool>();
    else if (key == "generator" && allow_generator)
      o.generator = v.is_none() ? nullptr : v.cast<Generator*>();
    else if (key == "layout") {
      if (!v.is_none() && py::repr(v).cast<std::string>() != "torch.strided")
        throw std::runtime_error(std::string(op) + "(): ember tensors are strided; layout " +
                                 py::repr(v).cast<std::string>() + " is not supported");
    } else if (key == "pin_memory") {
      if (v.cast<bool>())
        throw std::runtime_error(std::string(op) + "(): pin_memory=True needs a CUDA device");
    } else if (key == "out") {
      o.out = py::reinterpret_borrow<py::object>(v);
    } else if (key == "memory_format") {
      continue;  // contiguous is the only format; preserve_format keeps the layout rules of *_like
    } else {
      throw py::type_error(std::string(op) + "() got an unexpected keyword argument '" + key + "'");
    }
  }
  return o;
}

// ── tensor(data) ─────────────────────────────────────────────────────────────
// Walks nested sequences once: their shape, and the widest kind of number (bool < int < float;
// a tensor element counts with its dtype), then fills a flat buffer of that kind.
struct Nested {
  std::vector<int64_t> shape;
  int kind = 0;                        // 0 bool, 1 int, 2 float
  std::optional<Dtype> element_dtype;  // from tensor elements
  std::vector<double> floats;
  std::vector<int64_t> ints;
};

void walk(py::handle obj, size_t depth, Nested& n) {
  PyObject* o = obj.ptr();
  if (depth > 64) throw py::value_error("tensor(): nesting deeper than 64 levels");
  bool seq = (PyList_Check(o) || PyTuple_Check(o)) ||
             (!is_tensor(obj) && PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o));
  if (is_tensor(obj) && unwrap(obj).dim() > 0) seq = true;
  if (seq) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(obj);
    int64_t len = int64_t(py::len(s));
    if (depth == n.shape.size()) {
      n.shape.push_back(len);
    } else if (depth > n.shape.size() || n.shape[depth] != len) {
      throw py::value_error("expected sequence of length " +
                            std::to_string(depth < n.shape.size() ? n.shape[depth] : 0) +
                            " at dim " + std::to_string(depth) + " (got " + std::to_string(len) +
                            ")");
    }
    for (py::handle item : s) walk(item, depth + 1, n);
    return;
  }
  if (depth != n.shape.size())
    throw py::value_error("expected sequence of length " + std::to_string(n.shape[depth]) +
                          " at dim " + std::to_string(depth) + " (got a number)");
  if (is_tensor(obj)) {
    Tensor t = unwrap(obj);
    n.element_dtype = n.element_dtype ? promote_types(*n.element_dtype, t.dtype()) : t.dtype();
  } else if (!PyFloat_Check(obj.ptr()) && !PyLong_Check(obj.ptr()) && py::hasattr(obj, "dtype") &&
             py::hasattr(obj, "__array_interface__")) {
    // A NumPy scalar keeps its dtype, as in PyTorch: tensor([np.float64(1)]) is float64.
    Dtype d = numpy_dtype(obj.attr("dtype"));
    n.element_dtype = n.element_dtype ? promote_types(*n.element_dtype, d) : d;
  }
  Scalar v = to_scalar(obj, "tensor", "data");
  int kind = v.is_bool() ? 0 : v.is_integral() ? 1 : 2;
  if (kind > n.kind) {
    if (n.kind < 2 && kind == 2)
      for (int64_t i : n.ints) n.floats.push_back(double(i));
    n.kind = kind;
  }
  if (n.kind == 2)
    n.floats.push_back(v.to_double());
  else
    n.ints.push_back(v.to_int());
}

}  // namespace

Tensor tensor_from_data(py::handle data, std::optional<Dtype> dtype, std::optional<Device> device,
                        bool requires_grad) {
  if (is_tensor(data)) {  // torch.tensor(t) copies (PyTorch warns and suggests clone().detach())
    Tensor t = unwrap(data).detach().clone();
    if (dtype) t = t.to(*dtype);
    if (device) t = t.to(*device);
    return requires_grad ? t.requires_grad_(true) : t;
  }
  if (py::hasattr(data, "__array_interface__") && !PyList_Check(data.ptr()) &&
      !PyTuple_Check(data.ptr())) {
    py::object from_numpy = py::module_::import("ember").attr("from_numpy");
    py::object np = py::module_::import("numpy");  // a copy, C-ordered, 0-d kept 0-d
    Tensor t = from_numpy(np.attr("array")(data, py::arg("copy") = true, py::arg("order") = "C"))
                   .cast<Tensor>();
    if (dtype) t = t.to(*dtype);
    if (device) t = t.to(*device);
    return requires_grad ? t.requires_grad_(true) : t;
  }
  Nested n;
  walk(data, 0, n);
  Dtype inferred = n.element_dtype && n.kind < 2 ? *n.element_dtype
                   : n.kind == 2
                       ? (n.element_dtype && is_floating_point(*n.element_dtype) ? *n.element_dtype
                                                                                 : default_dtype())
                   : n.kind == 1 ? kInt64
                                 : kBool;
  if (n.shape.size() > 0 && n.floats.empty() && n.ints.empty() && !n.element_dtype)
    inferred = default_dtype();
  Dtype target = dtype.value_or(inferred);
  Tensor t;
  if (n.kind == 2) {
    t = from_vector(n.floats, n.shape, {.dtype = target});
  } else if (target == kBool) {
    std::vector<uint8_t> bytes(n.ints.size());
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = n.ints[i] != 0;
    t = from_vector(bytes, n.shape).to(kBool);
  } else {
    t = from_vector(n.ints, n.shape, {.dtype = target});
  }
  if (device) t = t.to(*device);
  return requires_grad ? t.requires_grad_(true) : t;
}

void bind_factories(py::module_& m) {
  m.def(
      "tensor",
      [](py::handle data, py::handle dtype, py::handle device, bool requires_grad, bool pin) {
        if (pin) throw std::runtime_error("tensor(): pin_memory=True needs a CUDA device");
        return tensor_from_data(data, to_optional_dtype(dtype, "tensor"),
                                to_optional_device(device, "tensor"), requires_grad);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false, py::arg("pin_memory") = false);
  m.def(
      "as_tensor",
      [](py::handle data, py::handle dtype, py::handle device) -> py::object {
        std::optional<Dtype> d = to_optional_dtype(dtype, "as_tensor");
        std::optional<Device> dev = to_optional_device(device, "as_tensor");
        if (is_tensor(data)) {
          Tensor t = unwrap(data);
          if (d) t = t.to(*d);
          if (dev) t = t.to(*dev);
          return wrap(t);
        }
        if (py::hasattr(data, "__array_interface__") && !PyList_Check(data.ptr())) {
          // An ndarray is shared; a NumPy scalar becomes a 0-d array first (its dtype kept).
          py::object array = py::module_::import("numpy").attr("asarray")(data);
          Tensor t = py::module_::import("ember").attr("from_numpy")(array).cast<Tensor>();
          if (!array.is(data)) t = t.clone();
          if (d) t = t.to(*d);
          if (dev) t = t.to(*dev);
          return wrap(t);
        }
        return wrap(tensor_from_data(data, d, dev, false));
      },
      py::arg("data"), py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "scalar_tensor",
      [](py::handle v, py::kwargs kw) {
        FactoryOptions o = factory_options("scalar_tensor", kw);
        if (!o.dtype) o.dtype = default_dtype();
        return full({}, to_scalar(v, "scalar_tensor", "s"), o.tensor());
      },
      py::arg("s"));

  using SizedFn = Tensor (*)(IntArrayRef, TensorOptions);
  static const std::pair<const char*, SizedFn> sized[] = {
      {"zeros", [](IntArrayRef s, TensorOptions o) { return zeros(s, o); }},
      {"ones", [](IntArrayRef s, TensorOptions o) { return ones(s, o); }},
      {"empty", [](IntArrayRef s, TensorOptions o) { return empty(s, o); }}};
  for (auto [name, fn] : sized) {
    SizedFn f = fn;
    const char* op = name;
    m.def(name, [f, op](py::args size, py::kwargs kw) {
      if (kw.contains("size")) {
        if (size.size())
          throw py::type_error(std::string(op) + "() got multiple values for argument 'size'");
        size = py::args(py::make_tuple(kw["size"]));
        kw.attr("pop")("size");
      }
      std::vector<int64_t> s = to_sizes(size, op);
      FactoryOptions o = factory_options(op, kw);
      return o.finish(op, f(s, o.tensor()));
    });
  }
  m.def(
      "full",
      [](py::handle size, py::handle value, py::kwargs kw) {
        FactoryOptions o = factory_options("full", kw);
        return o.finish("full", full(to_int_list(size, "full", "size"),
                                     to_scalar(value, "full", "fill_value"), o.tensor()));
      },
      py::arg("size"), py::arg("fill_value"));
  m.def(
      "empty_strided",
      [](py::handle size, py::handle stride, py::kwargs kw) {
        FactoryOptions o = factory_options("empty_strided", kw);
        return empty_strided(to_int_list(size, "empty_strided", "size"),
                             to_int_list(stride, "empty_strided", "stride"), o.tensor());
      },
      py::arg("size"), py::arg("stride"));
  m.def(
      "eye",
      [](int64_t n, py::handle mm, py::kwargs kw) {
        FactoryOptions o = factory_options("eye", kw);
        std::optional<int64_t> cols;
        if (!mm.is_none()) cols = to_int(mm, "eye", "m");
        return o.finish("eye", eye(n, cols, o.tensor()));
      },
      py::arg("n"), py::arg("m") = py::none());
  m.def("arange", [](py::args args, py::kwargs kw) {
    std::vector<py::object> a;
    for (py::handle h : args) a.push_back(py::reinterpret_borrow<py::object>(h));
    for (const char* k : {"start", "end", "step"})
      if (kw.contains(k)) {
        std::string key = k;
        if (key == "start")
          a.insert(a.begin(), kw[k]);
        else if (key == "end")
          a.insert(a.begin() + std::min<size_t>(a.size(), 1), kw[k]);
        else
          a.push_back(kw[k]);
        kw.attr("pop")(k);
      }
    if (a.empty() || a.size() > 3)
      throw py::type_error("arange() takes 1 to 3 positional arguments (start, end, step)");
    FactoryOptions o = factory_options("arange", kw);
    if (a.size() == 1)
      return o.finish("arange", arange(to_scalar(a[0], "arange", "end"), o.tensor()));
    Scalar step = a.size() == 3 ? to_scalar(a[2], "arange", "step") : Scalar(1);
    return o.finish("arange", arange(to_scalar(a[0], "arange", "start"),
                                     to_scalar(a[1], "arange", "end"), step, o.tensor()));
  });
  m.def(
      "linspace",
      [](py::handle start, py::handle end, int64_t steps, py::kwargs kw) {
        FactoryOptions o = factory_options("linspace", kw);
        return o.finish("linspace", linspace(to_scalar(start, "linspace", "start"),
                                             to_scalar(end, "linspace", "end"), steps, o.tensor()));
      },
      py::arg("start"), py::arg("end"), py::arg("steps"));
  m.def(
      "logspace",
      [](py::handle start, py::handle end, int64_t steps, double base, py::kwargs kw) {
        FactoryOptions o = factory_options("logspace", kw);
        return o.finish("logspace",
                        logspace(to_scalar(start, "logspace", "start"),
                                 to_scalar(end, "logspace", "end"), steps, base, o.tensor()));
      },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::arg("base") = 10.0);

  for (bool normal : {false, true}) {
    const char* name = normal ? "randn" : "rand";
    m.def(name, [normal, name](py::args size, py::kwargs kw) {
      if (kw.contains("size")) {
        size = py::args(py::make_tuple(kw["size"]));
        kw.attr("pop")("size");
      }
      std::vector<int64_t> s = to_sizes(size, name);
      FactoryOptions o = factory_options(name, kw, true);
      Tensor r =
          without_gil(work_product(s), [&] { return normal ? randn(s, o.random()) : rand(s, o.random()); });
      return o.finish(name, r);
    });
  }
  m.def("randint", [](py::args args, py::kwargs kw) {
    // randint(high, size) or randint(low, high, size), each also as a keyword.
    std::vector<py::object> a;
    for (py::handle h : args) a.push_back(py::reinterpret_borrow<py::object>(h));
    for (const char* k : {"low", "high", "size"})
      if (kw.contains(k)) {
        a.push_back(kw[k]);
        kw.attr("pop")(k);
      }
    if (a.size() < 2 || a.size() > 3)
      throw py::type_error("randint() expects (high, size) or (low, high, size)");
    FactoryOptions o = factory_options("randint", kw, true);
    if (!o.dtype) o.dtype = kInt64;
    std::vector<int64_t> size = to_int_list(a.back(), "randint", "size");
    if (a.size() == 2)
      return o.finish("randint", randint(to_int(a[0], "randint", "high"), size, o.random()));
    return o.finish("randint", randint(to_int(a[0], "randint", "low"),
                                       to_int(a[1], "randint", "high"), size, o.random()));
  });
  m.def(
      "randperm",
      [](int64_t n, py::kwargs kw) {
        FactoryOptions o = factory_options("randperm", kw, true);
        return o.finish("randperm", randperm(n, o.random()));
      },
      py::arg("n"));

  // ── *_like ──
  using LikeFn = Tensor (*)(const Tensor&, const FactoryOptions&);
  static const std::pair<const char*, LikeFn> likes[] = {
      {"zeros_like",
       [](const Tensor& t, const FactoryOptions& o) { return zeros_like(t, o.tensor()); }},
      {"ones_like",
       [](const Tensor& t, const FactoryOptions& o) { return ones_like(t, o.tensor()); }},
      {"empty_like",
       [](const Tensor& t, const FactoryOptions& o) { return empty_like(t, o.tensor()); }},
      {"rand_like",
       [](const Tensor& t, const FactoryOptions& o) { return rand_like(t, o.random()); }},
      {"randn_like",
       [](const Tensor& t, const FactoryOptions& o) { return randn_like(t, o.random()); }}};
  for (auto [name, fn] : likes) {
    LikeFn f = fn;
    const char* op = name;
    m.def(
        name,
        [f, op](const Tensor& t, py::kwargs kw) { return f(t, factory_options(op, kw, true)); },
        py::arg("input"));
  }
  m.def(
      "full_like",
      [](const Tensor& t, py::handle v, py::kwargs kw) {
        return full_like(t, to_scalar(v, "full_like", "fill_value"),
                         factory_options("full_like", kw).tensor());
      },
      py::arg("input"), py::arg("fill_value"));
  m.def(
      "randint_like",
      [](const Tensor& t, int64_t a, std::optional<int64_t> b, py::kwargs kw) {
        FactoryOptions o = factory_options("randint_like", kw, true);
        return b ? randint_like(t, a, *b, o.random()) : randint_like(t, 0, a, o.random());
      },
      py::arg("input"), py::arg("low"), py::arg("high") = py::none());
  m.def(
      "multinomial",
      [](const Tensor& t, int64_t n, bool replacement, Generator* g) {
        return multinomial(t, n, replacement, g);
      },
      py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
      py::arg("generator") = nullptr);
}

// random_() without bounds: PyTorch's uniform_int over the dtype's range, one draw per element
// in order (64-bit draws for int64 and float64, 32-bit ones otherwise), so a 0-d int64 random_()
// (how RandomSampler seeds itself) gives PyTorch's number.
Tensor random_full_range(const Tensor& t, Generator& g) {
  if (!t.is_cpu()) throw std::runtime_error("random_(): only CPU tensors in this build");
  const Dtype d = t.dtype();
  const bool wide = d == kInt64 || d == kFloat64;
  const uint64_t modulus = d == kBool       ? 2
                           : d == kUInt8    ? 256
                           : d == kInt8     ? 128
                           : d == kInt16    ? 32768
                           : d == kInt32    ? (uint64_t(1) << 31)
                           : d == kInt64    ? (uint64_t(1) << 63)
                           : d == kFloat16  ? (uint64_t(1) << 11) + 1
                           : d == kBFloat16 ? (uint64_t(1) << 8) + 1
                           : d == kFloat32  ? (uint64_t(1) << 24) + 1
                                            : (uint64_t(1) << 53) + 1;
  std::vector<int64_t> values(size_t(t.numel()));
  for (int64_t& v : values) {
    const uint64_t r = wide ? g.random64() : g.random();
    v = int64_t(d == kBool ? (r & 1) : r % modulus);
  }
  return t.copy_(from_vector(values, std::vector<int64_t>(t.sizes().begin(), t.sizes().end())));
}

// random_(from, None): [from, the dtype's largest value], drawn as PyTorch's random_from_to: a
// range up to 2^32 takes 32-bit draws, a larger one 64-bit draws, the whole 64-bit range the draw
// itself.
Tensor random_from(const Tensor& t, int64_t from, Generator& g) {
  if (!t.is_cpu()) throw std::runtime_error("random_(): only CPU tensors in this build");
  const Dtype d = t.dtype();
  if (!is_integral(d))
    throw std::runtime_error("random_(from, None) is supported for integer tensors in ember");
  const int64_t max = d == kUInt8   ? 255
                      : d == kInt8  ? 127
                      : d == kInt16 ? 32767
                      : d == kInt32 ? 2147483647
                                    : std::numeric_limits<int64_t>::max();
  const int64_t min = d == kUInt8 || d == kBool ? 0
                      : d == kInt8              ? -128
                      : d == kInt16             ? -32768
                      : d == kInt32             ? -2147483648LL
                                                : std::numeric_limits<int64_t>::min();
  if (from > max || from < min)
    throw std::runtime_error("random_: from is out of bounds for " + std::string(dtype_name(d)));
  const uint64_t range = uint64_t(max) - uint64_t(from) + 1;  // 0: the whole 64-bit range
  std::vector<int64_t> values(size_t(t.numel()));
  for (int64_t& v : values) {
    if (range == 0)
      v = int64_t(g.random64());
    else if (range >= (uint64_t(1) << 32))
      v = int64_t(uint64_t(from) + g.random64() % range);
    else
      v = int64_t(uint64_t(from) + g.random() % range);
  }
  return t.copy_(from_vector(values, std::vector<int64_t>(t.sizes().begin(), t.sizes().end())));
}

// new_* and the random fills are methods; factories.cpp owns them as the same concept.
void bind_factory_methods(py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls) {
  auto opts = [](const Tensor& t, py::kwargs kw, const char* op) {
    FactoryOptions o = factory_options(op, kw);
    if (!o.dtype) o.dtype = t.dtype();
    if (!o.device) o.device = t.device();
    return o.tensor();
  };
  cls.def("new_zeros", [opts](const Tensor& t, py::args s, py::kwargs kw) {
    return zeros(to_sizes(s, "new_zeros"), opts(t, kw, "new_zeros"));
  });
  cls.def("new_ones", [opts](const Tensor& t, py::args s, py::kwargs kw) {
    return ones(to_sizes(s, "new_ones"), opts(t, kw, "new_ones"));
  });
  cls.def("new_empty", [opts](const Tensor& t, py::args s, py::kwargs kw) {
    return empty(to_sizes(s, "new_empty"), opts(t, kw, "new_empty"));
  });
  cls.def(
      "new_full",
      [opts](const Tensor& t, py::handle s, py::handle v, py::kwargs kw) {
        return full(to_int_list(s, "new_full", "size"), to_scalar(v, "new_full", "fill_value"),
                    opts(t, kw, "new_full"));
      },
      py::arg("size"), py::arg("fill_value"));
  cls.def(
      "new_tensor",
      [](const Tensor& t, py::handle data, py::handle dtype, py::handle device, bool rg) {
        std::optional<Dtype> d = to_optional_dtype(dtype, "new_tensor");
        return tensor_from_data(
            data, d ? d : std::optional<Dtype>(t.dtype()),
            device.is_none() ? std::optional<Device>(t.device()) : to_device(device, "new_tensor"),
            rg);
      },
      py::arg("data"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
      py::arg("requires_grad") = false);

  cls.def(
      "uniform_",
      [](const Tensor& t, double from, double to, Generator* g) {
        LongOpGilRelease gil(t.numel());
        return t.uniform_(from, to, g);
      },
      py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), py::arg("generator") = nullptr);
  cls.def(
      "normal_",
      [](const Tensor& t, double mean, double std, Generator* g) {
        LongOpGilRelease gil(t.numel());
        return t.normal_(mean, std, g);
      },
      py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), py::arg("generator") = nullptr);
  cls.def(
      "bernoulli_", [](const Tensor& t, double p, Generator* g) { return t.bernoulli_(p, g); },
      py::arg("p") = 0.5, py::kw_only(), py::arg("generator") = nullptr);
  cls.def(
      "exponential_",
      [](const Tensor& t, double lambd, Generator* g) { return t.exponential_(lambd, g); },
      py::arg("lambd") = 1.0, py::kw_only(), py::arg("generator") = nullptr);
  cls.def(
      "multinomial",
      [](const Tensor& t, int64_t n, bool replacement, Generator* g) {
        return t.multinomial(n, replacement, g);
      },
      py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
      py::arg("generator") = nullptr);
  // PyTorch's three forms: random_() (the dtype's range), random_(to) ([0, to)) and
  // random_(from, to) with to=None meaning up to the dtype's largest value.
  cls.def("random_", [](const Tensor& t, py::args args, py::kwargs kwargs) {
    Generator* g = nullptr;
    if (kwargs.contains("generator") && !kwargs["generator"].is_none())
      g = kwargs["generator"].cast<Generator*>();
    for (auto [k, v] : kwargs) {
      std::string key = k.cast<std::string>();
      if (key != "generator" && key != "to" && key != "from")
        throw py::type_error("random_() got an unexpected keyword argument '" + key + "'");
    }
    const bool has_to = kwargs.contains("to");
    if (kwargs.contains("from") && !has_to && args.size() == 0)
      throw py::type_error("random_(): from= needs to= (or call random_(to))");
    std::vector<py::object> pos;
    for (py::handle a : args) pos.push_back(py::reinterpret_borrow<py::object>(a));
    if (kwargs.contains("from")) pos.insert(pos.begin(), kwargs["from"]);
    if (has_to) pos.push_back(kwargs["to"]);
    if (pos.size() > 2) throw py::type_error("random_() takes at most 2 arguments (from, to)");
    Generator& gen = g ? *g : default_generator();
    if (pos.empty()) return random_full_range(t, gen);
    if (pos.size() == 1) return t.random_(0, to_int(pos[0], "random_", "to"), g);
    const int64_t from = to_int(pos[0], "random_", "from");
    if (pos[1].is_none()) return random_from(t, from, gen);
    return t.random_(from, to_int(pos[1], "random_", "to"), g);
  });
}

}  // namespace ember::python

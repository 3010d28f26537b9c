// Views and shape changes (view, reshape, permute, squeeze, expand, split, ...), joins (cat,
// stack), copies and conversions (contiguous, clone, to, float(), ...) from Python. Sizes and
// dims are accepted as PyTorch accepts them: t.view(2, 3), t.view((2, 3)), t.permute([1, 0]).
#include "common.h"

namespace ember::python {
namespace {

// Method arguments given either as *args or as one sequence.
std::vector<int64_t> int_args(py::args args, const char* op) { return to_sizes(args, op); }

// Tensor.to(...): (dtype), (device[, dtype]), (tensor), with non_blocking/copy keywords.
Tensor to_any(const Tensor& t, py::args args, py::kwargs kwargs) {
  std::optional<Dtype> dtype;
  std::optional<Device> device;
  bool non_blocking = false, copy = false;
  for (py::handle a : args) {
    if (is_tensor(a)) {
      Tensor o = unwrap(a);
      dtype = o.dtype();
      device = o.device();
    } else if (PyUnicode_Check(a.ptr()) || py::isinstance<Device>(a)) {
      device = to_device(a, "to");
    } else if (PyBool_Check(a.ptr())) {
      if (!dtype && !device) type_error("to", "a dtype, device or tensor", a);
      non_blocking = a.cast<bool>();
    } else {
      dtype = to_dtype(a, "to");
    }
  }
  for (auto [k, v] : kwargs) {
    std::string key = k.cast<std::string>();
    if (key == "dtype")
      dtype = to_optional_dtype(v, "to");
    else if (key == "device")
      device = to_optional_device(v, "to");
    else if (key == "non_blocking")
      non_blocking = v.cast<bool>();
    else if (key == "copy")
      copy = v.cast<bool>();
    else if (key == "memory_format")
      continue;  // strided is the only layout
    else
      throw py::type_error("to() got an unexpected keyword argument '" + key + "'");
  }
  LongOpGilRelease gil(t.numel());
  if (device && dtype) return t.to(*device, *dtype, non_blocking, copy);
  if (device) return t.to(*device, non_blocking, copy);
  if (dtype) return t.to(*dtype, copy);
  return copy ? t.clone() : t;
}

// Tensor.type(): the legacy type name ('torch.FloatTensor'), or a conversion.
py::object type_any(const Tensor& t, py::handle dtype) {
  static const char* names[kNumDtypes] = {"Bool", "Byte", "Char",     "Short", "Int",
                                          "Long", "Half", "BFloat16", "Float", "Double"};
  if (dtype.is_none())
    return py::str(std::string("torch.") + (t.is_cuda() ? "cuda." : "") + names[int(t.dtype())] +
                   "Tensor");
  if (PyUnicode_Check(dtype.ptr())) {
    std::string s = dtype.cast<std::string>();
    for (int i = 0; i < kNumDtypes; ++i)
      if (s == std::string("torch.") + names[i] + "Tensor") return wrap(t.to(Dtype(i)));
    throw py::value_error("invalid type: '" + s + "'");
  }
  return wrap(t.to(to_dtype(dtype, "type")));
}

// PyTorch returns the pieces of split/chunk/unbind as a tuple.
py::tuple tuple_of(const std::vector<Tensor>& ts) {
  py::tuple out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) out[i] = wrap(ts[i]);
  return out;
}

py::tuple split_any(const Tensor& t, py::handle size, int64_t dim) {
  if (PyLong_Check(size.ptr())) return tuple_of(t.split(to_int(size, "split", "split_size"), dim));
  return tuple_of(t.split(to_int_list(size, "split", "split_size_or_sections"), dim));
}

}  // namespace

void bind_shape_methods(Binder& b) {
  b.method("view", [](const Tensor& t, py::args args) {
    if (args.size() == 1 && !PyLong_Check(args[0].ptr()) && !PyTuple_Check(args[0].ptr()) &&
        !PyList_Check(args[0].ptr()))
      return t.view(to_dtype(args[0], "view"));
    return t.view(int_args(args, "view"));
  });
  b.method("reshape",
           [](const Tensor& t, py::args args) { return t.reshape(int_args(args, "reshape")); });
  b.function(
      "reshape",
      [](const Tensor& t, py::handle shape) {
        return t.reshape(to_int_list(shape, "reshape", "shape"));
      },
      py::arg("input"), py::arg("shape"));
  b.method(
      "view_as", [](const Tensor& t, const Tensor& o) { return t.view_as(o); }, py::arg("other"));
  b.method(
      "reshape_as", [](const Tensor& t, const Tensor& o) { return t.reshape_as(o); },
      py::arg("other"));
  b.method("expand",
           [](const Tensor& t, py::args args) { return t.expand(int_args(args, "expand")); });
  b.method(
      "expand_as", [](const Tensor& t, const Tensor& o) { return t.expand_as(o); },
      py::arg("other"));
  b.both(
      "broadcast_to",
      [](const Tensor& t, py::handle s) {
        return ember::broadcast_to(t, to_int_list(s, "broadcast_to", "size"));
      },
      py::arg("size"));
  b.function("broadcast_tensors", [](py::args ts) {
    return ember::broadcast_tensors(to_tensor_list(ts, "broadcast_tensors", "tensors"));
  });
  b.method("repeat",
           [](const Tensor& t, py::args args) { return t.repeat(int_args(args, "repeat")); });
  b.method("permute",
           [](const Tensor& t, py::args args) { return t.permute(int_args(args, "permute")); });
  b.function(
      "permute",
      [](const Tensor& t, py::handle dims) {
        return t.permute(to_int_list(dims, "permute", "dims"));
      },
      py::arg("input"), py::arg("dims"));
  b.method("flip", [](const Tensor& t, py::args args) { return t.flip(int_args(args, "flip")); });
  b.function(
      "flip",
      [](const Tensor& t, py::handle dims) { return t.flip(to_int_list(dims, "flip", "dims")); },
      py::arg("input"), py::arg("dims"));
  b.both(
      "as_strided",
      [](const Tensor& t, py::handle size, py::handle stride, std::optional<int64_t> offset) {
        return t.as_strided(to_int_list(size, "as_strided", "size"),
                            to_int_list(stride, "as_strided", "stride"), offset);
      },
      py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none());
  for (const char* name : {"transpose", "swapaxes", "swapdims"})
    b.both(
        name, [](const Tensor& t, int64_t d0, int64_t d1) { return t.transpose(d0, d1); },
        py::arg("dim0"), py::arg("dim1"));
  for (const char* name : {"movedim", "moveaxis"})
    b.both(
        name,
        [](const Tensor& t, py::handle src, py::handle dst) {
          if (PyLong_Check(src.ptr()) && PyLong_Check(dst.ptr()))
            return t.movedim(to_int(src, "movedim", "source"),
                             to_int(dst, "movedim", "destination"));
          std::vector<int64_t> s = to_int_list(src, "movedim", "source");
          std::vector<int64_t> d = to_int_list(dst, "movedim", "destination");
          if (s.size() != d.size())
            throw std::runtime_error(
                "movedim: Invalid source or destination dims: source (" + std::to_string(s.size()) +
                " dims) should contain the same number of dims as destination (" +
                std::to_string(d.size()) + " dims)");
          // The permutation that puts each source dim at its destination, others in order.
          int64_t n = t.dim();
          std::vector<int64_t> perm(n, -1);
          std::vector<bool> used(n, false);
          for (size_t i = 0; i < s.size(); ++i) {
            int64_t si = s[i] < 0 ? s[i] + n : s[i], di = d[i] < 0 ? d[i] + n : d[i];
            if (si < 0 || si >= n || di < 0 || di >= n)
              throw py::index_error("movedim: dimension out of range");
            perm[di] = si;
            used[si] = true;
          }
          int64_t next = 0;
          for (int64_t& p : perm) {
            if (p != -1) continue;
            while (used[next]) ++next;
            p = next++;
          }
          return t.permute(perm);
        },
        py::arg("source"), py::arg("destination"));
  b.both("t", [](const Tensor& t) { return t.t(); });
  b.both(
      "squeeze",
      [](const Tensor& t, py::handle dim) {
        if (dim.is_none()) return t.squeeze();
        if (PyLong_Check(dim.ptr())) return t.squeeze(to_int(dim, "squeeze", "dim"));
        return t.squeeze(IntArrayRef(to_int_list(dim, "squeeze", "dim")));
      },
      py::arg("dim") = py::none());
  b.both(
      "unsqueeze", [](const Tensor& t, int64_t dim) { return t.unsqueeze(dim); }, py::arg("dim"));
  // The in-place forms change the tensor's shape and return the same Python object.
  b.method(
      "unsqueeze_", [](const Tensor& t, int64_t dim) { return t.unsqueeze_(dim); },
      py::arg("dim"));
  b.method(
      "squeeze_",
      [](const Tensor& t, std::optional<int64_t> dim) {
        return dim ? t.squeeze_(*dim) : t.squeeze_();
      },
      py::arg("dim") = py::none());
  b.method("t_", [](const Tensor& t) { return t.t_(); });
  for (const char* name : {"transpose_", "swapaxes_", "swapdims_"})
    b.method(
        name, [](const Tensor& t, int64_t d0, int64_t d1) { return t.transpose_(d0, d1); },
        py::arg("dim0"), py::arg("dim1"));
  b.both(
      "flatten", [](const Tensor& t, int64_t s, int64_t e) { return t.flatten(s, e); },
      py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  b.both(
      "unflatten",
      [](const Tensor& t, int64_t dim, py::handle sizes) {
        return t.unflatten(dim, to_int_list(sizes, "unflatten", "sizes"));
      },
      py::arg("dim"), py::arg("sizes"));
  b.both("ravel", [](const Tensor& t) { return t.reshape({-1}); });
  b.both(
      "narrow",
      [](const Tensor& t, int64_t dim, py::handle start, int64_t length) {
        return t.narrow(dim, to_int(start, "narrow", "start"), length);
      },
      py::arg("dim"), py::arg("start"), py::arg("length"));
  b.both(
      "select", [](const Tensor& t, int64_t dim, int64_t index) { return t.select(dim, index); },
      py::arg("dim"), py::arg("index"));
  b.both(
      "diagonal",
      [](const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
        return t.diagonal(offset, d1, d2);
      },
      py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1);
  b.method(
      "unfold",
      [](const Tensor& t, int64_t dim, int64_t size, int64_t step) {
        return t.unfold(dim, size, step);
      },
      py::arg("dimension"), py::arg("size"), py::arg("step"));
  b.both("split", split_any, py::arg("split_size_or_sections"), py::arg("dim") = 0);
  b.both(
      "split_with_sizes",
      [](const Tensor& t, py::handle sizes, int64_t dim) {
        return tuple_of(
            t.split_with_sizes(to_int_list(sizes, "split_with_sizes", "split_sizes"), dim));
      },
      py::arg("split_sizes"), py::arg("dim") = 0);
  b.both(
      "chunk",
      [](const Tensor& t, int64_t chunks, int64_t dim) { return tuple_of(t.chunk(chunks, dim)); },
      py::arg("chunks"), py::arg("dim") = 0);
  b.both(
      "unbind", [](const Tensor& t, int64_t dim) { return tuple_of(t.unbind(dim)); },
      py::arg("dim") = 0);
  b.both(
      "tril", [](const Tensor& t, int64_t d) { return t.tril(d); }, py::arg("diagonal") = 0);
  b.both(
      "triu", [](const Tensor& t, int64_t d) { return t.triu(d); }, py::arg("diagonal") = 0);
  b.method(
      "tril_", [](const Tensor& t, int64_t d) { return t.copy_(t.tril(d)); },
      py::arg("diagonal") = 0);
  b.method(
      "triu_", [](const Tensor& t, int64_t d) { return t.copy_(t.triu(d)); },
      py::arg("diagonal") = 0);
  b.both(
      "diag", [](const Tensor& t, int64_t d) { return ember::diag(t, d); },
      py::arg("diagonal") = 0);
  b.both(
      "diag_embed",
      [](const Tensor& t, int64_t o, int64_t d1, int64_t d2) {
        return ember::diag_embed(t, o, d1, d2);
      },
      py::arg("offset") = 0, py::arg("dim1") = -2, py::arg("dim2") = -1);
  b.both("trace", [](const Tensor& t) { return ember::trace(t); });
  b.both(
      "roll",
      [](const Tensor& t, py::handle shifts, py::handle dims) {
        std::vector<int64_t> d;
        if (!dims.is_none()) d = to_int_list(dims, "roll", "dims");
        return t.roll(to_int_list(shifts, "roll", "shifts"), d);
      },
      py::arg("shifts"), py::arg("dims") = py::none());
  for (const char* name : {"cat", "concat", "concatenate"})
    b.function(
        name,
        [](py::handle ts, int64_t dim) {
          return ember::cat(to_tensor_list(ts, "cat", "tensors"), dim);
        },
        py::arg("tensors"), py::arg("dim") = 0);
  b.function(
      "stack",
      [](py::handle ts, int64_t dim) {
        return ember::stack(to_tensor_list(ts, "stack", "tensors"), dim);
      },
      py::arg("tensors"), py::arg("dim") = 0);
  b.function(
      "hstack",
      [](py::handle ts) { return ember::hstack(to_tensor_list(ts, "hstack", "tensors")); },
      py::arg("tensors"));
  b.function(
      "vstack",
      [](py::handle ts) { return ember::vstack(to_tensor_list(ts, "vstack", "tensors")); },
      py::arg("tensors"));

  // ── copies and conversions ──
  b.method(
      "contiguous", [](const Tensor& t, py::handle) { return t.contiguous(); },
      py::arg("memory_format") = py::none());
  b.both(
      "clone",
      [](const Tensor& t, py::handle) {
        LongOpGilRelease gil(t.numel());
        return t.clone();
      },
      py::kw_only(), py::arg("memory_format") = py::none());
  b.method("to", to_any);
  b.method("cpu", [](const Tensor& t) { return t.cpu(); });
  b.method(
      "cuda",
      [](const Tensor& t, py::handle device, bool non_blocking) {
        Device d = device.is_none() ? Device(kCUDA) : to_device(device, "cuda");
        if (d.is_cpu()) throw std::runtime_error("Invalid device, must be cuda device");
        return t.to(d, non_blocking);
      },
      py::arg("device") = py::none(), py::arg("non_blocking") = false);
  static const std::pair<const char*, Dtype> conversions[] = {
      {"float", kFloat32}, {"double", kFloat64}, {"half", kFloat16}, {"bfloat16", kBFloat16},
      {"int", kInt32},     {"long", kInt64},     {"short", kInt16},  {"char", kInt8},
      {"byte", kUInt8},    {"bool", kBool}};
  for (auto [name, dtype] : conversions) {
    Dtype d = dtype;
    b.method(
        name, [d](const Tensor& t, py::handle) { return t.to(d); },
        py::arg("memory_format") = py::none());
  }
  b.method("type", type_any, py::arg("dtype") = py::none());
  b.method(
      "type_as", [](const Tensor& t, const Tensor& o) { return t.to(o.dtype()); },
      py::arg("other"));
  b.method(
      "copy_",
      [](const Tensor& t, py::handle src, bool non_blocking) {
        Tensor s = to_tensor(src, "copy_", "src");
        LongOpGilRelease gil(t.numel());
        return t.copy_(s, non_blocking);
      },
      py::arg("src"), py::arg("non_blocking") = false);
  b.method(
      "fill_",
      [](const Tensor& t, py::handle v) {
        return is_tensor(v) ? t.fill_(unwrap(v)) : t.fill_(to_scalar(v, "fill_", "value"));
      },
      py::arg("value"));
  b.method("zero_", [](const Tensor& t) { return t.zero_(); });
}

}  // namespace ember::python

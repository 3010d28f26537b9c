// Zero-copy exchange with NumPy (.numpy(), from_numpy, __array__) and DLPack (__dlpack__,
// __dlpack_device__, from_dlpack: Debian's dlpack.h, the v0.6 ABI PyTorch 1.13 speaks).
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include "common.h"

namespace ember::python {
namespace {

const char* numpy_code(Dtype d) {
  switch (d) {
    case kBool:
      return "?";
    case kUInt8:
      return "u1";
    case kInt8:
      return "i1";
    case kInt16:
      return "i2";
    case kInt32:
      return "i4";
    case kInt64:
      return "i8";
    case kFloat16:
      return "f2";
    case kFloat32:
      return "f4";
    case kFloat64:
      return "f8";
    default:
      return nullptr;
  }
}

py::array to_numpy(const Tensor& t, bool force) {
  Tensor src = t;
  if (src.requires_grad()) {
    if (!force)
      throw std::runtime_error(
          "Can't call numpy() on Tensor that requires grad. Use "
          "tensor.detach().numpy() instead.");
    src = src.detach();
  }
  if (!src.is_cpu()) {
    if (!force)
      throw py::type_error("can't convert " + src.device().str() +
                           " device type tensor to numpy. "
                           "Use Tensor.cpu() to copy the tensor to host memory first.");
    src = src.cpu();
  }
  const char* code = numpy_code(src.dtype());
  if (!code)
    throw py::type_error(std::string("Got unsupported ScalarType ") +
                         (src.dtype() == kBFloat16 ? "BFloat16" : dtype_name(src.dtype())));
  std::vector<py::ssize_t> shape(src.sizes().begin(), src.sizes().end());
  std::vector<py::ssize_t> strides;
  for (int64_t s : src.strides()) strides.push_back(s * src.element_size());
  // The array's base keeps the tensor (and so its storage) alive.
  auto* keep = new Tensor(src);
  py::capsule base(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(py::dtype(code), shape, strides, src.impl()->data(), base);
}

Dtype dtype_of_numpy(const py::dtype& d) {
  char kind = d.kind();
  int64_t size = d.itemsize();
  if (kind == 'b') return kBool;
  if (kind == 'u' && size == 1) return kUInt8;
  if (kind == 'i') {
    if (size == 1) return kInt8;
    if (size == 2) return kInt16;
    if (size == 4) return kInt32;
    if (size == 8) return kInt64;
  }
  if (kind == 'f') {
    if (size == 2) return kFloat16;
    if (size == 4) return kFloat32;
    if (size == 8) return kFloat64;
  }
  throw py::type_error("can't convert np.ndarray of type " +
                       py::str(py::handle(d)).cast<std::string>() +
                       ". The only supported types are: float64, float32, float16, int64, int32, "
                       "int16, int8, uint8, and bool.");
}

void release_pyobject(void*, void* context) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(context));
}

Tensor from_numpy(py::handle obj) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error("expected np.ndarray (got " + std::string(Py_TYPE(obj.ptr())->tp_name) +
                         ")");
  py::array a = py::reinterpret_borrow<py::array>(obj);
  if (a.dtype().byteorder() == '>')
    throw py::value_error(
        "given numpy array has byte order different from the native byte order. "
        "Conversion between byte orders is currently not supported.");
  Dtype dtype = dtype_of_numpy(a.dtype());
  const int64_t item = a.itemsize();
  std::vector<int64_t> sizes, strides;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    sizes.push_back(a.shape(i));
    if (a.strides(i) < 0)
      throw py::value_error(
          "At least one stride in the given numpy array is negative, and tensors "
          "with negative strides are not currently supported. (You can probably "
          "work around this by making a copy of your array  with array.copy().) ");
    if (a.strides(i) % item != 0)
      throw py::value_error(
          "given numpy array strides not a multiple of the element byte size. "
          "Copy the numpy array to reallocate the memory.");
    strides.push_back(a.strides(i) / item);
  }
  PyObject* owner = obj.ptr();
  Py_INCREF(owner);
  return ember::from_blob(const_cast<void*>(a.data()), sizes, strides, dtype, &release_pyobject,
                          owner);
}

// ── DLPack ──
struct DLPackOwner {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed;
};

DLDataType dl_dtype(Dtype d) {
  switch (d) {
    case kBool:
      return {kDLUInt, 8, 1};  // v0.6 has no bool code; PyTorch 1.13 writes the same
    case kUInt8:
      return {kDLUInt, 8, 1};
    case kInt8:
      return {kDLInt, 8, 1};
    case kInt16:
      return {kDLInt, 16, 1};
    case kInt32:
      return {kDLInt, 32, 1};
    case kInt64:
      return {kDLInt, 64, 1};
    case kFloat16:
      return {kDLFloat, 16, 1};
    case kBFloat16:
      return {kDLBfloat, 16, 1};
    case kFloat32:
      return {kDLFloat, 32, 1};
    case kFloat64:
      return {kDLFloat, 64, 1};
  }
  throw std::runtime_error("to_dlpack: unknown dtype");
}

Dtype from_dl_dtype(DLDataType t) {
  if (t.lanes != 1)
    throw std::runtime_error("from_dlpack: vector types (lanes > 1) are not supported");
  switch (t.code) {
    case kDLUInt:
      if (t.bits == 8) return kUInt8;
      break;
    case kDLInt:
      if (t.bits == 8) return kInt8;
      if (t.bits == 16) return kInt16;
      if (t.bits == 32) return kInt32;
      if (t.bits == 64) return kInt64;
      break;
    case kDLFloat:
      if (t.bits == 16) return kFloat16;
      if (t.bits == 32) return kFloat32;
      if (t.bits == 64) return kFloat64;
      break;
    case kDLBfloat:
      if (t.bits == 16) return kBFloat16;
      break;
    case 6:  // kDLBool (DLPack >= 0.8)
      if (t.bits == 8) return kBool;
      break;
  }
  throw std::runtime_error("from_dlpack: unsupported DLPack dtype (code " + std::to_string(t.code) +
                           ", " + std::to_string(t.bits) + " bits)");
}

py::capsule to_dlpack(const Tensor& t) {
  if (t.requires_grad())
    throw std::runtime_error("Can't export tensors that require gradient, use tensor.detach()");
  auto* owner = new DLPackOwner{t, {}, {}, {}};
  owner->shape.assign(t.sizes().begin(), t.sizes().end());
  owner->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& dl = owner->managed.dl_tensor;
  dl.data = t.impl()->data();
  dl.device = {t.is_cpu() ? kDLCPU : kDLCUDA, t.is_cpu() ? 0 : std::max(0, t.device().index())};
  dl.ndim = int32_t(t.dim());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = owner->shape.data();
  dl.strides = owner->strides.data();
  dl.byte_offset = 0;
  owner->managed.manager_ctx = owner;
  owner->managed.deleter = [](DLManagedTensor* m) {
    delete static_cast<DLPackOwner*>(m->manager_ctx);
  };
  // A capsule nobody consumed still owns the tensor: its destructor calls the deleter.
  return py::capsule(&owner->managed, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    } else {
      PyErr_Clear();
    }
  });
}

Tensor from_dlpack(py::object obj) {
  py::object cap = obj;
  if (py::hasattr(obj, "__dlpack__")) cap = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw py::value_error(
        "from_dlpack: expected a DLPack capsule named 'dltensor' (not yet consumed) "
        "or an object with __dlpack__");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost)
    throw std::runtime_error(
        "from_dlpack: only CPU tensors can be imported in this build (device type " +
        std::to_string(dl.device.device_type) + ")");
  Dtype dtype = from_dl_dtype(dl.dtype);
  std::vector<int64_t> sizes(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides;
  if (dl.strides) {
    strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {  // NULL strides mean row-major
    DimVector c = contiguous_strides(sizes);
    strides.assign(c.begin(), c.end());
  }
  PyCapsule_SetName(cap.ptr(), "used_dltensor");  // consumed: the tensor calls the deleter
  return ember::from_blob(
      static_cast<char*>(dl.data) + dl.byte_offset, sizes, strides, dtype,
      [](void*, void* ctx) {
        auto* mt = static_cast<DLManagedTensor*>(ctx);
        if (mt->deleter) mt->deleter(mt);
      },
      m);
}

}  // namespace

Dtype numpy_dtype(py::handle dtype) {
  return dtype_of_numpy(py::reinterpret_borrow<py::dtype>(dtype));
}

void bind_numpy(py::module_& m, py::class_<TensorImpl, intrusive_ptr<TensorImpl>>& cls) {
  cls.def(
      "numpy", [](const Tensor& t, bool force) { return to_numpy(t, force); }, py::kw_only(),
      py::arg("force") = false);
  cls.def(
      "__array__",
      [](const Tensor& t, py::object dtype) -> py::object {
        py::array a = to_numpy(t.requires_grad() ? t.detach() : t, false);
        if (dtype.is_none()) return a;
        return a.attr("astype")(dtype, py::arg("copy") = false);
      },
      py::arg("dtype") = py::none());
  cls.def(
      "__dlpack__",
      [](const Tensor& t, py::object stream) {
        if (!stream.is_none() && t.is_cpu())
          throw std::runtime_error("__dlpack__: stream must be None for a CPU tensor");
        return to_dlpack(t);
      },
      py::arg("stream") = py::none());
  cls.def("__dlpack_device__", [](const Tensor& t) {
    return py::make_tuple(int(t.is_cpu() ? kDLCPU : kDLCUDA),
                          t.is_cpu() ? 0 : std::max(0, t.device().index()));
  });
  m.def("from_numpy", &from_numpy, py::arg("ndarray"));
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"));
  m.def("_to_dlpack", &to_dlpack, py::arg("tensor"));
}

}  // namespace ember::python

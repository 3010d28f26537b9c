// Mixed precision for ember.amp (ember._C._amp): autocast regions (the C++ policy tables decide
// each op's dtype) and the C++ GradScaler, stepping the C++ optimizer behind a Python one.
#include <memory>

#include "common.h"
#include "ember/amp/autocast.h"
#include "ember/amp/grad_scaler.h"

namespace ember::python {
namespace {

DeviceType device_type_of(const std::string& s) {
  if (s == "cpu") return kCPU;
  if (s == "cuda") return kCUDA;
  throw std::runtime_error("autocast: device_type must be 'cpu' or 'cuda', got '" + s + "'");
}

// One autocast region; entered and left by ember.amp.autocast's __enter__/__exit__.
class AutocastRegion {
 public:
  AutocastRegion(const std::string& device, py::handle dtype, bool enabled,
                 std::optional<bool> cache)
      : device_(device_type_of(device)), enabled_(enabled), cache_(cache) {
    if (!dtype.is_none()) dtype_ = to_dtype(dtype, "autocast");
  }
  void enter() {
    if (guard_) throw std::runtime_error("autocast: this region is already entered");
    amp::AutocastOptions o{.enabled = enabled_, .cache_enabled = cache_};
    guard_ = dtype_ ? std::make_unique<amp::autocast>(device_, *dtype_, o)
                    : std::make_unique<amp::autocast>(device_, o);
  }
  void exit() { guard_.reset(); }

 private:
  DeviceType device_;
  std::optional<Dtype> dtype_;
  bool enabled_;
  std::optional<bool> cache_;
  std::unique_ptr<amp::autocast> guard_;
};

}  // namespace

void bind_amp(py::module_& parent) {
  py::module_ m = parent.def_submodule("_amp", "autocast regions and the gradient scaler");
  py::class_<AutocastRegion>(m, "AutocastRegion")
      .def(py::init<const std::string&, py::handle, bool, std::optional<bool>>(),
           py::arg("device_type"), py::arg("dtype") = py::none(), py::arg("enabled") = true,
           py::arg("cache_enabled") = py::none())
      .def("enter", &AutocastRegion::enter)
      .def("exit", &AutocastRegion::exit);
  m.def(
      "is_autocast_enabled",
      [](const std::string& d) { return amp::is_autocast_enabled(device_type_of(d)); },
      py::arg("device_type") = "cuda");
  m.def(
      "get_autocast_dtype",
      [](const std::string& d) { return dtype_object(amp::get_autocast_dtype(device_type_of(d))); },
      py::arg("device_type"));
  m.def("is_autocast_cache_enabled", &amp::is_autocast_cache_enabled);
  m.def("clear_autocast_cache", &amp::clear_autocast_cache);

  py::class_<amp::GradScaler>(m, "GradScaler")
      .def(py::init([](double init_scale, double growth_factor, double backoff_factor,
                       int64_t growth_interval, bool enabled) {
             return std::make_unique<amp::GradScaler>(
                 amp::GradScalerOptions{.init_scale = init_scale,
                                        .growth_factor = growth_factor,
                                        .backoff_factor = backoff_factor,
                                        .growth_interval = growth_interval,
                                        .enabled = enabled});
           }),
           py::arg("init_scale"), py::arg("growth_factor"), py::arg("backoff_factor"),
           py::arg("growth_interval"), py::arg("enabled"))
      .def("scale", [](amp::GradScaler& s, const Tensor& t) { return s.scale(t); })
      .def("unscale_", [](amp::GradScaler& s, optim::Optimizer& o) { s.unscale_(o); })
      .def("step",
           [](amp::GradScaler& s, optim::Optimizer& o) {
             py::gil_scoped_release release;
             return s.step(o);
           })
      .def(
          "update",
          [](amp::GradScaler& s, std::optional<double> new_scale) {
            if (new_scale)
              s.update(*new_scale);
            else
              s.update();
          },
          py::arg("new_scale") = py::none())
      .def("get_scale", &amp::GradScaler::get_scale)
      .def("is_enabled", &amp::GradScaler::is_enabled)
      .def("get_growth_factor", &amp::GradScaler::get_growth_factor)
      .def("set_growth_factor", &amp::GradScaler::set_growth_factor)
      .def("get_backoff_factor", &amp::GradScaler::get_backoff_factor)
      .def("set_backoff_factor", &amp::GradScaler::set_backoff_factor)
      .def("get_growth_interval", &amp::GradScaler::get_growth_interval)
      .def("set_growth_interval", &amp::GradScaler::set_growth_interval)
      .def("state_dict", [](const amp::GradScaler& s) { return from_value(Value(s.state_dict())); })
      .def("load_state_dict",
           [](amp::GradScaler& s, py::handle sd) { s.load_state_dict(to_value(sd).to_dict()); });
}

}  // namespace ember::python

// torch.profiler over the C++ profiler (ember._C._profiler): profile sessions with schedules and
// an on_trace_ready callback, record_function ranges, key_averages tables in PyTorch's layout and
// Chrome traces. python/ember/profiler adds the context-manager surface.
#include "ember/profiler.h"

#include <memory>

#include "common.h"
#include "context_guard.h"
#include "profiler/recorder.h"

namespace ember::python {
namespace {

namespace P = profiler;

// with_stack's Python call sites, "file(line): function" as PyTorch prints them, innermost
// first; the table keeps 5 of them, as the C++ frames. An op on a thread that does not hold the
// GIL (the autograd engine's backward, a released-GIL collective) runs no Python code of its own.
bool python_stack(std::vector<std::string>& frames) {
  constexpr size_t kKeptFrames = 5;
  if (!Py_IsInitialized() || !PyGILState_Check()) return false;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame && frames.size() < kKeptFrames) {
    PyCodeObject* code = PyFrame_GetCode(frame);  // new references from here on
    frames.push_back(py::str(code->co_filename).cast<std::string>() + "(" +
                     std::to_string(PyFrame_GetLineNumber(frame)) +
                     "): " + py::str(code->co_name).cast<std::string>());
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  return !frames.empty();
}

class Session {
 public:
  Session(py::list activities, py::object schedule, py::object on_trace_ready, py::object self,
          bool record_shapes, bool profile_memory, bool with_stack) {
    P::ProfileOptions o;
    o.activities.clear();
    for (py::handle a : activities) {
      std::string s = py::str(a);
      if (s.find("CUDA") != std::string::npos || s == "cuda")
        o.activities.push_back(kCUDA);
      else
        o.activities.push_back(kCPU);
    }
    if (!schedule.is_none()) {
      GilObject f(schedule);
      o.schedule = [f](int64_t step) {
        py::gil_scoped_acquire gil;
        return P::ProfilerAction(py::int_(f.get()(step).attr("value")).cast<int>());
      };
    }
    if (!on_trace_ready.is_none()) {
      // Called with the Python profile object, which the caller passes as `self` (a weak
      // reference: the session belongs to it).
      GilObject f(on_trace_ready);
      GilObject weak(py::module_::import("weakref").attr("ref")(self));
      o.on_trace_ready = [f, weak](P::profile&) {
        py::gil_scoped_acquire gil;
        py::object owner = weak.get()();
        if (!owner.is_none()) f.get()(owner);
      };
    }
    o.record_shapes = record_shapes;
    o.profile_memory = profile_memory;
    o.with_stack = with_stack;
    prof_ = std::make_unique<P::profile>(std::move(o));
  }
  P::profile& get() { return *prof_; }

 private:
  std::unique_ptr<P::profile> prof_;
};

/// record_function(name) as a Python context.
using Range = ContextGuard<P::record_function, std::string>;

}  // namespace

void bind_profiler(py::module_& parent) {
  py::module_ m = parent.def_submodule("_profiler", "the C++ profiler behind ember.profiler");
  profiler::detail::set_language_stack(&python_stack);
  py::class_<P::EventAverage>(m, "FunctionEventAvg")
      .def_readonly("key", &P::EventAverage::key)
      .def_readonly("count", &P::EventAverage::count)
      .def_property_readonly(
          "cpu_time_total",
          [](const P::EventAverage& e) { return double(e.cpu_time_total_ns) / 1e3; })
      .def_property_readonly(
          "self_cpu_time_total",
          [](const P::EventAverage& e) { return double(e.self_cpu_time_total_ns) / 1e3; })
      .def_property_readonly("cpu_time",
                             [](const P::EventAverage& e) { return e.cpu_time_ns() / 1e3; })
      .def_readonly("cpu_memory_usage", &P::EventAverage::cpu_memory_usage)
      .def_readonly("self_cpu_memory_usage", &P::EventAverage::self_cpu_memory_usage)
      .def_readonly("input_shapes", &P::EventAverage::input_shapes)
      .def_readonly("stack", &P::EventAverage::stack)
      .def("__repr__", [](const P::EventAverage& e) {
        return "<FunctionEventAvg key=" + e.key +
               " self_cpu_time=" + std::to_string(e.self_cpu_time_total_ns / 1000) +
               "us cpu_time=" + std::to_string(int64_t(e.cpu_time_ns() / 1000)) +
               "us count=" + std::to_string(e.count) + ">";
      });
  py::class_<P::EventAverages>(m, "EventList")
      .def(
          "table",
          [](const P::EventAverages& a, py::handle sort_by, int64_t row_limit,
             int64_t max_src_column_width, int64_t max_name_column_width,
             int64_t max_shapes_column_width, py::handle header, bool top_level_events_only) {
            P::TableOptions o;
            if (!sort_by.is_none()) o.sort_by = sort_by.cast<std::string>();
            o.row_limit = row_limit;
            o.max_src_column_width = max_src_column_width;
            o.max_name_column_width = max_name_column_width;
            o.max_shapes_column_width = max_shapes_column_width;
            if (!header.is_none()) o.header = header.cast<std::string>();
            o.top_level_events_only = top_level_events_only;
            return a.table(o);
          },
          py::arg("sort_by") = py::none(), py::arg("row_limit") = 100,
          py::arg("max_src_column_width") = 75, py::arg("max_name_column_width") = 55,
          py::arg("max_shapes_column_width") = 80, py::arg("header") = py::none(),
          py::arg("top_level_events_only") = false)
      .def("__len__", [](const P::EventAverages& a) { return a.size(); })
      .def("__getitem__",
           [](const P::EventAverages& a, int64_t i) {
             if (i < 0) i += int64_t(a.size());
             if (i < 0 || i >= int64_t(a.size()))
               throw py::index_error("EventList index out of range");
             return a[size_t(i)];
           })
      .def("__str__", [](const P::EventAverages& a) { return a.table(); });
  py::class_<Session>(m, "Session")
      .def(py::init<py::list, py::object, py::object, py::object, bool, bool, bool>())
      .def("start", [](Session& s) { s.get().start(); })
      .def("stop", [](Session& s) { s.get().stop(); })
      .def("step", [](Session& s) { s.get().step(); })
      .def("step_num", [](Session& s) { return s.get().step_num(); })
      .def("key_averages",
           [](Session& s, bool by_shape, int64_t stack_n) {
             return s.get().key_averages(
                 {.group_by_input_shape = by_shape, .group_by_stack_n = stack_n});
           })
      .def("export_chrome_trace",
           [](Session& s, const std::string& path) { s.get().export_chrome_trace(path); })
      .def("export_stacks", [](Session& s, const std::string& path,
                               const std::string& metric) { s.get().export_stacks(path, metric); })
      .def("event_names", [](Session& s) {
        std::vector<std::string> names;
        for (const P::Event& e : s.get().events()) names.push_back(e.name);
        return names;
      });
  py::class_<Range>(m, "Range")
      .def(py::init<std::string>())
      .def("enter", &Range::enter)
      .def("exit", &Range::exit);
  m.def("is_profiler_enabled", &P::is_profiler_enabled);
}

}  // namespace ember::python

// libFuzzer host of the Python front door's argument fuzzer: an embedded /usr/bin/python3 that
// imports the build's `ember` package — whose extension (python/src: the conversion of Python
// arguments to ember's values, the overload choice, the error translation) is compiled with
// coverage, ASan and UBSan in a fuzz build — and hands each input to python_args_harness.py's
// run(), which decodes it into one call with fuzzed arguments. The harness decides what is a
// correct answer (a result, or an exception of a class PyTorch raises); anything else it reports
// by raising FuzzFinding, and this host aborts so libFuzzer keeps the input. A crash or a
// sanitizer report is a finding by itself.
#include <Python.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

// Python keeps its interpreter's memory to the end (no leak check); a malloc beyond 256 MiB
// returns null instead of ASan's report, so that the code above it answers as it would on a
// machine out of memory. ember's own storage (whose large blocks come from mmap, not malloc) is
// bounded by EMBER_CPU_ALLOCATION_LIMIT_MB (64 MiB a tensor, so that its allocator's cache of
// freed blocks also stays far below libFuzzer's -rss_limit_mb): `ember.eye(29889)`, 3.3 GiB, is
// a valid call whose answer here is ember's out-of-memory error, not a finding.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=256";
}

namespace {

PyObject* g_run = nullptr;

[[noreturn]] void fail(const char* what) {
  if (PyErr_Occurred()) PyErr_Print();
  std::fprintf(stderr, "python_args_fuzzer: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The package and the harness from this build (paths compiled in by tests/fuzz/CMakeLists.txt).
  setenv("PYTHONPATH", EMBER_FUZZ_PYTHONPATH, 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("EMBER_CPU_ALLOCATION_LIMIT_MB", "64", 1);
  Py_Initialize();
  PyObject* harness = PyImport_ImportModule("python_args_harness");
  if (!harness) fail("cannot import python_args_harness (is the ember package built?)");
  g_run = PyObject_GetAttrString(harness, "run");
  if (!g_run) fail("python_args_harness has no run()");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  PyObject* bytes = PyBytes_FromStringAndSize(reinterpret_cast<const char*>(data),
                                              static_cast<Py_ssize_t>(size));
  if (!bytes) fail("PyBytes_FromStringAndSize failed");
  PyObject* result = PyObject_CallOneArg(g_run, bytes);
  Py_DECREF(bytes);
  if (!result) fail("finding (the traceback above)");
  Py_DECREF(result);
  return 0;
}

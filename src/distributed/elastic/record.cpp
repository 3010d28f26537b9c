// record(): an uncaught exception in a worker becomes its error file (error_file.cpp) and exit
// status 1, as PyTorch's @record decorator does for a Python entry point.
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <typeinfo>

#include "ember/distributed/elastic.h"

namespace ember::dist::elastic {
namespace {

// "ember::Error", "std::runtime_error": the dynamic type, as Python prints "ValueError".
std::string type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

// "<type>: <what()>" for the exception in flight.
std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return type_name(typeid(e)) + ": " + e.what();
  } catch (...) {
    const std::type_info* type = abi::__cxa_current_exception_type();
    return (type ? type_name(*type) : std::string("unknown exception")) +
           " (not derived from std::exception)";
  }
}

void report(const std::string& message) {
  write_error_file(message);
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
}

std::terminate_handler previous_handler = nullptr;

[[noreturn]] void on_terminate() {
  // Only the file: the previous (default) handler prints the exception itself.
  if (const std::exception_ptr error = std::current_exception()) {
    write_error_file("terminate called after throwing " + describe(error));
  }
  if (previous_handler != nullptr) previous_handler();
  std::abort();
}

}  // namespace

void install_terminate_handler() {
  static std::once_flag once;
  std::call_once(once, [] { previous_handler = std::set_terminate(&on_terminate); });
}

int record(const std::function<int()>& main) {
  install_terminate_handler();
  try {
    return main();
  } catch (...) {
    report(describe(std::current_exception()));
    return 1;
  }
}

}  // namespace ember::dist::elastic

// What torch::nn's containers (AnyModule, Sequential) need out of line: readable type names for
// their type errors.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "torch/nn/modules/container/any_value.h"

namespace torch::nn::detail {

std::string demangle(const char* mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> readable(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 ? std::string(readable.get()) : std::string(mangled);
}

}  // namespace torch::nn::detail

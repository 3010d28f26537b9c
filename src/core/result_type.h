// result_type over operands the caller already holds (the elementwise front end's initializer
// list), without building the std::vector that the public overload takes.
#pragma once

#include <span>

#include "ember/promotion.h"

namespace ember {

Dtype result_type_of(std::span<const Operand> operands);

}  // namespace ember

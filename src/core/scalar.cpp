// Scalar printing and the dtype a bare number takes.
#include "ember/scalar.h"

#include <ostream>

namespace ember {

Dtype Scalar::dtype() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return kInt64;
    case Kind::Float: return default_dtype();
  }
  return kInt64;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return os << (s.to_bool() ? "True" : "False");
    case Scalar::Kind::Int: return os << s.to_int();
    case Scalar::Kind::Float: return os << s.to_double();
  }
  return os;
}

}  // namespace ember

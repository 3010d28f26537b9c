// Printing of size/stride lists as "[2, 3]".
#include "ember/int_array.h"

#include <ostream>

namespace ember {

std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << '[';
  for (size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << ']';
}

}  // namespace ember

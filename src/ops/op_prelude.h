// The names every op's front end in src/ops writes unqualified: autograd's recording types
// (autograd/function.h). Included instead of repeating the same using-declarations atop each
// op file; internal to src/ops (a public header must not inject names into ember).
#pragma once

#include "autograd/function.h"

namespace ember {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

}  // namespace ember

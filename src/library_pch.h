// The precompiled header of the library's own sources (CMakeLists.txt, EMBER_LIB_PCH): the
// standard and ember headers that most of src/*.cpp include, parsed once per build instead of
// once per file (~1.5 s of each file's compile at -O3). Only headers every file may see: nothing
// that brings names into scope (backend/cpu/vec.h) or depends on a file's own macros.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/function.h"
#include "core/dispatch.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ember/tensor.h"

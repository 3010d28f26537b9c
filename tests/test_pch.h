// The precompiled header every test program shares (tests/CMakeLists.txt, EMBER_TEST_PCH): the
// headers most tests include, parsed once instead of once per test file (~3-4 s each).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <nlohmann/json.hpp>

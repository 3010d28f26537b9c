// Helpers every test program may use, kept here so each exists once: checking that a statement
// throws an ember::Error with a given message, and (golden_support.h) reading PyTorch's golden
// files and comparing results with them.
#pragma once

#include <ember/error.h>
#include <ember/threads.h>
#include <gtest/gtest.h>

#include <exception>
#include <string>

#include "golden_support.h"

namespace ember::test {

/// The message of the ember::Error that `f` throws. Another exception, or none, gives a marker
/// that contains no message text, so a check for a fragment fails and shows what happened.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not an ember::Error: ") + e.what() + ">";
  }
  return "<no error thrown>";
}

/// Restores the thread count however the test exits.
struct ThreadGuard {
  int saved = get_num_threads();
  ~ThreadGuard() { set_num_threads(saved); }
};

}  // namespace ember::test

/// Expects `stmt` to throw an ember::Error whose message contains `text`.
#define EXPECT_ERROR(stmt, text)                                               \
  do {                                                                         \
    const std::string msg_ = ::ember::test::message_of([&] { (void)(stmt); }); \
    EXPECT_NE(msg_.find(text), std::string::npos) << "message: " << msg_;      \
  } while (0)

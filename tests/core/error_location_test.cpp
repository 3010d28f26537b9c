// ember::Error says where: with EMBER_SHOW_CPP_STACKTRACES=1 its message continues with the
// user's call and the C++ stack (src/core/backtrace.cpp); without it the message is only the
// message. This program is built with -g, so with libdw the user's line is named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <ember/ember.h>

using namespace ember;

namespace {

constexpr const char* kMessage = "[view] shape [5] is invalid for input of size 6";

// Sets EMBER_SHOW_CPP_STACKTRACES for one test and removes it after, whatever happens.
struct StackTraceEnv {
  explicit StackTraceEnv(const char* value) { setenv("EMBER_SHOW_CPP_STACKTRACES", value, 1); }
  ~StackTraceEnv() { unsetenv("EMBER_SHOW_CPP_STACKTRACES"); }
};

TEST(ErrorLocation, OnlyTheMessageByDefault) {
  unsetenv("EMBER_SHOW_CPP_STACKTRACES");
  try {
    zeros({6}).view({5});
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), kMessage);
    EXPECT_EQ(e.what_without_backtrace(), kMessage);
  }
}

TEST(ErrorLocation, ZeroTurnsItOff) {
  StackTraceEnv env("0");
  try {
    zeros({6}).view({5});
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), kMessage);
  }
}

TEST(ErrorLocation, StackTraceNamesTheOpAndTheCall) {
  StackTraceEnv env("1");
  Tensor t = zeros({6});
  int line = 0;
  try {
    line = __LINE__; t.view({5});  // the call the trace must name (one line on purpose)
    FAIL() << "expected ember::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_GT(line, 0);
    EXPECT_EQ(e.what_without_backtrace(), kMessage);
    EXPECT_EQ(what.rfind(std::string(kMessage) + "\n", 0), 0u) << what;
    EXPECT_NE(what.find("C++ stack trace (most recent call first):\n  #0 "), std::string::npos)
        << what;
    EXPECT_NE(what.find("ember::Tensor::view("), std::string::npos) << what;
    // The frames that make the error are not shown.
    EXPECT_EQ(what.find("describe_stack"), std::string::npos) << what;
    EXPECT_EQ(what.find("throw_error"), std::string::npos) << what;
#ifdef EMBER_TEST_HAVE_LIBDW
    const size_t called = what.find("  called from: ");
    ASSERT_NE(called, std::string::npos) << what;
    const std::string first = what.substr(called, what.find('\n', called) - called);
    EXPECT_NE(first.find("StackTraceNamesTheOpAndTheCall"), std::string::npos) << first;
    EXPECT_NE(first.find("error_location_test.cpp:" + std::to_string(line)), std::string::npos)
        << first;
#endif
  }
}

}  // namespace

// ember/ember.h is the whole public API: a program that includes it alone reaches every area.
// The areas a program once could not reach through it (autocast, config, the elastic error file,
// the print hooks) are used here; the other areas are what every other test uses.
#include <gtest/gtest.h>

#include <sstream>

#include "ember/ember.h"

namespace ember {
namespace {

TEST(PublicApi, AutocastConfigElasticAndPrintHooksThroughEmberH) {
  const Tensor a = ones({4, 4});
  {
    amp::autocast region(kCPU, kBFloat16);
    EXPECT_EQ(matmul(a, a).dtype(), kBFloat16);
  }
  EXPECT_EQ(matmul(a, a).dtype(), kFloat32);

  EXPECT_EQ(config().rfind("ember ", 0), 0u) << config();

  EXPECT_FALSE(dist::elastic::read_error_file("/nonexistent/ember/error.json").has_value());

  set_tensor_printer([](std::ostream& os, const Tensor& t) { os << "<" << t.numel() << ">"; });
  std::ostringstream printed;
  printed << a;
  set_tensor_printer(nullptr);
  EXPECT_EQ(printed.str(), "<16>");
}

}  // namespace
}  // namespace ember

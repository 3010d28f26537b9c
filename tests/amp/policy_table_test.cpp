// The autocast policy tables against PyTorch 1.13: each device's table names exactly the ops
// the installed library registers for that device's autocast key (tests/golden/autocast.json),
// once each, and the policies the issue checks by hand are the ones listed.
#include "amp/policy_table.h"

#include <set>
#include <string>

#include "test_support.h"

namespace ember::amp {
namespace {

std::set<std::string> table_ops(DeviceType device) {
  std::set<std::string> ops;
  for (const OpPolicy& entry : autocast_policy_table(device)) {
    EXPECT_TRUE(ops.insert(std::string(entry.op)).second) << "listed twice: " << entry.op;
  }
  return ops;
}

std::set<std::string> registered(const std::string& key) {
  const auto golden = test::load_golden("autocast.json");
  return golden["registrations"][key].get<std::set<std::string>>();
}

TEST(AutocastPolicyTable, CpuListsExactlyPyTorchsRegistrations) {
  EXPECT_EQ(table_ops(kCPU), registered("cpu"));
  EXPECT_EQ(autocast_policy_table(kCPU).size(), 126u);
}

TEST(AutocastPolicyTable, CudaListsExactlyPyTorchsRegistrations) {
  EXPECT_EQ(table_ops(kCUDA), registered("cuda"));
  EXPECT_EQ(autocast_policy_table(kCUDA).size(), 107u);
}

TEST(AutocastPolicyTable, CpuPolicies) {
  EXPECT_EQ(autocast_policy(kCPU, "matmul"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCPU, "linear"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCPU, "conv2d"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCPU, "conv2d.padding"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCPU, "mse_loss"), CastPolicy::kFloat32);
  EXPECT_EQ(autocast_policy(kCPU, "cross_entropy_loss"), CastPolicy::kFloat32);
  EXPECT_EQ(autocast_policy(kCPU, "conv_transpose2d"), CastPolicy::kFloat32);  // overload .input
  EXPECT_EQ(autocast_policy(kCPU, "cat"), CastPolicy::kPromote);
  EXPECT_EQ(autocast_policy(kCPU, "stack"), CastPolicy::kPromote);
  // Not listed on CPU: they run in their inputs' dtype.
  for (const char* op : {"exp", "softmax", "log_softmax", "layer_norm", "batch_norm", "gelu",
                         "sum", "mv", "dot"})
    EXPECT_EQ(autocast_policy(kCPU, op), std::nullopt) << op;
}

TEST(AutocastPolicyTable, CudaPolicies) {
  EXPECT_EQ(autocast_policy(kCUDA, "mm"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCUDA, "conv_transpose2d"), CastPolicy::kLowerPrecision);
  EXPECT_EQ(autocast_policy(kCUDA, "exp"), CastPolicy::kFloat32);
  EXPECT_EQ(autocast_policy(kCUDA, "layer_norm"), CastPolicy::kFloat32);
  EXPECT_EQ(autocast_policy(kCUDA, "softmax"), CastPolicy::kFloat32SetOptDtype);
  EXPECT_EQ(autocast_policy(kCUDA, "log_softmax.int"), CastPolicy::kFloat32SetOptDtype);
  EXPECT_EQ(autocast_policy(kCUDA, "norm"), CastPolicy::kFloat32AppendDtype);
  EXPECT_EQ(autocast_policy(kCUDA, "dot"), CastPolicy::kPromote);
  EXPECT_EQ(autocast_policy(kCUDA, "binary_cross_entropy"), CastPolicy::kBanned);
  EXPECT_EQ(autocast_policy(kCUDA, "cat"), std::nullopt);
  EXPECT_EQ(autocast_policy(kCUDA, "batch_norm"), std::nullopt);
}

TEST(AutocastPolicyTable, NamesArePyTorchs) {
  EXPECT_EQ(policy_name(CastPolicy::kLowerPrecision), "lower_precision_fp");
  EXPECT_EQ(policy_name(CastPolicy::kFloat32), "fp32");
  EXPECT_EQ(policy_name(CastPolicy::kPromote), "promote");
}

}  // namespace
}  // namespace ember::amp

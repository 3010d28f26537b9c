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

struct Row {
  DeviceType device;
  const char* op;
  std::optional<CastPolicy> policy;  // nullopt: not listed, runs untouched
};

TEST(AutocastPolicyTable, PoliciesTheIssueChecks) {
  using enum CastPolicy;
  const Row rows[] = {
      {kCPU, "matmul", kLowerPrecision}, {kCPU, "linear", kLowerPrecision},
      {kCPU, "conv2d", kLowerPrecision}, {kCPU, "conv2d.padding", kLowerPrecision},
      {kCPU, "mse_loss", kFloat32}, {kCPU, "cross_entropy_loss", kFloat32},
      {kCPU, "conv_transpose2d", kFloat32},  // its overload .input
      {kCPU, "cat", kPromote}, {kCPU, "stack", kPromote},
      // Not listed on CPU: they run in their inputs' dtype.
      {kCPU, "exp", {}}, {kCPU, "softmax", {}}, {kCPU, "log_softmax", {}},
      {kCPU, "layer_norm", {}}, {kCPU, "batch_norm", {}}, {kCPU, "gelu", {}},
      {kCPU, "sum", {}}, {kCPU, "mv", {}}, {kCPU, "dot", {}},
      {kCUDA, "mm", kLowerPrecision}, {kCUDA, "conv_transpose2d", kLowerPrecision},
      {kCUDA, "exp", kFloat32}, {kCUDA, "layer_norm", kFloat32},
      {kCUDA, "softmax", kFloat32SetOptDtype}, {kCUDA, "log_softmax.int", kFloat32SetOptDtype},
      {kCUDA, "norm", kFloat32AppendDtype}, {kCUDA, "dot", kPromote},
      {kCUDA, "binary_cross_entropy", kBanned}, {kCUDA, "cat", {}}, {kCUDA, "batch_norm", {}},
  };
  for (const Row& r : rows)
    EXPECT_EQ(autocast_policy(r.device, r.op), r.policy) << Device(r.device).str() << " " << r.op;
}

TEST(AutocastPolicyTable, NamesArePyTorchs) {
  EXPECT_EQ(policy_name(CastPolicy::kLowerPrecision), "lower_precision_fp");
  EXPECT_EQ(policy_name(CastPolicy::kFloat32), "fp32");
  EXPECT_EQ(policy_name(CastPolicy::kPromote), "promote");
}

}  // namespace
}  // namespace ember::amp

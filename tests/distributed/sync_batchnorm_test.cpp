// SyncBatchNorm on 2 real processes: each rank's half of a batch gives the outputs, input and
// parameter gradients, and running statistics of BatchNorm over the concatenated batch;
// convert_sync_batchnorm switches a model's BatchNorms in place, and under DDP the converted
// model trains like one process on the whole batch; a rank that skips the forward is named by
// the debug mode (the reference's pitfall 5) instead of hanging.
#include "ember/nn/layers/sync_batchnorm.h"

#include <gtest/gtest.h>

#include "distributed/dist_test_support.h"
#include "distributed/multiprocess.h"
#include "ember/ember.h"
#include "ember/nn/parallel/distributed.h"
#include "test_support.h"

namespace ember::nn {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require;

void require_near(const Tensor& got, const Tensor& want, double atol, const std::string& what) {
  const auto g = test::values(got), w = test::values(want);
  require(g.size() == w.size(), what + ": sizes differ");
  for (size_t i = 0; i < g.size(); ++i)
    require(std::abs(g[i] - w[i]) <= atol + 1e-5 * std::abs(w[i]),
            what + ": element " + std::to_string(i) + " is " + std::to_string(g[i]) +
                ", expected " + std::to_string(w[i]));
}

struct Case {
  Tensor x, out_grad, weight, bias;
};
// A batch of 16 (rank r takes rows [8 r, 8 r + 8)), off-centre so the variance is not trivial.
Case make_case() {
  manual_seed(42);
  return {randn({16, 3, 4, 5}) * 2.0 + 3.0, randn({16, 3, 4, 5}), randn({3}), randn({3})};
}

template <class BN>
void set_affine(BN& bn, const Case& c) {
  NoGradGuard no_grad;
  bn->weight.copy_(c.weight);
  bn->bias.copy_(c.bias);
}

TEST(SyncBatchNorm, EachRanksHalfEqualsBatchNormOverTheConcatenatedBatch) {
  auto exits = on_ranks(2, [](int rank) {
    const Case c = make_case();
    // BatchNorm2d over all 16 samples.
    BatchNorm2d reference(3);
    set_affine(reference, c);
    Tensor x_all = c.x.clone().requires_grad_();
    (reference(x_all) * c.out_grad).sum().backward();
    Tensor y_all = reference(c.x.clone());  // second forward: the statistics move once more
    // SyncBatchNorm over this rank's 8.
    SyncBatchNorm bn(3);
    set_affine(bn, c);
    Tensor x = c.x.narrow(0, 8 * rank, 8).clone().requires_grad_();
    (bn(x) * c.out_grad.narrow(0, 8 * rank, 8)).sum().backward();
    Tensor y = bn(c.x.narrow(0, 8 * rank, 8).clone());
    require_near(y, y_all.narrow(0, 8 * rank, 8), 1e-5, "outputs");
    require_near(x.grad(), x_all.grad().narrow(0, 8 * rank, 8), 1e-5, "input gradients");
    // The parameters' gradients are each rank's share: their sum is the whole batch's.
    for (auto [mine, whole] : {std::pair{bn->weight, reference->weight},
                               std::pair{bn->bias, reference->bias}}) {
      Tensor g = mine.grad().clone();
      dist::all_reduce(g);
      require_near(g, whole.grad(), 1e-4, "parameter gradients summed over ranks");
    }
    require_near(bn->running_mean, reference->running_mean, 1e-5, "running_mean");
    require_near(bn->running_var, reference->running_var, 1e-5, "running_var");
    require(bn->num_batches_tracked.item<int64_t>() == 2, "num_batches_tracked");
    // Eval: the running statistics, locally (no collective: rank 1 alone would hang otherwise).
    bn->eval();
    reference->eval();
    if (rank == 1)
      require_near(bn(c.x.narrow(0, 0, 4)), reference(c.x.narrow(0, 0, 4)), 1e-5, "eval outputs");
  });
  EXPECT_EQ(test::failures(exits), "");
}

struct Net : Module {
  Conv2d conv{nullptr};
  BatchNorm2d bn{nullptr};
  Linear fc{nullptr};
  Net() {
    manual_seed(3);
    conv = register_module("conv", Conv2d(3, 4, 3));
    bn = register_module("bn", BatchNorm2d(4));
    fc = register_module("fc", Linear(4 * 2 * 3, 2));
  }
  Tensor forward(const Tensor& x) { return fc(relu(bn(conv(x))).flatten(1)); }
};

TEST(SyncBatchNorm, AConvertedModelUnderDdpTrainsLikeOneProcessOnTheWholeBatch) {
  auto exits = on_ranks(2, [](int rank) {
    const Case c = make_case();
    const Tensor target = from_vector(std::vector<int64_t>{0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0,
                                                           1, 0, 1, 0});
    auto reference = std::make_shared<Net>();
    optim::SGD ref_opt(reference->parameters(), {.lr = 0.1});
    auto model = convert_sync_batchnorm(std::make_shared<Net>());
    require(model->bn->name() == "SyncBatchNorm", "converted name: " + model->bn->name());
    auto ddp = parallel::DistributedDataParallel(model);
    optim::SGD opt(ddp->parameters(), {.lr = 0.1});
    for (int step = 0; step < 3; ++step) {
      ref_opt.zero_grad();
      functional::cross_entropy(reference->forward(c.x), target).backward();
      ref_opt.step();
      opt.zero_grad();
      functional::cross_entropy(ddp(c.x.narrow(0, 8 * rank, 8)), target.narrow(0, 8 * rank, 8))
          .backward();
      opt.step();
    }
    require_near(utils::parameters_to_vector(model->parameters()).detach(),
                 utils::parameters_to_vector(reference->parameters()).detach(), 1e-5,
                 "parameters after 3 steps");
    require_near(model->bn->running_var, reference->bn->running_var, 1e-5, "running_var");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Pitfall 5: one rank runs the model in eval mode (no statistics to reduce) while the other
// trains; the debug mode names the rank and what it called instead of a hang.
TEST(SyncBatchNorm, ARankSkippingTheForwardIsNamedByTheDebugMode) {
  auto exits = on_ranks(
      2,
      [](int rank) {
        SyncBatchNorm bn(3);
        if (rank == 1) bn->eval();
        const std::string message = test::message_of([&] {
          bn(ones({4, 3}));
          dist::barrier();
        });
        require(message.find("collectives differ across ranks") != std::string::npos, message);
        require(message.find("rank 1 called barrier()") != std::string::npos, message);
        require(message.find("rank 0 called all_reduce(torch.float64 [7], SUM)") !=
                    std::string::npos,
                message);
      },
      test::kDebugMode, 2s);
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::nn

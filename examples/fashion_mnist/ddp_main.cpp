// ember-train-fashion-mnist-ddp: the reference's DistributedDataParallel program in C++, for
// the reference CNN (or the MLP) on Fashion-MNIST. Launch it like the reference:
//
//   ember-run --standalone --nproc-per-node=2 ember-train-fashion-mnist-ddp --epochs 3
//   ember-run --standalone --nproc-per-node=2 ember-train-fashion-mnist-ddp --device cuda
//
// --device cuda is the reference's GPU program: backend "nccl", rank r on cuda:LOCAL_RANK
// (modulo the GPUs visible, so that N ranks may share one GPU where NCCL allows it).
//
// Each rank trains on its DistributedSampler shard (set_epoch every epoch, drop_last), through
// DDP, AdamW and clip_grad_norm_; --accumulation-steps N skips the all-reduce (no_sync) on the
// non-boundary steps. Rank 0 alone writes <output-dir>/checkpoint.pt (ddp->module()'s state
// dict, without "module.") after every epoch and every rank waits at a barrier; a checkpoint
// found at start is resumed by every rank (map_location = CPU), so ember-run --max-restarts
// continues a run whose rank died. Rank 0 alone prints; the metrics are averaged over the ranks.
// Dropout draws from a generator seeded per (seed, rank, epoch), so a resumed run repeats an
// uninterrupted one. The single-process job is ember-train-fashion-mnist, unchanged.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>
#include <ember/data.h>
#include <ember/distributed/elastic.h>
#include <ember/ember.h>

#include "trainer.h"

namespace {

using namespace ember;
namespace F = nn::functional;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kOp = "fashion-mnist-ddp";

struct Config {
  int64_t epochs = 3;
  int64_t batch_size = 64;  // per rank
  int64_t accumulation_steps = 1;
  double lr = 1e-3;
  double weight_decay = 0.01;
  double max_grad_norm = 1.0;
  int64_t workers = 1;
  int64_t threads = 0;
  uint64_t seed = 0;
  std::string data_dir = "";
  std::string output_dir = "runs/fashion-mnist-ddp";
  std::string model = "cnn";
  double dropout = 0.25;
  int64_t limit = 0;
  int64_t val_limit = 0;
  std::string device = "cpu";
};

using Examples = std::shared_ptr<data::Dataset<data::Example>>;

Examples subset(Examples dataset, std::vector<int64_t> indices) {
  return std::make_shared<data::Subset<data::Example>>(std::move(dataset), std::move(indices));
}

// Sums over the ranks, in float64, on the group's device (an nccl group takes CUDA tensors).
std::vector<double> sum_over_ranks(const std::vector<double>& values, Device device) {
  Tensor t = from_vector(values).to(device);
  dist::all_reduce(t);
  return t.cpu().tolist<double>();
}

// --device cuda: this rank's GPU, cuda:LOCAL_RANK as the reference's, made current (so that
// NCCL's barrier uses it too).
Device rank_device(const std::string& name) {
  if (name == "cpu") return Device(kCPU);
  EMBER_CHECK(cuda::is_available(), kOp, "--device cuda: no CUDA device here (ember built "
              "without CUDA, or no GPU visible)");
  const char* local = std::getenv("LOCAL_RANK");
  const int index = (local ? std::atoi(local) : 0) % cuda::device_count();
  cuda::set_device(index);
  return Device(kCUDA, index);
}

// What a checkpoint must agree on to be continued.
Dict run_identity(const Config& c, int world) {
  return Dict{{"model", c.model},           {"batch_size", c.batch_size},
              {"world_size", int64_t(world)}, {"accumulation_steps", c.accumulation_steps},
              {"limit", c.limit},           {"seed", int64_t(c.seed)},
              {"dropout", c.dropout}};
}

void check_identity(const Value& saved, const Dict& now, const std::string& path) {
  for (const auto& [key, value] : now) {
    const Value s = saved[key.to_string()];
    EMBER_CHECK(s == value, kOp, "cannot resume ", path, ": it was trained with ", key.to_string(),
                " = ", s, ", this run has ", value, " (use another --output-dir)");
  }
}

struct Validation {
  double loss = 0, accuracy = 0;
};

// Each rank evaluates every world-th test image; the sums are combined over the ranks.
Validation validate(nn::Module& model, const nn::Sequential& net, data::DataLoader<>& loader,
                    Device device) {
  model.eval();
  NoGradGuard no_grad;
  double loss_sum = 0, correct = 0, count = 0;
  for (auto& [images, labels] : loader) {
    const Tensor x = images.to(device), y = labels.to(device);
    Tensor output = net->forward(x);
    loss_sum += F::cross_entropy(output, y, {.reduction = "sum"}).item<double>();
    correct += double((output.argmax(1) == y).sum().item<int64_t>());
    count += double(x.size(0));
  }
  const auto total = sum_over_ranks({loss_sum, correct, count}, device);
  return {total[0] / total[2], total[1] / total[2]};
}

int train(const Config& c) {
  EMBER_CHECK(c.epochs > 0 && c.batch_size > 0 && c.accumulation_steps > 0, kOp,
              "--epochs, --batch-size and --accumulation-steps must be positive");
  const Device device = rank_device(c.device);
  dist::init_process_group({.backend = device.is_cuda() ? "nccl" : "gloo"});
  const int rank = dist::get_rank(), world = dist::get_world_size();
  if (c.threads > 0) set_num_threads(int(c.threads));
  std::ostream* out = rank == 0 ? &std::cout : nullptr;

  // ── data ──
  auto [train_set, test_set] = fashion_mnist::load_datasets(c.data_dir, c.limit, c.val_limit);
  auto sampler = std::make_shared<data::DistributedSampler>(
      *train_set, data::DistributedSamplerOptions{.num_replicas = world, .rank = rank,
                                                  .shuffle = true, .seed = c.seed});
  data::DataLoader<> train_loader(train_set, {.batch_size = c.batch_size, .sampler = sampler,
                                              .num_workers = c.workers, .drop_last = true});
  std::vector<int64_t> my_test;
  for (int64_t i = rank; i < test_set->size(); i += world) my_test.push_back(i);
  data::DataLoader<> test_loader(subset(test_set, my_test),
                                 {.batch_size = 2 * c.batch_size, .num_workers = c.workers});

  // ── model, DDP, optimizer ──
  manual_seed(c.seed);
  nn::Sequential net = fashion_mnist::make_model(c.model, c.dropout);
  net->to(device);  // before DDP and the optimizer take the parameters, as in PyTorch
  auto ddp = nn::parallel::DistributedDataParallel(net);
  optim::AdamW optimizer(ddp->parameters(), {.lr = c.lr, .weight_decay = c.weight_decay});

  // ── resume (every rank reads rank 0's checkpoint) ──
  const fs::path dir = c.output_dir;
  const std::string ckpt_path = (dir / "checkpoint.pt").string();
  const Dict identity = run_identity(c, world);
  int64_t start_epoch = 0;
  if (fs::exists(ckpt_path)) {
    // map_location: on CPU every tensor loads onto the CPU already (a no-op kept for the
    // reference's shape of the call).
    Value ck = load(ckpt_path, {.map_location = kCPU});
    check_identity(ck["run"], identity, ckpt_path);
    ddp->module()->load_state_dict(ck["model"].to_state_dict());
    optimizer.load_state_dict(ck["optimizer"]);
    start_epoch = ck["epoch"].to_int() + 1;
    if (out) *out << "Resumed from " << ckpt_path << " at epoch " << start_epoch << "\n";
  } else if (out) {
    *out << "Training " << c.model << " on " << train_set->size() << " Fashion-MNIST images with "
         << world << " ranks: " << train_loader.size() << " batches of " << c.batch_size
         << " per rank and epoch, effective batch " << c.batch_size * c.accumulation_steps * world
         << " (batch " << c.batch_size << " x accumulation " << c.accumulation_steps << " x world "
         << world << "), " << c.epochs << " epochs, " << get_num_threads() << " threads per rank\n";
  }
  if (rank == 0) fs::create_directories(dir);

  Validation v;
  for (int64_t epoch = start_epoch; epoch < c.epochs; ++epoch) {
    const auto start = Clock::now();
    sampler->set_epoch(epoch);  // the reference's "CRITICAL for proper shuffling"
    manual_seed(c.seed + 1000003 * uint64_t(rank) + uint64_t(epoch));  // dropout
    ddp->train();
    optimizer.zero_grad();
    double loss_sum = 0;
    int64_t step = 0;
    for (auto& [images, labels] : train_loader) {
      // On the device; named tensors, not the bindings (Clang 14 lets no lambda capture one).
      const Tensor x = images.to(device), y = labels.to(device);
      const bool boundary = (step + 1) % c.accumulation_steps == 0;
      auto forward_backward = [&] {
        Tensor loss = F::cross_entropy(ddp(x), y);
        (loss / double(c.accumulation_steps)).backward();
        loss_sum += loss.item<double>();
      };
      if (!boundary) {
        auto no_sync = ddp->no_sync();  // the all-reduce waits for the boundary step
        forward_backward();
      } else {
        forward_backward();
        nn::utils::clip_grad_norm_(ddp->parameters(), c.max_grad_norm);
        optimizer.step();
        optimizer.zero_grad();
      }
      ++step;
    }
    const double train_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const auto train_total = sum_over_ranks({loss_sum, double(step), double(step * c.batch_size),
                                             train_seconds}, device);
    v = validate(*ddp, net, test_loader, device);

    if (rank == 0) {
      save(Dict{{"epoch", epoch},
                {"model", ddp->module()->state_dict()},  // .module(): no "module." prefix
                {"optimizer", optimizer.state_dict()},
                {"run", identity}},
           ckpt_path);
    }
    dist::barrier();  // nobody reads the checkpoint before rank 0 has written it

    if (out) {
      char line[200];
      std::snprintf(line, sizeof line,
                    "Epoch %lld | Train: %.4f | Val: %.4f | Acc: %.4f | %.0f img/s (%d ranks)",
                    (long long)epoch, train_total[0] / train_total[1], v.loss, v.accuracy,
                    train_total[2] / (train_total[3] / world), world);
      *out << line << "\n" << std::flush;
    }
  }
  if (out) {
    char line[120];
    std::snprintf(line, sizeof line, "Test accuracy %.4f", v.accuracy);
    *out << line << "\n" << std::flush;
  }
  dist::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  CLI::App app{"Train the reference CNN (or an MLP) on Fashion-MNIST with DistributedDataParallel "
               "on every rank ember-run starts: the reference's DDP program."};
  app.add_option("--epochs", c.epochs, "Epochs to train")->capture_default_str();
  app.add_option("--batch-size", c.batch_size, "Batch size per rank")->capture_default_str();
  app.add_option("--accumulation-steps", c.accumulation_steps,
                 "Optimizer step every N batches; the N-1 others skip the all-reduce (no_sync)")
      ->capture_default_str();
  app.add_option("--lr", c.lr, "AdamW learning rate")->capture_default_str();
  app.add_option("--weight-decay", c.weight_decay, "AdamW decoupled weight decay")
      ->capture_default_str();
  app.add_option("--max-grad-norm", c.max_grad_norm, "clip_grad_norm_ bound")
      ->capture_default_str();
  app.add_option("--workers", c.workers, "DataLoader worker threads per rank")
      ->capture_default_str();
  app.add_option("--threads", c.threads, "Compute threads per rank (0: OMP_NUM_THREADS, which "
                                         "ember-run sets to 1)")
      ->capture_default_str();
  app.add_option("--seed", c.seed, "Seed for initialisation, shuffling and dropout")
      ->capture_default_str();
  app.add_option("--data-dir", c.data_dir, "Directory with the Fashion-MNIST idx files");
  app.add_option("--output-dir", c.output_dir, "Where rank 0 writes checkpoint.pt")
      ->capture_default_str();
  app.add_option("--model", c.model, "cnn or mlp")
      ->check(CLI::IsMember({"cnn", "mlp"}))
      ->capture_default_str();
  app.add_option("--dropout", c.dropout, "Dropout probability (the reference's 0.25)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--limit", c.limit, "Train on the first N training images (0: all)");
  app.add_option("--val-limit", c.val_limit, "Validate on the first N test images (0: all)");
  app.add_option("--device", c.device, "cpu (backend gloo) or cuda (backend nccl, one GPU per "
                                       "local rank)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return dist::elastic::record([&] { return train(c); });
}

// The training loop of the reference (train phase, no-grad validation, scheduler step, one line
// per epoch) and the run's files: checkpoint.pt, model.pt, metrics.csv, summary.json.
//
// Note [Exact resume]
// A run is a function of the checkpoint: the model, optimizer and scheduler states, the default
// generator (dropout) and the shuffling generator as they were when the epoch started. The loader
// draws its worker seed and the epoch's permutation from that generator at begin(), so restoring
// it replays the same order; a checkpoint taken mid-epoch (Ctrl-C) also records how many batches
// were done and their loss sum, and the resumed pass skips those batches. Validation uses its own
// generator, so evaluating never moves a training stream.
//
// The run's files are written after every epoch: checkpoint.pt, metrics.csv and report.html
// (report.cpp); summary.json and model.pt at the end. With --profile-steps N the profiler
// records N steps after kProfileSkip + 1 warm-up steps and writes trace.json and profile.txt.
#include "trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <sstream>

#include <ember/amp/autocast.h>
#include <ember/amp/grad_scaler.h>
#include <ember/data.h>
#include <ember/ember.h>
#include <ember/nn/utils.h>
#include <ember/optim.h>
#include <ember/profiler.h>
#include <ember/serialize.h>
#include <nlohmann/json.hpp>

#include "progress.h"
#include "report.h"

namespace fashion_mnist {

using namespace ember;
namespace F = nn::functional;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kOp = "fashion-mnist";
// Fashion-MNIST's training-set mean and standard deviation (the reference's Normalize values).
constexpr double kMean = 0.2860, kStd = 0.3530;
// --profile-steps: steps left out before the profiler's one warm-up step (first-touch
// allocations, the loader's prefetch filling).
constexpr int64_t kProfileSkip = 5;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Tensor bytes_to_tensor(const std::vector<uint8_t>& bytes) {
  Tensor t = empty({int64_t(bytes.size())}, {.dtype = kUInt8});
  std::memcpy(t.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  return t;
}

std::vector<uint8_t> tensor_to_bytes(const Tensor& t) {
  EMBER_CHECK(t.dtype() == kUInt8 && t.dim() == 1, kOp, "checkpoint RNG state must be a 1-D "
              "uint8 tensor, got ", t.sizes());
  Tensor c = t.contiguous();
  const uint8_t* p = c.data_ptr<uint8_t>();
  return {p, p + c.numel()};
}

// The settings a checkpoint must agree on to be continued: a different model, batch, data slice,
// epoch count (the cosine schedule's length) or precision would make "resume" a different run.
// `amp` is resolved (never empty) by the time this is called.
Dict run_identity(const TrainConfig& c) {
  return Dict{{"model", c.model},          {"batch_size", c.batch_size}, {"limit", c.limit},
              {"seed", int64_t(c.seed)},   {"epochs", c.epochs},         {"amp", c.amp},
              {"device", c.device}};
}

// --device's device: the CPU, or a CUDA device this process can use (a CUDA build with a GPU).
Device training_device(const std::string& name) {
  EMBER_CHECK(name == "cpu" || name == "cuda" || name.rfind("cuda:", 0) == 0, kOp,
              "--device must be cpu, cuda or cuda:N, got '", name, "'");
  const Device device(name);
  EMBER_CHECK(device.is_cpu() || cuda::is_available(), kOp, "--device ", name,
              ": no CUDA device here (ember built without CUDA, or no GPU visible)");
  return device;
}

// --amp's value: the given one, else the checkpoint's on --resume (checkpoints from before --amp
// existed trained in float32), else none.
std::string resolve_amp(const TrainConfig& c, const Value& checkpoint) {
  EMBER_CHECK(c.amp.empty() || c.amp == "none" || c.amp == "bf16" || c.amp == "fp16", kOp,
              "--amp must be none, bf16 or fp16, got '", c.amp, "'");
  if (!c.amp.empty()) return c.amp;
  if (c.resume) {
    const Value& run = checkpoint["run"];
    return run.to_dict().contains(Value("amp")) ? run["amp"].to_string() : "none";
  }
  return "none";
}

// The autocast region of one forward pass, or nothing in float32 runs.
struct AmpRegion {
  std::optional<amp::autocast> region;
  AmpRegion(const std::string& mode, Device device) {
    if (mode != "none") region.emplace(device.type(), mode == "fp16" ? kFloat16 : kBFloat16);
  }
};

void check_identity(const Value& saved, const TrainConfig& c, const std::string& path) {
  // What a checkpoint from before --amp (--device) existed trained with: float32, on the CPU.
  const Dict older{{"amp", "none"}, {"device", "cpu"}};
  const Dict now = run_identity(c);
  for (const auto& [key, value] : now) {
    const Value s = !saved.to_dict().contains(key) && older.contains(key) ? older.at(key)
                                                                          : saved[key.to_string()];
    const bool same = value.is_string() ? s.is_string() && s.to_string() == value.to_string()
                                        : s.is_int() && s.to_int() == value.to_int();
    if (!same) {
      std::ostringstream os;
      os << s;
      std::string flag = key.to_string();
      std::replace(flag.begin(), flag.end(), '_', '-');
      fail(kOp, "cannot resume ", path, ": it was trained with --", flag, " ",
           os.str(), ", this run has ", value, " (use another --output-dir for a new run)");
    }
  }
}

Dict metrics_to_dict(const EpochMetrics& m) {
  return Dict{{"epoch", m.epoch},       {"train_loss", m.train_loss},
              {"val_loss", m.val_loss}, {"accuracy", m.accuracy},
              {"lr", m.lr},             {"seconds", m.seconds},
              {"images_per_second", m.images_per_second}};
}

EpochMetrics metrics_from_dict(const Value& d) {
  return {d["epoch"].to_int(),    d["train_loss"].to_double(), d["val_loss"].to_double(),
          d["accuracy"].to_double(), d["lr"].to_double(),     d["seconds"].to_double(),
          d["images_per_second"].to_double()};
}

// Writes through a temporary file and a rename, so readers never see half a file.
void write_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    EMBER_CHECK(f.good(), kOp, "cannot write ", tmp.string());
    f << text;
    f.flush();
    EMBER_CHECK(f.good(), kOp, "writing ", tmp.string(), " failed");
  }
  fs::rename(tmp, path);
}

std::string metrics_csv(const std::vector<EpochMetrics>& history) {
  std::ostringstream os;
  os << "epoch,train_loss,val_loss,val_accuracy,lr,epoch_seconds,train_images_per_second\n";
  os << std::setprecision(9);
  for (const auto& m : history) {
    os << m.epoch << ',' << m.train_loss << ',' << m.val_loss << ',' << m.accuracy << ','
       << m.lr << ',' << m.seconds << ',' << m.images_per_second << '\n';
  }
  return os.str();
}

std::string epoch_line(const EpochMetrics& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "Epoch %lld | Train: %.4f | Val: %.4f | Acc: %.4f | LR: %.6f",
                (long long)m.epoch, m.train_loss, m.val_loss, m.accuracy, m.lr);
  return buf;
}

struct Validation {
  double loss = 0, accuracy = 0;
};

// The reference's validation phase: eval mode, no graph, mean batch loss and accuracy; the
// forward runs in the training's precision.
Validation validate(nn::Sequential& model, data::DataLoader<>& loader, const std::string& amp,
                    Device device) {
  model->eval();
  NoGradGuard no_grad;
  double loss_sum = 0;
  int64_t correct = 0;
  for (auto& [images, labels] : loader) {
    const Tensor x = images.to(device), y = labels.to(device);
    const AmpRegion region(amp, device);
    Tensor output = model->forward(x);
    loss_sum += F::cross_entropy(output, y).item<double>();
    correct += (output.argmax(1) == y).sum().item<int64_t>();
  }
  return {loss_sum / double(loader.size()), double(correct) / double(loader.dataset().size())};
}

// The first n samples of `dataset` (all when n is 0 or too large).
std::shared_ptr<data::Dataset<data::Example>> first(
    std::shared_ptr<data::Dataset<data::Example>> dataset, int64_t n) {
  if (n <= 0 || n >= dataset->size()) return dataset;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t(0));
  return std::make_shared<data::Subset<data::Example>>(std::move(dataset), std::move(idx));
}

}  // namespace

nn::Sequential make_model(const std::string& name, double dropout) {
  if (name == "cnn") {
    // (N, 1, 28, 28) -> (N, 32, 14, 14) -> (N, 64, 7, 7) -> 3136 -> 128 -> 10
    return nn::Sequential(
        nn::Conv2d(1, 32, 3, {.padding = 1}), nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2),
        nn::Conv2d(32, 64, 3, {.padding = 1}), nn::BatchNorm2d(64), nn::ReLU(), nn::MaxPool2d(2),
        nn::Flatten(), nn::Linear(3136, 128), nn::ReLU(), nn::Dropout(dropout), nn::Linear(128, 10));
  }
  if (name == "mlp") {
    // (N, 1, 28, 28) -> 784 -> 512 -> 256 -> 10
    return nn::Sequential(nn::Flatten(), nn::Linear(784, 512), nn::ReLU(), nn::Dropout(dropout),
                          nn::Linear(512, 256), nn::ReLU(), nn::Dropout(dropout),
                          nn::Linear(256, 10));
  }
  fail(kOp, "unknown model '", name, "' (expected cnn or mlp)");
}

Datasets load_datasets(const std::string& data_dir, int64_t limit, int64_t test_limit) {
  const auto transform = data::transforms::Compose(
      {data::transforms::ToTensor(), data::transforms::Normalize({kMean}, {kStd})});
  auto images = [&](bool train) -> std::shared_ptr<data::Dataset<data::Example>> {
    return std::make_shared<data::FashionMNIST>(
        data::MNISTOptions{.root = data_dir, .train = train, .transform = transform});
  };
  return {first(images(true), limit), first(images(false), test_limit)};
}

TrainResult train(const TrainConfig& config, const TrainIO& io) {
  const auto wall_start = Clock::now();
  TrainConfig c = config;
  EMBER_CHECK(c.epochs > 0, kOp, "--epochs must be positive, got ", c.epochs);
  EMBER_CHECK(c.batch_size > 0, kOp, "--batch-size must be positive, got ", c.batch_size);
  EMBER_CHECK(c.lr > 0, kOp, "--lr must be positive, got ", c.lr);
  EMBER_CHECK(c.weight_decay >= 0, kOp, "--weight-decay must be >= 0, got ", c.weight_decay);
  EMBER_CHECK(c.workers >= 0, kOp, "--workers must be >= 0, got ", c.workers);
  EMBER_CHECK(c.threads >= 0, kOp, "--threads must be >= 0, got ", c.threads);
  EMBER_CHECK(c.limit >= 0, kOp, "--limit must be >= 0, got ", c.limit);
  EMBER_CHECK(c.val_limit >= 0, kOp, "--val-limit must be >= 0, got ", c.val_limit);
  EMBER_CHECK(c.stop_after >= 0, kOp, "--stop-after must be >= 0, got ", c.stop_after);
  EMBER_CHECK(c.profile_steps >= 0, kOp, "--profile-steps must be >= 0, got ", c.profile_steps);
  if (c.threads > 0) set_num_threads(int(c.threads));
  std::ostream* out = io.out;

  TrainResult result;
  const fs::path dir = c.output_dir;
  fs::create_directories(dir);
  result.checkpoint_path = (dir / "checkpoint.pt").string();
  result.weights_path = (dir / "model.pt").string();
  result.metrics_path = (dir / "metrics.csv").string();
  result.summary_path = (dir / "summary.json").string();
  result.report_path = (dir / "report.html").string();

  // A checkpoint of another configuration is refused before any data is read.
  Value ck;
  if (c.resume) {
    EMBER_CHECK(fs::exists(result.checkpoint_path), kOp, "--resume: no checkpoint at ",
                result.checkpoint_path);
    ck = load(result.checkpoint_path);
  }
  c.amp = resolve_amp(c, ck);
  const Device device = training_device(c.device);
  if (c.resume) check_identity(ck["run"], c, result.checkpoint_path);

  // ── data ── uint8 images become normalised float (1, 28, 28) in the loader's workers.
  // Fashion-MNIST has no validation split: validation runs on the 10,000 test images, so the
  // per-epoch Acc is the test accuracy.
  auto [train_set, val_set] = load_datasets(c.data_dir, c.limit, c.val_limit);
  // Shuffling draws from its own generator (saved in checkpoints), dropout from the default one.
  Generator shuffle_gen(c.seed + 1);
  data::DataLoader<> train_loader(train_set, {.batch_size = c.batch_size, .shuffle = true,
                                              .num_workers = c.workers,
                                              .generator = &shuffle_gen});
  data::DataLoader<> val_loader(val_set, {.batch_size = 2 * c.batch_size,
                                          .num_workers = c.workers,
                                          .seed = c.seed});

  // ── model, optimizer, scheduler ──
  manual_seed(c.seed);
  nn::Sequential model = make_model(c.model);
  model->to(device);  // before the optimizer takes the parameters, as in PyTorch
  const std::vector<Tensor> params = model->parameters();
  optim::AdamW optimizer(params, {.lr = c.lr, .weight_decay = c.weight_decay});
  optim::CosineAnnealingLR scheduler(optimizer, {.T_max = c.epochs});
  // float16 needs loss scaling (its range ends at 65504); bfloat16 has float32's range.
  amp::GradScaler scaler({.enabled = c.amp == "fp16"});

  // ── resume ──
  int64_t start_epoch = 0, skip_batches = 0;
  double resumed_loss_sum = 0;
  if (c.resume) {
    model->load_state_dict(ck["model"].to_state_dict());
    optimizer.load_state_dict(ck["optimizer"]);
    scheduler.load_state_dict(ck["scheduler"]);
    if (scaler.is_enabled()) scaler.load_state_dict(ck["scaler"].to_dict());
    default_generator().set_state(tensor_to_bytes(ck["rng_state"].to_tensor()));
    shuffle_gen.set_state(tensor_to_bytes(ck["shuffle_rng_state"].to_tensor()));
    for (const Value& m : ck["history"].to_list()) result.history.push_back(metrics_from_dict(m));
    start_epoch = ck["epoch"].to_int() + 1;
    skip_batches = ck["batch"].to_int();
    resumed_loss_sum = ck["train_loss_sum"].to_double();
    if (out) {
      *out << "Resumed from " << result.checkpoint_path << " at epoch " << start_epoch;
      if (skip_batches > 0) *out << ", batch " << skip_batches;
      *out << "\n";
    }
  } else if (out) {
    if (fs::exists(result.checkpoint_path)) {
      *out << "Note: starting a new run; " << result.checkpoint_path
           << " will be replaced (--resume continues it)\n";
    }
    *out << "Training " << c.model << " on " << train_set->size() << " Fashion-MNIST images ("
         << train_loader.size() << " batches of " << c.batch_size << "), validating on "
         << val_set->size() << ", " << c.epochs << " epochs, " << get_num_threads()
         << " threads, " << c.workers << " loader workers";
    if (c.amp != "none") *out << ", " << c.amp << " autocast";
    *out << "\n";
  }

  // `epoch` is the last finished epoch; `batch`/`loss_sum` describe the one in progress.
  auto save_checkpoint = [&](int64_t last_done, int64_t batch, double loss_sum,
                             const std::vector<uint8_t>& shuffle_state) {
    List history;
    for (const auto& m : result.history) history.push_back(metrics_to_dict(m));
    save(Dict{{"epoch", last_done},
              {"batch", batch},
              {"train_loss_sum", loss_sum},
              {"model", model->state_dict()},
              {"optimizer", optimizer.state_dict()},
              {"scheduler", scheduler.state_dict()},
              {"scaler", scaler.state_dict()},
              {"rng_state", bytes_to_tensor(default_generator().get_state())},
              {"shuffle_rng_state", bytes_to_tensor(shuffle_state)},
              {"history", history},
              {"run", run_identity(c)}},
         result.checkpoint_path);
  };

  // --profile-steps: one scheduled profile over the first training steps of this run.
  std::optional<profiler::profile> prof;
  if (c.profile_steps > 0) {
    prof.emplace(profiler::ProfileOptions{
        .schedule = profiler::schedule({.wait = 0, .warmup = 1, .active = c.profile_steps,
                                        .repeat = 1, .skip_first = kProfileSkip}),
        .on_trace_ready =
            [&](profiler::profile& p) {
              const std::string trace = (dir / "trace.json").string();
              const std::string table = (dir / "profile.txt").string();
              p.export_chrome_trace(trace);
              write_atomically(table, p.key_averages().table({.sort_by = "self_cpu_time_total",
                                                              .row_limit = 30}));
              result.trace_path = trace;
              result.profile_table_path = table;
              if (out)
                *out << "Profiled " << c.profile_steps << " training steps: " << trace << ", "
                     << table << "\n";
            },
        .record_shapes = true,
        .profile_memory = true});
  }

  Progress progress(out, io.tty);
  int64_t images_seen = 0;
  double train_seconds = 0;
  result.first_loss = std::numeric_limits<double>::quiet_NaN();
  int64_t epochs_this_run = 0;

  for (int64_t epoch = start_epoch; epoch < c.epochs; ++epoch) {
    const auto epoch_start = Clock::now();
    // The state the pass starts from: a checkpoint taken during the epoch replays from it.
    const std::vector<uint8_t> shuffle_state = shuffle_gen.get_state();
    const int64_t skip = std::exchange(skip_batches, 0);
    double loss_sum = std::exchange(resumed_loss_sum, 0.0);
    int64_t batch = 0, epoch_images = 0;

    // ── train phase ──
    model->train();
    progress.start(epoch, c.epochs, train_loader.size(), skip);
    for (auto& [images, labels] : train_loader) {
      if (batch < skip) {  // done before the interruption (Note [Exact resume])
        ++batch;
        continue;
      }
      std::optional<profiler::record_function> step_range;
      if (prof) step_range.emplace("training_step");
      const Tensor x = images.to(device), y = labels.to(device);
      optimizer.zero_grad();
      Tensor loss;
      {
        const AmpRegion region(c.amp, device);
        Tensor output = model->forward(x);
        loss = F::cross_entropy(output, y);
      }
      // A disabled scaler (float32, bf16) passes everything through.
      scaler.scale(loss).backward();
      scaler.unscale_(optimizer);  // clip the true gradients
      nn::utils::clip_grad_norm_(params, c.max_grad_norm);
      scaler.step(optimizer);
      scaler.update();
      step_range.reset();
      if (prof) {
        prof->step();
        if (prof->step_num() >= kProfileSkip + 1 + c.profile_steps) prof.reset();  // saved
      }

      const double l = loss.item<double>();
      if (std::isnan(result.first_loss)) result.first_loss = l;
      loss_sum += l;
      ++batch;
      epoch_images += x.size(0);
      progress.update(batch, loss_sum / double(batch), epoch_images);
      if (io.on_step) io.on_step(epoch, batch);
      if (io.stop && io.stop->load() && batch < train_loader.size()) {
        progress.finish();
        save_checkpoint(epoch - 1, batch, loss_sum, shuffle_state);
        result.interrupted = true;
        break;
      }
    }
    const double epoch_train_seconds = seconds_since(epoch_start);
    train_seconds += epoch_train_seconds;
    images_seen += epoch_images;
    if (result.interrupted) break;
    progress.finish();

    // ── validation phase, scheduler step ──
    const Validation v = validate(model, val_loader, c.amp, device);
    scheduler.step();

    EpochMetrics m{.epoch = epoch,
                   .train_loss = loss_sum / double(train_loader.size()),
                   .val_loss = v.loss,
                   .accuracy = v.accuracy,
                   .lr = optimizer.param_groups()[0].lr(),
                   .seconds = seconds_since(epoch_start),
                   .images_per_second = double(epoch_images) / epoch_train_seconds};
    result.history.push_back(m);
    if (out) *out << epoch_line(m) << "\n" << std::flush;
    save_checkpoint(epoch, 0, 0.0, shuffle_gen.get_state());
    write_atomically(result.metrics_path, metrics_csv(result.history));
    write_atomically(result.report_path, render_report(make_report(c, result.history, nullptr)));
    ++epochs_this_run;
    // Ctrl-C during validation stops here, after the epoch's checkpoint.
    if (io.stop && io.stop->load()) {
      result.interrupted = epoch + 1 < c.epochs;
      break;
    }
    if (c.stop_after > 0 && epochs_this_run >= c.stop_after) break;
  }

  prof.reset();  // a run shorter than the profiled steps writes what it recorded
  result.finished = !result.history.empty() && result.history.back().epoch == c.epochs - 1;
  // model.pt holds CPU tensors whatever the device, so torch.load reads it on any machine.
  if (result.finished) {
    StateDict weights;
    for (const auto& [name, t] : model->state_dict()) weights.insert(name, t.cpu());
    save(weights, result.weights_path);
  }
  if (!result.history.empty()) {
    result.test_accuracy = result.history.back().accuracy;
  } else {
    result.test_accuracy = validate(model, val_loader, c.amp, device).accuracy;
  }
  result.wall_seconds = seconds_since(wall_start);
  result.images_per_second = train_seconds > 0 ? double(images_seen) / train_seconds : 0;

  nlohmann::ordered_json summary = {
      {"model", c.model},
      {"config",
       {{"epochs", c.epochs}, {"batch_size", c.batch_size}, {"lr", c.lr},
        {"weight_decay", c.weight_decay}, {"max_grad_norm", c.max_grad_norm},
        {"workers", c.workers}, {"threads", get_num_threads()}, {"seed", c.seed},
        {"limit", c.limit}, {"val_limit", c.val_limit}, {"amp", c.amp}}},
      {"train_images", train_set->size()},
      {"test_images", val_set->size()},
      {"finished", result.finished},
      {"interrupted", result.interrupted},
      {"test_accuracy", result.test_accuracy},
      {"wall_seconds", result.wall_seconds},
      {"train_images_per_second", result.images_per_second},
      {"files",
       {{"checkpoint", result.checkpoint_path}, {"metrics", result.metrics_path},
        {"weights", result.finished ? nlohmann::ordered_json(result.weights_path) : nullptr}}},
      {"epochs", nlohmann::ordered_json::array()}};
  for (const auto& m : result.history) {
    summary["epochs"].push_back({{"epoch", m.epoch}, {"train_loss", m.train_loss},
                                 {"val_loss", m.val_loss}, {"accuracy", m.accuracy},
                                 {"lr", m.lr}, {"seconds", m.seconds},
                                 {"images_per_second", m.images_per_second}});
  }
  write_atomically(result.summary_path, summary.dump(2) + "\n");
  write_atomically(result.report_path, render_report(make_report(c, result.history, &result)));
  return result;
}

}  // namespace fashion_mnist

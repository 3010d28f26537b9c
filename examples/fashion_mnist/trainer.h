// The Fashion-MNIST job: the reference's training loop (train phase, no-grad validation,
// scheduler step, the per-epoch line) around a checkpoint that resumes exactly — mid-epoch too —
// plus progress reporting and the metric files. main.cpp is its command line; tests/train
// drive train() directly.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <ember/data/dataset.h>
#include <ember/nn.h>

namespace fashion_mnist {

/// Everything a run depends on (the command-line options).
struct TrainConfig {
  int64_t epochs = 5;
  int64_t batch_size = 128;
  double lr = 1e-3;
  double weight_decay = 0.01;
  double max_grad_norm = 1.0;  // clip_grad_norm_ bound, as the reference
  int64_t workers = 2;         // DataLoader worker threads
  int64_t threads = 0;         // compute threads; 0: ember's default (all cores)
  uint64_t seed = 0;
  std::string data_dir = "";  // empty: FashionMNIST's default directory
  std::string output_dir = "runs/fashion-mnist";
  std::string model = "cnn";  // "cnn" (the reference CNN) or "mlp"
  bool resume = false;        // continue from <output_dir>/checkpoint.pt
  int64_t limit = 0;          // train on the first `limit` training images; 0: all 60,000
  int64_t val_limit = 0;      // validate on the first `val_limit` test images; 0: all 10,000
  int64_t stop_after = 0;     // stop (checkpointed, resumable) after this many epochs; 0: never
  int64_t profile_steps = 0;  // profile this many training steps after warm-up; 0: none
  // Mixed precision: "none", "bf16" (bfloat16 autocast) or "fp16" (float16 autocast with a
  // GradScaler). Empty: not given, so "none" for a new run and the checkpoint's for --resume.
  std::string amp = "";
  // "cpu", or "cuda" / "cuda:N" (a CUDA build with a GPU): where the model and each batch live.
  // A resumed run must keep it (the dropout draws come from that device's generator).
  std::string device = "cpu";
};

/// One row of metrics.csv.
struct EpochMetrics {
  int64_t epoch = 0;
  double train_loss = 0;  // mean of the batch losses (the reference's avg_train)
  double val_loss = 0;    // mean of the validation batch losses (avg_val)
  double accuracy = 0;    // correct / validation images
  double lr = 0;          // after scheduler.step(), as the reference prints it
  double seconds = 0;     // wall time of the epoch in this process (train + validation)
  double images_per_second = 0;  // training images / training time, data loading included
};

struct TrainResult {
  std::vector<EpochMetrics> history;  // every finished epoch, those before a resume included
  double first_loss = 0;     // this run's first training batch loss (NaN when it ran none)
  double test_accuracy = 0;  // the last validation's accuracy (on the test split)
  double wall_seconds = 0;   // this process, data loading included
  double images_per_second = 0;  // training images per training second in this process
  bool interrupted = false;  // stopped by the stop flag; the checkpoint resumes exactly
  bool finished = false;     // all `epochs` done
  std::string checkpoint_path, weights_path, metrics_path, summary_path, report_path;
  std::string trace_path, profile_table_path;  // with profile_steps, once written
};

/// Where train() reports and what can stop it.
struct TrainIO {
  std::ostream* out = nullptr;  // epoch lines, progress, notes; null: silent
  bool tty = false;             // a live progress bar (else a plain line every 100 steps)
  /// Set (e.g. by a SIGINT handler) to stop after the current step with a checkpoint.
  const std::atomic<bool>* stop = nullptr;
  /// Called after every optimizer step with (epoch, batches done in the epoch).
  std::function<void(int64_t, int64_t)> on_step = {};
};

/// The model `name` names ("cnn" or "mlp"), freshly initialised from the default generator,
/// with the reference's Dropout(0.25) unless told otherwise.
ember::nn::Sequential make_model(const std::string& name, double dropout = 0.25);

/// Fashion-MNIST's training and test images as normalised float (1, 28, 28) examples (the
/// reference's Normalize(0.2860, 0.3530)), cut to their first `limit` / `test_limit` (0: all).
struct Datasets {
  std::shared_ptr<ember::data::Dataset<ember::data::Example>> train, test;
};
Datasets load_datasets(const std::string& data_dir, int64_t limit, int64_t test_limit);

/// Runs (or resumes) the job; throws ember::Error for bad options, missing data or a
/// checkpoint that does not belong to this configuration.
TrainResult train(const TrainConfig& config, const TrainIO& io = {});

}  // namespace fashion_mnist

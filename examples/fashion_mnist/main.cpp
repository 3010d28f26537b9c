// ember-train-fashion-mnist: trains the reference CNN (or an MLP) on Fashion-MNIST with the
// reference's training loop. Ctrl-C stops after the current step with a checkpoint that
// --resume continues exactly; a second Ctrl-C exits at once.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <ember/error.h>

#include "progress.h"
#include "trainer.h"

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_signal(int sig) {
  g_stop.store(true);
  // The next one falls through to the default action (terminate), for a stuck run.
  std::signal(sig, SIG_DFL);
}

}  // namespace

int main(int argc, char** argv) {
  fashion_mnist::TrainConfig c;
  CLI::App app{"Train a CNN (or an MLP) on Fashion-MNIST with ember: the reference's training "
               "loop (AdamW, cosine LR, gradient clipping), a resumable checkpoint every epoch, "
               "metrics.csv, summary.json and model.pt (a state_dict torch.load reads)."};
  app.add_option("--epochs", c.epochs, "Epochs to train")->capture_default_str();
  app.add_option("--batch-size", c.batch_size, "Training batch size")->capture_default_str();
  app.add_option("--lr", c.lr, "AdamW learning rate (cosine-annealed over the epochs)")
      ->capture_default_str();
  app.add_option("--weight-decay", c.weight_decay, "AdamW decoupled weight decay")
      ->capture_default_str();
  app.add_option("--workers", c.workers, "DataLoader worker threads (0: load on the main thread)")
      ->capture_default_str();
  app.add_option("--threads", c.threads, "Compute threads (0: all cores)")->capture_default_str();
  app.add_option("--seed", c.seed, "Seed for initialisation, shuffling and dropout")
      ->capture_default_str();
  app.add_option("--data-dir", c.data_dir,
                 "Directory with the Fashion-MNIST idx files (default: "
                 "/usr/share/datasets/fashion-mnist, Debian's dataset-fashion-mnist)");
  app.add_option("--output-dir", c.output_dir,
                 "Where checkpoint.pt, model.pt, metrics.csv, summary.json and report.html go")
      ->capture_default_str();
  app.add_option("--model", c.model, "cnn (the reference CNN) or mlp")
      ->check(CLI::IsMember({"cnn", "mlp"}))
      ->capture_default_str();
  app.add_flag("--resume", c.resume,
               "Continue exactly from <output-dir>/checkpoint.pt (same model, epochs, batch size, "
               "limit and seed)");
  app.add_option("--limit", c.limit, "Train on the first N training images (0: all 60,000)");
  app.add_option("--val-limit", c.val_limit,
                 "Validate on the first N test images (0: all 10,000)");
  app.add_option("--stop-after", c.stop_after,
                 "Stop with a checkpoint after N epochs of this run (continue with --resume)");
  app.add_option("--profile-steps", c.profile_steps,
                 "Profile N training steps after warm-up; writes trace.json (chrome://tracing, "
                 "Perfetto) and profile.txt (the key_averages table) into the output directory");
  app.add_option("--amp", c.amp,
                 "Mixed precision: none, bf16 (bfloat16 autocast) or fp16 (float16 autocast with "
                 "a GradScaler); saved in the checkpoint, --resume keeps it (default: none)")
      ->check(CLI::IsMember({"none", "bf16", "fp16"}));
  app.add_option("--device", c.device,
                 "cpu, or cuda / cuda:N to train on a GPU (an ember built with -DEMBER_CUDA=ON); "
                 "saved in the checkpoint: --resume needs the same. On cuda, --resume continues "
                 "but not bit for bit (the GPU's dropout generator is not checkpointed yet)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const bool tty = isatty(STDOUT_FILENO) != 0;
  try {
    const auto r = fashion_mnist::train(
        c, {.out = &std::cout, .tty = tty, .stop = &g_stop});
    char line[256];
    if (r.interrupted || !r.finished) {
      std::snprintf(line, sizeof line, "%s after %s (%.0f img/s). Continue with --resume; "
                    "checkpoint in %s", r.interrupted ? "Stopped" : "Paused",
                    fashion_mnist::format_duration(r.wall_seconds).c_str(), r.images_per_second,
                    r.checkpoint_path.c_str());
    } else {
      std::snprintf(line, sizeof line, "Test accuracy %.4f | wall time %s (%.1f s, %.0f img/s) | "
                    "files in %s: model.pt, checkpoint.pt, metrics.csv, summary.json",
                    r.test_accuracy, fashion_mnist::format_duration(r.wall_seconds).c_str(),
                    r.wall_seconds, r.images_per_second, c.output_dir.c_str());
    }
    std::cout << line << std::endl;
    return r.interrupted ? 130 : 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  }
}

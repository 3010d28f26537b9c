// The program the ember-run tests launch (tests/launcher/*.sh). One mode per behaviour under
// test; every mode reads torchrun's environment and writes what it saw under a directory the
// script gives, so the script can check it after the launcher exits.
//   worker env DIR [ARGS...]       write DIR/env.<RANK>: the launcher's variables, KEY=value, and
//                                  ARGV=the arguments after DIR joined by '|'
//   worker echo DIR                print one line to stdout and one to stderr
//   worker fail DIR RANK MESSAGE   RANK throws ember::Error(MESSAGE); the others wait to be stopped
//   worker exit DIR RANK CODE      RANK exits with CODE without an error file
//   worker kill DIR RANK           RANK SIGKILLs itself
//   worker wait DIR                every rank waits for a signal; writes DIR/<SIG>.<RANK>
//   worker allreduce DIR ITERS [die]  init_process_group (env://, 5 s timeout) and ITERS
//                                  all_reduce calls checked against the expected sum; with
//                                  "die", rank 1 SIGKILLs itself mid-loop in attempt 0
//   worker late DIR RANK           RANK never reaches init_process_group (sleeps); the others'
//                                  rendezvous (2 s timeout) fails naming it
//   worker train DIR STEPS FAIL    a training-like loop with a checkpoint per step; rank 1 fails
//                                  at step FAIL in attempt 0, the restart resumes from the file
//   worker sync_train DIR STEPS KILL  the same loop, data parallel: an all_reduce per step
//                                  (env://, 5 s timeout) and rank 0's checkpoint, which every rank
//                                  resumes from; rank 1 SIGKILLs itself at step KILL in attempt 0
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/distributed/elastic.h"
#include "ember/distributed/process_group.h"

namespace {

namespace fs = std::filesystem;

int env_int(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) ember::fail("worker", "$", name, " is not set");
  return std::atoi(value);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path.string() + ".tmp");
  out << text;
  out.close();
  fs::rename(path.string() + ".tmp", path);
}

// Long enough to be stopped by the launcher, short enough that a broken launcher cannot hang
// the test suite.
void wait_to_be_stopped(const fs::path& dir, int rank) {
  write_file(dir / ("started." + std::to_string(rank)), "");
  std::this_thread::sleep_for(std::chrono::seconds(30));
  write_file(dir / ("not_stopped." + std::to_string(rank)), "");
}

int env_mode(const fs::path& dir, const std::vector<std::string>& extra) {
  static const char* keys[] = {
      "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
      "ROLE_RANK", "ROLE_NAME", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
      "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
      "TORCHELASTIC_ERROR_FILE", "TORCHELASTIC_USE_AGENT_STORE", "EMBER_RUN_HOSTS_STORE",
      "OMP_NUM_THREADS", "NCCL_ASYNC_ERROR_HANDLING", "EMBER_TEST_INHERITED"};
  std::string text;
  for (const char* key : keys) {
    if (const char* value = std::getenv(key)) text += std::string(key) + "=" + value + "\n";
  }
  text += "ARGV=";
  for (std::size_t i = 0; i < extra.size(); ++i) {
    if (i > 0) text += '|';
    text += extra[i];
  }
  write_file(dir / ("env." + std::to_string(env_int("RANK"))), text + "\n");
  return 0;
}

int fail_mode(const fs::path& dir, int failing_rank, const std::string& message) {
  const int rank = env_int("RANK");
  if (rank != failing_rank) {
    wait_to_be_stopped(dir, rank);
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the others are running by now
  ember::fail("worker", message);
}

// RANK exits with `code`, or by SIGKILL when `code` is negative: no error file either way.
int exit_mode(const fs::path& dir, int failing_rank, int code) {
  const int rank = env_int("RANK");
  if (rank != failing_rank) {
    wait_to_be_stopped(dir, rank);
    return 0;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (code < 0) raise(SIGKILL);
  std::_Exit(code);
}

int echo_mode() {
  const int rank = env_int("RANK");
  std::printf("hello from rank %d\n", rank);
  std::fprintf(stderr, "warning from rank %d\n", rank);
  return 0;
}

int wait_mode(const fs::path& dir) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const int rank = env_int("RANK");
  write_file(dir / ("started." + std::to_string(rank)), "");
  timespec timeout{30, 0};
  const int sig = sigtimedwait(&set, nullptr, &timeout);
  if (sig < 0) {
    write_file(dir / ("not_stopped." + std::to_string(rank)), "");
    return 1;
  }
  write_file(dir / (std::string(sigabbrev_np(sig)) + "." + std::to_string(rank)), "");
  return 128 + sig;  // as a program that handles the signal and exits for it
}

int train_mode(const fs::path& dir, int steps, int fail_step, bool synchronous) {
  namespace dist = ember::dist;
  const int rank = env_int("RANK");
  const int attempt = env_int("TORCHELASTIC_RESTART_COUNT");
  // In step, the ranks of a data-parallel job resume from one checkpoint, as DDP programs do.
  const fs::path checkpoint = dir / ("checkpoint." + std::to_string(synchronous ? 0 : rank) + ".pt");
  if (synchronous) dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(5)});
  ember::Tensor weights = ember::zeros({4});
  int first_step = 1;
  if (fs::exists(checkpoint)) {
    const ember::Value saved = ember::load(checkpoint.string());
    weights = saved["weights"].to_tensor().clone();
    first_step = static_cast<int>(saved["step"].to_int()) + 1;
  }
  for (int step = first_step; step <= steps; ++step) {
    if (attempt == 0 && rank == 1 && step == fail_step) {
      if (synchronous) raise(SIGKILL);
      ember::fail("train", "simulated failure at step ", step, " on rank ", rank);
    }
    ember::Tensor update = ember::full({4}, static_cast<double>(step));
    if (synchronous) {
      dist::all_reduce(update);  // every rank's step: the mean is the step again
      update.div_(static_cast<double>(dist::get_world_size()));
    }
    weights.add_(update);  // "training": weights = sum of the steps so far
    if (!synchronous || rank == 0)
      ember::save(ember::Dict{{"step", step}, {"weights", weights}}, checkpoint.string(),
                  {.sync = false});
  }
  if (synchronous) dist::destroy_process_group();
  write_file(dir / ("result." + std::to_string(rank)),
             "attempt=" + std::to_string(attempt) + " first_step=" + std::to_string(first_step) +
                 " weights=" + std::to_string(weights.sum().item<double>() / 4) + "\n");
  return 0;
}

int allreduce_mode(const fs::path& dir, int iterations, bool die) {
  namespace dist = ember::dist;
  // No launcher restarts a job srun or mpirun started (tests/launcher/slurm_mpi_env.sh).
  const int attempt =
      std::getenv("TORCHELASTIC_RESTART_COUNT") ? env_int("TORCHELASTIC_RESTART_COUNT") : 0;
  dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(5)});
  const int rank = dist::get_rank(), world = dist::get_world_size();
  const double expected = world * (world + 1) / 2.0;
  for (int i = 0; i < iterations; ++i) {
    if (die && attempt == 0 && rank == 1 && i == iterations / 2) raise(SIGKILL);
    ember::Tensor t = ember::full({1 << 14}, rank + 1.0);
    dist::all_reduce(t);
    if (t.min().item<double>() != expected || t.max().item<double>() != expected) {
      ember::fail("worker", "all_reduce #", i + 1, " gave ", t.min().item<double>(), "..",
                  t.max().item<double>(), ", expected ", expected);
    }
  }
  dist::destroy_process_group();
  write_file(dir / ("result." + std::to_string(rank)),
             "attempt=" + std::to_string(attempt) + " world=" + std::to_string(world) + " ok\n");
  return 0;
}

int late_mode(const fs::path& dir, int late_rank) {
  const int rank = env_int("RANK");
  if (rank == late_rank) {
    wait_to_be_stopped(dir, rank);
    return 0;
  }
  ember::dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(2)});
  return 0;
}

int run(const std::vector<std::string>& args) {
  if (args.size() < 2) ember::fail("worker", "usage: worker MODE DIR ...");
  const std::string& mode = args[0];
  const fs::path dir = args[1];
  if (mode == "env") return env_mode(dir, {args.begin() + 2, args.end()});
  if (mode == "echo") return echo_mode();
  if (mode == "kill" && args.size() == 3) return exit_mode(dir, std::stoi(args[2]), -1);
  if (mode == "fail" && args.size() == 4) return fail_mode(dir, std::stoi(args[2]), args[3]);
  if (mode == "exit" && args.size() == 4) return exit_mode(dir, std::stoi(args[2]), std::stoi(args[3]));
  if (mode == "wait") return wait_mode(dir);
  if (mode == "allreduce" && args.size() >= 3) {
    return allreduce_mode(dir, std::stoi(args[2]), args.size() == 4 && args[3] == "die");
  }
  if (mode == "late" && args.size() == 3) return late_mode(dir, std::stoi(args[2]));
  if ((mode == "train" || mode == "sync_train") && args.size() == 4)
    return train_mode(dir, std::stoi(args[2]), std::stoi(args[3]), mode == "sync_train");
  ember::fail("worker", "unknown mode or wrong arguments: ", mode);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return ember::dist::elastic::record([&] { return run(args); });
}

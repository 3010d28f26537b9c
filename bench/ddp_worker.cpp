// One rank of bench/ddp_compare.sh: training steps of the reference CNN (the Fashion-MNIST job's
// model) on synthetic 28x28 images, batch 64 per rank, AdamW + clip_grad_norm_, one thread.
//   ddp_worker ddp|local|lockstep [steps]  (env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)
// "ddp" wraps the model in DistributedDataParallel; "local" trains the same model on every rank
// without any all-reduce (the step DDP must stay within 1.1x of); "lockstep" is local plus a
// 1-float all_reduce before forward and after backward, where DDP's buffer broadcast and bucket
// wait make the ranks wait for each other: what synchronising alone costs, without any data. Rank 0 prints one RESULT line:
// images/s over all ranks, the median step, and for ddp the communication left exposed after
// backward's compute (last bucket launched -> backward returned) against an all_reduce of the
// whole gradient on its own.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <ember/ember.h>

using namespace ember;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

nn::Sequential reference_cnn() {
  return nn::Sequential(
      nn::Conv2d(1, 32, 3, {.padding = 1}), nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2),
      nn::Conv2d(32, 64, 3, {.padding = 1}), nn::BatchNorm2d(64), nn::ReLU(), nn::MaxPool2d(2),
      nn::Flatten(), nn::Linear(3136, 128), nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "ddp";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 30;
  constexpr int kWarmup = 5;
  constexpr int64_t kBatch = 64;
  set_num_threads(1);
  dist::init_process_group({.backend = "gloo"});
  const int rank = dist::get_rank(), world = dist::get_world_size();

  manual_seed(0);
  nn::Sequential model = reference_cnn();
  std::optional<nn::parallel::DistributedDataParallel<nn::Sequential>> ddp;
  if (mode == "ddp") ddp.emplace(model);
  optim::AdamW opt(model->parameters(), {.lr = 1e-3});
  manual_seed(1 + rank);
  const Tensor x = randn({kBatch, 1, 28, 28});
  const Tensor y = randint(0, 10, {kBatch});

  // The exposed communication: from the last bucket's launch to the end of backward.
  // And whether the first bucket's all_reduce had finished by then (overlapped with backward).
  Clock::time_point last_launch;
  dist::Work first_bucket;
  int first_done_in_time = 0, measured = 0;
  if (ddp) {
    (*ddp)->register_comm_hook([&](nn::parallel::GradBucket& bucket) {
      if (bucket.is_last) {
        last_launch = Clock::now();
        first_done_in_time += bucket.index > 0 && first_bucket.is_completed();
        ++measured;
      }
      auto work = dist::all_reduce(bucket.buffer, {.op = dist::ReduceOp::AVG, .async_op = true});
      if (bucket.index == 0) first_bucket = work;
      return work;
    });
  }
  std::vector<double> step_times, exposed, forward_times, backward_times;
  Tensor token = zeros({1});
  dist::barrier();
  Clock::time_point start;
  for (int step = 0; step < kWarmup + steps; ++step) {
    if (step == kWarmup) {
      dist::barrier();
      start = Clock::now();
    }
    const auto t0 = Clock::now();
    opt.zero_grad();
    if (mode == "lockstep") dist::all_reduce(token);
    Tensor out = ddp ? (*ddp)(x) : model(x);
    Tensor loss = nn::functional::cross_entropy(out, y);
    const auto forward_end = Clock::now();
    loss.backward();
    if (mode == "lockstep") dist::all_reduce(token);
    const auto backward_end = Clock::now();
    nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    opt.step();
    if (step >= kWarmup) {
      step_times.push_back(since(t0));
      forward_times.push_back(std::chrono::duration<double>(forward_end - t0).count());
      backward_times.push_back(std::chrono::duration<double>(backward_end - forward_end).count());
      if (ddp) exposed.push_back(std::chrono::duration<double>(backward_end - last_launch).count());
    }
  }
  dist::barrier();
  const double seconds = since(start);

  // The whole gradient all-reduced alone, for the overlap figure.
  double alone = 0;
  if (ddp) {
    Tensor flat = nn::utils::parameters_to_vector(model->parameters()).detach();
    std::vector<double> times;
    for (int i = 0; i < 10; ++i) {
      const auto t0 = Clock::now();
      dist::all_reduce(flat, {.op = dist::ReduceOp::AVG});
      times.push_back(since(t0));
    }
    alone = median(times);
  }
  if (rank == 0) {
    std::printf("RESULT ember-%s world=%d images_per_s=%.1f step_median_ms=%.2f forward_ms=%.2f "
                "backward_ms=%.2f",
                mode.c_str(), world, double(world * kBatch * steps) / seconds,
                median(step_times) * 1e3, median(forward_times) * 1e3,
                median(backward_times) * 1e3);
    if (ddp)
      std::printf(" exposed_comm_median_ms=%.3f allreduce_alone_ms=%.3f buckets=%zu "
                  "first_bucket_done_before_backward_end=%d/%d",
                  median(exposed) * 1e3, alone * 1e3, (*ddp)->bucket_assignment().size(),
                  first_done_in_time, measured);
    std::printf("\n");
  }
  dist::destroy_process_group();
  return 0;
}

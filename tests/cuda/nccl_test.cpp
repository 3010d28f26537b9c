// The NCCL communicator (src/distributed/nccl_communicator.cpp) on real devices: bootstrap
// through a store, all_reduce (SUM, AVG, MAX), broadcast, all_gather and reduce_scatter with one
// rank per GPU, ranks as threads of this process. One rank on one GPU always; every GPU of the
// machine when it has more. Then the process group over it: init_process_group("nccl") with one
// rank (the default group is the process's), its collectives on CUDA tensors, DDP and FSDP over
// it (the full state dict with offload_to_cpu), and the refusals of a CPU tensor on an nccl group
// and of a CUDA tensor on a gloo group. Skips with "no CUDA device" on a machine without one.
#include "distributed/nccl_communicator.h"

#include <ember/ember.h>
#include <ember/nn/parallel/distributed.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "test_support.h"

namespace ember {
namespace {

using namespace std::chrono_literals;

// Runs body(rank, communicator) on `size` threads, rank r on cuda:r, after building the
// communicators together (ncclCommInitRank waits for every rank).
void on_ranks(int size, const std::function<void(int, cuda::NcclCommunicator&)>& body) {
  auto store = std::make_shared<dist::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      try {
        cuda::NcclCommunicator comm(
            {.store = store, .rank = r, .size = size, .device = Device(kCUDA, r), .timeout = 60s,
             .prefix = {}});  // "[op #seq] rank r: "
        body(r, comm);
        cuda::synchronize(Device(kCUDA, r));
      } catch (const std::exception& e) {
        errors[size_t(r)] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int r = 0; r < size; ++r) EXPECT_EQ(errors[size_t(r)], "") << "rank " << r;
}

void check_collectives(int size) {
  on_ranks(size, [size](int r, cuda::NcclCommunicator& comm) {
    const Device dev(kCUDA, r);
    int64_t seq = 0;  // the process group's numbers
    // all_reduce: rank r holds (r + 1) * [0, 1, ..., 9].
    const Tensor base = arange(10, {.dtype = kFloat32});
    const int64_t total = int64_t(size) * (size + 1) / 2;
    Tensor t = (base * double(r + 1)).to(dev);
    comm.all_reduce(t, dist::ReduceOp::SUM, ++seq);
    EXPECT_TRUE(t.cpu().equal(base * double(total))) << "SUM on rank " << r;
    Tensor avg = (base * double(r + 1)).to(dev);
    comm.all_reduce(avg, dist::ReduceOp::AVG, ++seq);
    EXPECT_TRUE(allclose(avg.cpu(), base * (double(total) / size), 1e-6, 1e-6)) << "AVG";
    Tensor mx = full({4}, r, {.dtype = kInt64, .device = dev});
    comm.all_reduce(mx, dist::ReduceOp::MAX, ++seq);
    EXPECT_TRUE(mx.cpu().equal(full({4}, size - 1, {.dtype = kInt64}))) << "MAX";
    // broadcast from the last rank, in bfloat16.
    Tensor b = full({3, 5}, r + 0.5, {.dtype = kBFloat16, .device = dev});
    comm.broadcast(b, size - 1, ++seq);
    EXPECT_TRUE(b.cpu().equal(full({3, 5}, size - 0.5, {.dtype = kBFloat16}))) << "broadcast";
    // all_gather: rank r contributes [r, r, r].
    const Tensor gathered = empty({size * 3}, {.dtype = kFloat64, .device = dev});
    comm.all_gather(gathered, full({3}, r, {.dtype = kFloat64, .device = dev}), ++seq);
    const Tensor ranks = arange(size, {.dtype = kFloat64}).unsqueeze(1).expand({size, 3});
    EXPECT_TRUE(gathered.cpu().equal(ranks.reshape({size * 3}))) << "all_gather";
    // reduce_scatter: every rank holds [0, 1, ..., 2 size - 1]; rank r gets size * [2r, 2r + 1].
    const Tensor in = arange(2 * size, {.dtype = kFloat32}).to(dev);
    const Tensor out = empty({2}, {.dtype = kFloat32, .device = dev});
    comm.reduce_scatter(out, in, dist::ReduceOp::SUM, ++seq);
    EXPECT_TRUE(out.cpu().equal(arange(2 * r, 2 * r + 2, {.dtype = kFloat32}) * double(size)))
        << "reduce_scatter";
  });
}

TEST(CudaNccl, CollectivesOnOneRank) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  check_collectives(1);
}

TEST(CudaNccl, CollectivesOnEveryGpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  if (cuda::device_count() < 2) GTEST_SKIP() << "one CUDA device: the one-rank test covers it";
  check_collectives(cuda::device_count());
}

TEST(CudaNccl, WrongDevicesAndSizesAreErrors) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  on_ranks(1, [](int, cuda::NcclCommunicator& comm) {
    Tensor host = ones({4});
    EXPECT_ERROR(comm.all_reduce(host, dist::ReduceOp::SUM, 1),
                 "[all_reduce] rank 0: expected a tensor on cuda:0, got cpu");
    const Tensor in = ones({4}, {.device = Device("cuda:0")});
    EXPECT_ERROR(comm.all_gather(empty({3}, {.device = Device("cuda:0")}), in, 2),
                 "[all_gather] rank 0: expected a contiguous output of 1 x 4");
  });
}

// A default group of one rank through a store in this process.
void init_one_rank(const std::string& backend) {
  dist::init_process_group({.backend = backend, .timeout = 60s, .world_size = 1, .rank = 0,
                            .store = std::make_shared<dist::HashStore>()});
}

TEST(CudaNccl, InitProcessGroupNcclRunsCollectivesOnCudaTensors) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  init_one_rank("nccl");
  EXPECT_EQ(dist::ProcessGroup().backend(), "nccl");
  const Device dev("cuda:0");
  Tensor t = arange(6, {.dtype = kFloat32}).to(dev);
  dist::all_reduce(t);
  EXPECT_TRUE(t.cpu().equal(arange(6, {.dtype = kFloat32}))) << "all_reduce";
  Tensor b = full({3}, 2.5, {.device = dev});
  dist::Work work = dist::broadcast(b, 0, {.async_op = true});
  work.wait();
  EXPECT_TRUE(work.is_success());
  EXPECT_TRUE(b.cpu().equal(full({3}, 2.5))) << "broadcast";
  std::vector<Tensor> outs = {empty({3}, {.device = dev})};
  dist::all_gather(outs, b);
  EXPECT_TRUE(outs[0].cpu().equal(full({3}, 2.5))) << "all_gather";
  Tensor into = empty({3}, {.device = dev});
  dist::all_gather_into_tensor(into, b);
  EXPECT_TRUE(into.cpu().equal(full({3}, 2.5))) << "all_gather_into_tensor";
  Tensor scattered = empty({6}, {.device = dev});
  dist::reduce_scatter_tensor(scattered, t);
  EXPECT_TRUE(scattered.cpu().equal(arange(6, {.dtype = kFloat32}))) << "reduce_scatter_tensor";
  dist::barrier();
  Tensor host = ones({2});
  EXPECT_ERROR(dist::all_reduce(host),
               "[all_reduce] rank 0: the nccl backend takes CUDA tensors (Tensors must be CUDA "
               "and dense); the tensor is on cpu");
  // DDP over it: buckets on the GPU, one rank's gradients unchanged.
  manual_seed(0);
  nn::Linear model(4, 3);
  model->to(dev);
  auto ddp = nn::parallel::DistributedDataParallel(model, {});
  const Tensor x = randn({5, 4}).to(dev);
  ddp(x).sum().backward();
  EXPECT_TRUE(allclose(model->weight.grad().cpu(), x.sum(0).cpu().unsqueeze(0).expand({3, 4}),
                       1e-5, 1e-5))
      << "DDP's gradient";
  // FSDP over it: the full state dict on the device, or copied to CPU memory with offload_to_cpu.
  nn::Linear inner(4, 3);
  inner->to(dev);
  auto fsdp = nn::FullyShardedDataParallel(inner, {});
  const StateDict on_device = fsdp->full_state_dict();
  const StateDict offloaded = fsdp->full_state_dict({.offload_to_cpu = true});
  ASSERT_EQ(offloaded.keys(), on_device.keys());
  for (const auto& [key, value] : on_device) {
    EXPECT_EQ(value.device(), dev) << key;
    EXPECT_TRUE(offloaded.at(key).is_cpu()) << key;
    EXPECT_TRUE(offloaded.at(key).equal(value.cpu())) << key;
  }
  dist::destroy_process_group();
}

TEST(CudaNccl, AGlooGroupRefusesCudaTensors) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  init_one_rank("gloo");
  Tensor t = ones({2}, {.device = Device("cuda:0")});
  EXPECT_ERROR(dist::all_reduce(t),
               "[all_reduce] rank 0: the gloo backend takes CPU tensors; the tensor is on cuda:0");
  dist::destroy_process_group();
}

}  // namespace
}  // namespace ember

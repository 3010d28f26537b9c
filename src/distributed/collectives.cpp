// The collectives and point-to-point calls: argument checks on the calling thread (named after
// the op, with shapes and dtypes), then a body that runs Gloo's new-style API on the group's
// thread (group.h). reduce_scatter is ours: an all-reduce of the whole input, of which each rank
// keeps its chunk, as PyTorch's Gloo backend does (Gloo's ReduceScatterHalvingDoubling puts
// blocks at the wrong offsets at 3-4 ranks).
// A group of a device backend ("nccl"; device_communicator.h) sends all_reduce, broadcast,
// reduce, the all_gathers, the reduce_scatters and barrier to the communicator of the tensors'
// device instead, on the calling thread (ProcessGroup::Impl::run_on_device).
#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/scatter.h>
#include <gloo/types.h>

#include <cstring>
#include <sstream>

#include "distributed/device_communicator.h"
#include "distributed/group.h"
#include "distributed/reduce_functions.h"
#include "distributed/shared_memory.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/shape.h"

namespace ember::dist {
namespace {

using Group = ProcessGroup::Impl;

// Gloo's templates only need the element's size: move bytes as unsigned integers of that size.
template <class F>
void with_element_bytes(int64_t size, F&& f) {
  switch (size) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << t.dtype() << " " << t.sizes();
  return os.str();
}

const char* device_type_name(DeviceType type) { return type == kCUDA ? "CUDA" : "CPU"; }

// A tensor the group's backend takes: on its kind of device (CPU for Gloo), and contiguous.
// Both backends refuse the other's tensors as PyTorch 1.13 does, with a RuntimeError (an
// ember::Error): ProcessGroupNCCL's "Tensors must be CUDA and dense"; a Gloo group here takes
// no CUDA tensors (c10d's stages them through the host).
void check_dense(const Group& g, const char* op, const Tensor& t, const char* what = "tensor") {
  EMBER_CHECK(t.defined(), op, "the ", what, " is undefined");
  const DeviceType expected = g.device_backend ? g.device_backend->device_type : kCPU;
  EMBER_CHECK(t.device().type() == expected, op, g.rank_name(g.config.rank), ": the ", g.backend,
              " backend takes ", device_type_name(expected), " tensors",
              g.device_backend ? " (Tensors must be CUDA and dense)" : "", "; the ", what,
              " is on ", t.device(), g.device_backend ? "; move it with .to()" :
              "; use a group with backend 'nccl' for CUDA tensors, or .cpu()");
  EMBER_CHECK(t.is_contiguous(), op, "the ", what, " must be contiguous (", describe(t),
              ", strides ", t.strides(), "); call .contiguous()");
}

// The collectives a device backend does not carry yet.
void refuse_on_device(const Group& g, const char* op) {
  EMBER_CHECK(!g.device_backend, op, g.rank_name(g.config.rank), ": the ", g.backend,
              " backend of ember carries all_reduce, broadcast, reduce, all_gather, "
              "all_gather_into_tensor, reduce_scatter, reduce_scatter_tensor and barrier; ", op,
              " needs a gloo group");
}

// Each tensor of a list: dense, with the dtype and element count `like` has.
void check_list(const Group& g, const char* op, const std::vector<Tensor>& list,
                const Tensor& like, size_t expected_count, const char* what) {
  EMBER_CHECK(list.size() == expected_count, op, "expects ", expected_count, " ", what,
              " (one per rank), got ", list.size());
  for (const auto& t : list) {
    check_dense(g, op, t, what);
    EMBER_CHECK(t.dtype() == like.dtype() && t.numel() == like.numel() &&
                    t.device() == like.device(),
                op, "every one of the ", what, " must be ", describe(like), " on ", like.device(),
                " like the tensor, got ", describe(t), " on ", t.device());
  }
}

void check_rank(const char* op, int r, const Group& g, const char* what) {
  EMBER_CHECK(r >= 0 && r < g.config.size, op, what, " ", r, " is not a rank of the group (size ",
              g.config.size, ")");
}

std::vector<int> ring_neighbours(const Group& g) {
  const int n = g.config.size, r = g.config.rank;
  if (n <= 2) return {};
  return {(r + n - 1) % n, (r + 1) % n};
}

std::vector<int> rooted_peers(const Group& g, int root) {
  if (g.config.rank == root) return {};
  return {root};
}

template <class Options>
void tag_and_time(Options& options, uint32_t tag, const Group& g) {
  options.setTag(tag);
  options.setTimeout(g.config.timeout);
}

void allreduce_bytes(Group& g, void* data, const Tensor& like, int64_t numel, ReduceOp op,
                     uint32_t tag, const char* op_name) {
  if (numel == 0) return;
  if (g.shared_memory)
    return g.shared_memory->all_reduce(data, like.dtype(), numel, op, g.prefix(op_name, tag));
  const auto function = reduce_function(like.dtype(), op, "all_reduce");
  with_element_bytes(like.element_size(), [&]<class T>() {
    gloo::AllreduceOptions options(g.context);
    options.setOutput(static_cast<T*>(data), static_cast<size_t>(numel));
    options.setReduceFunction(function);
    options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
    tag_and_time(options, tag, g);
    gloo::allreduce(options);
  });
  if (op == ReduceOp::AVG)
    divide_for_average(data, like.dtype(), static_cast<size_t>(numel), g.config.size);
}

// The chunk of `full` (size world * output's) that this rank keeps, reduced, into output.
// Through shared memory each rank reduces only its own chunk, reading `full` in place; over TCP
// it is an all-reduce of the whole, in place: of `full` itself when `owned` (a copy made for
// the call), else of a copy.
Work reduce_scatter_flat(Group& g, Tensor& output, Tensor full, bool owned,
                         const CollectiveOptions& o, const std::string& signature) {
  reduce_function(output.dtype(), o.op, "reduce_scatter");  // refuse bad pairs here
  Tensor out = output;
  if (g.device_backend)
    return g.run_on_device({"reduce_scatter", signature, {}}, o.async_op, out.device(),
                           [out, full, op = o.op](DeviceCommunicator& comm, int64_t seq) {
                             comm.reduce_scatter(out, full, op, seq);
                           });
  return g.run({"reduce_scatter", signature, ring_neighbours(g)}, o.async_op,
               [&g, out, full, owned, op = o.op](uint32_t tag) {
                 if (out.numel() == 0) return;
                 if (g.shared_memory)
                   return g.shared_memory->reduce_scatter(full.data_ptr(), out.data_ptr(),
                                                          out.dtype(), out.numel(), op,
                                                          g.prefix("reduce_scatter", tag));
                 Tensor work = owned ? full : full.clone();
                 allreduce_bytes(g, work.data_ptr(), work, work.numel(), op, tag,
                                 "reduce_scatter");
                 std::memcpy(out.data_ptr(),
                             static_cast<const char*>(work.data_ptr()) +
                                 out.nbytes() * g.config.rank,
                             static_cast<size_t>(out.nbytes()));
               });
}

}  // namespace

Work all_reduce(Tensor& tensor, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "all_reduce");
  check_dense(g, "all_reduce", tensor);
  reduce_function(tensor.dtype(), o.op, "all_reduce");
  Tensor t = tensor;
  CollectiveCall call{"all_reduce", describe(t) + ", " + reduce_op_name(o.op), ring_neighbours(g)};
  if (g.device_backend)
    return g.run_on_device(std::move(call), o.async_op, t.device(),
                           [t, op = o.op](DeviceCommunicator& comm, int64_t seq) {
                             comm.all_reduce(t, op, seq);
                           });
  return g.run(std::move(call),
               o.async_op, [&g, t, op = o.op](uint32_t tag) {
                 allreduce_bytes(g, t.data_ptr(), t, t.numel(), op, tag, "all_reduce");
               });
}

Work broadcast(Tensor& tensor, int src, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "broadcast");
  check_dense(g, "broadcast", tensor);
  check_rank("broadcast", src, g, "src");
  Tensor t = tensor;
  CollectiveCall call{"broadcast", describe(t) + ", src " + std::to_string(src),
                      rooted_peers(g, src)};
  if (g.device_backend)
    return g.run_on_device(std::move(call), o.async_op, t.device(),
                           [t, src](DeviceCommunicator& comm, int64_t seq) {
                             comm.broadcast(t, src, seq);
                           });
  return g.run(std::move(call),
               o.async_op, [&g, t, src](uint32_t tag) {
                 if (t.numel() == 0) return;
                 if (g.shared_memory)
                   return g.shared_memory->broadcast(t.data_ptr(), t.nbytes(), src,
                                                     g.prefix("broadcast", tag));
                 with_element_bytes(t.element_size(), [&]<class T>() {
                   gloo::BroadcastOptions options(g.context);
                   options.setOutput(ptr<T>(t), static_cast<size_t>(t.numel()));
                   options.setRoot(src);
                   tag_and_time(options, tag, g);
                   gloo::broadcast(options);
                 });
               });
}

Work reduce(Tensor& tensor, int dst, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "reduce");
  check_dense(g, "reduce", tensor);
  check_rank("reduce", dst, g, "dst");
  const auto function = reduce_function(tensor.dtype(), o.op, "reduce");
  Tensor t = tensor;
  CollectiveCall call{"reduce", describe(t) + ", " + reduce_op_name(o.op) + ", dst " +
                                    std::to_string(dst), rooted_peers(g, dst)};
  if (g.device_backend) {
    // An all-reduce that only dst keeps: the others reduce a copy, so theirs stay unchanged.
    Tensor into = g.config.rank == dst ? t : t.clone();
    return g.run_on_device(std::move(call), o.async_op, t.device(),
                           [into, op = o.op](DeviceCommunicator& comm, int64_t seq) {
                             comm.all_reduce(into, op, seq);
                           });
  }
  // Gloo writes partial sums into every rank's output: the other ranks give it scratch space.
  Tensor out = g.config.rank == dst ? t : empty_like(t);
  return g.run(std::move(call), o.async_op, [&g, t, out, dst, function, op = o.op](uint32_t tag) {
                 if (t.numel() == 0) return;
                 with_element_bytes(t.element_size(), [&]<class T>() {
                   gloo::ReduceOptions options(g.context);
                   if (!out.is_same(t)) options.setInput(ptr<T>(t), static_cast<size_t>(t.numel()));
                   options.setOutput(ptr<T>(out), static_cast<size_t>(t.numel()));
                   options.setRoot(dst);
                   options.setReduceFunction(function);
                   tag_and_time(options, tag, g);
                   gloo::reduce(options);
                 });
                 if (op == ReduceOp::AVG && g.config.rank == dst)
                   divide_for_average(t.data_ptr(), t.dtype(), static_cast<size_t>(t.numel()),
                                      g.config.size);
               });
}

namespace {

void allgather_bytes(Group& g, const Tensor& in, const Tensor& out, uint32_t tag) {
  if (in.numel() == 0) return;
  if (g.shared_memory)
    return g.shared_memory->all_gather(in.data_ptr(), out.data_ptr(), in.nbytes(),
                                       g.prefix("all_gather", tag));
  with_element_bytes(in.element_size(), [&]<class T>() {
    gloo::AllgatherOptions options(g.context);
    options.setInput(ptr<T>(in), static_cast<size_t>(in.numel()));
    options.setOutput(ptr<T>(out), static_cast<size_t>(out.numel()));
    tag_and_time(options, tag, g);
    gloo::allgather(options);
  });
}

// Copies the i-th chunk of flat (each the size of parts[i]) into parts[i].
void unpack(const Tensor& flat, const std::vector<Tensor>& parts) {
  size_t at = 0;
  for (const auto& part : parts) {
    std::memcpy(part.data_ptr(), static_cast<const char*>(flat.data_ptr()) + at,
                static_cast<size_t>(part.nbytes()));
    at += static_cast<size_t>(part.nbytes());
  }
}

// The parts one after another in a new 1-d tensor on their device (a kernel, not memcpy).
Tensor flat_on_device(const std::vector<Tensor>& parts) {
  std::vector<Tensor> flat;
  for (const auto& part : parts) flat.push_back(part.reshape({-1}));
  return cat(flat, 0);
}

// The parts one after another in a new 1-d tensor of their dtype.
Tensor pack(const std::vector<Tensor>& parts, int64_t total) {
  Tensor flat = empty({total}, parts[0].options());
  size_t at = 0;
  for (const auto& part : parts) {
    std::memcpy(static_cast<char*>(flat.data_ptr()) + at, part.data_ptr(),
                static_cast<size_t>(part.nbytes()));
    at += static_cast<size_t>(part.nbytes());
  }
  return flat;
}

}  // namespace

Work all_gather_into_tensor(Tensor& output, const Tensor& input, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "all_gather_into_tensor");
  check_dense(g, "all_gather_into_tensor", input, "input");
  check_dense(g, "all_gather_into_tensor", output, "output");
  EMBER_CHECK(output.dtype() == input.dtype() && output.numel() == input.numel() * g.config.size &&
                  output.device() == input.device(),
              "all_gather_into_tensor", "the output must be ", input.dtype(), " with ",
              g.config.size, " x ", input.numel(), " elements on ", input.device(), ", got ",
              describe(output), " on ", output.device());
  Tensor in = input, out = output;
  CollectiveCall call{"all_gather", describe(in), {}};
  if (g.device_backend)
    return g.run_on_device(std::move(call), o.async_op, in.device(),
                           [in, out](DeviceCommunicator& comm, int64_t seq) {
                             comm.all_gather(out, in, seq);
                           });
  return g.run(std::move(call), o.async_op,
               [&g, in, out](uint32_t tag) { allgather_bytes(g, in, out, tag); });
}

Work all_gather(std::vector<Tensor>& outputs, const Tensor& input, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "all_gather");
  check_dense(g, "all_gather", input, "input");
  check_list(g, "all_gather", outputs, input, static_cast<size_t>(g.config.size), "outputs");
  Tensor in = input;
  Tensor flat = empty({input.numel() * g.config.size}, input.options());
  CollectiveCall call{"all_gather", describe(in), {}};
  if (g.device_backend)
    return g.run_on_device(std::move(call), o.async_op, in.device(),
                           [in, flat, outputs](DeviceCommunicator& comm, int64_t seq) {
                             comm.all_gather(flat, in, seq);
                             // Copies on the current stream, which waits for the gather.
                             for (size_t i = 0; i < outputs.size(); ++i)
                               outputs[i].view({-1}).copy_(flat.narrow(
                                   0, static_cast<int64_t>(i) * in.numel(), in.numel()));
                           });
  return g.run(std::move(call), o.async_op,
               [&g, in, flat, outputs](uint32_t tag) {
                 allgather_bytes(g, in, flat, tag);
                 unpack(flat, outputs);
               });
}

Work reduce_scatter_tensor(Tensor& output, const Tensor& input, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "reduce_scatter_tensor");
  check_dense(g, "reduce_scatter_tensor", input, "input");
  check_dense(g, "reduce_scatter_tensor", output, "output");
  EMBER_CHECK(output.dtype() == input.dtype() && input.numel() == output.numel() * g.config.size &&
                  output.device() == input.device(),
              "reduce_scatter_tensor", "the input must be ", output.dtype(), " with ",
              g.config.size, " x ", output.numel(), " elements on ", output.device(), ", got ",
              describe(input), " on ", input.device());
  return reduce_scatter_flat(g, output, input, /*owned=*/false, o,
                             describe(input) + ", " + reduce_op_name(o.op));
}

Work reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs,
                    const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "reduce_scatter");
  check_dense(g, "reduce_scatter", output, "output");
  check_list(g, "reduce_scatter", inputs, output, static_cast<size_t>(g.config.size), "inputs");
  Tensor full = g.device_backend ? flat_on_device(inputs)
                                 : pack(inputs, output.numel() * g.config.size);
  return reduce_scatter_flat(g, output, full, /*owned=*/true, o, describe(output) + " x " +
                                                     std::to_string(inputs.size()) + ", " +
                                                     reduce_op_name(o.op));
}

Work all_to_all_single(Tensor& output, const Tensor& input, const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "all_to_all_single");
  refuse_on_device(g, "all_to_all_single");
  check_dense(g, "all_to_all_single", input, "input");
  check_dense(g, "all_to_all_single", output, "output");
  EMBER_CHECK(input.numel() % g.config.size == 0 && output.numel() == input.numel() &&
                  output.dtype() == input.dtype(),
              "all_to_all_single", "needs input and output of one dtype and size, divisible by ",
              g.config.size, " ranks; got input ", describe(input), ", output ", describe(output));
  Tensor in = input, out = output;
  return g.run({"all_to_all", describe(in), {}}, o.async_op, [&g, in, out](uint32_t tag) {
    if (in.numel() == 0) return;
    with_element_bytes(in.element_size(), [&]<class T>() {
      gloo::AlltoallOptions options(g.context);
      options.setInput(ptr<T>(in), static_cast<size_t>(in.numel()));
      options.setOutput(ptr<T>(out), static_cast<size_t>(out.numel()));
      tag_and_time(options, tag, g);
      gloo::alltoall(options);
    });
  });
}

Work all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "all_to_all");
  refuse_on_device(g, "all_to_all");
  const auto n = static_cast<size_t>(g.config.size);
  EMBER_CHECK(inputs.size() == n && outputs.size() == n, "all_to_all", "expects ", n,
              " inputs and outputs (one per rank), got ", inputs.size(), " and ", outputs.size());
  std::vector<int64_t> send_counts, recv_counts;
  int64_t send_total = 0, recv_total = 0;
  for (size_t i = 0; i < n; ++i) {
    check_dense(g, "all_to_all", inputs[i], "inputs");
    check_dense(g, "all_to_all", outputs[i], "outputs");
    EMBER_CHECK(inputs[i].dtype() == inputs[0].dtype() && outputs[i].dtype() == inputs[0].dtype(),
                "all_to_all", "every input and output must be ", inputs[0].dtype(), ", got ",
                describe(inputs[i]), " and ", describe(outputs[i]));
    send_counts.push_back(inputs[i].numel());
    recv_counts.push_back(outputs[i].numel());
    send_total += inputs[i].numel();
    recv_total += outputs[i].numel();
  }
  Tensor send_buffer = pack(inputs, send_total);
  Tensor recv_buffer = empty({recv_total}, inputs[0].options());
  const std::string signature = std::string(dtype_name(inputs[0].dtype())) + " x " +
                                std::to_string(n);
  return g.run({"all_to_all", signature, {}}, o.async_op,
               [&g, send_buffer, recv_buffer, send_counts, recv_counts, outputs](uint32_t tag) {
                 with_element_bytes(send_buffer.element_size(), [&]<class T>() {
                   gloo::AlltoallvOptions options(g.context);
                   options.setInput(ptr<T>(send_buffer), send_counts);
                   options.setOutput(ptr<T>(recv_buffer), recv_counts);
                   tag_and_time(options, tag, g);
                   gloo::alltoallv(options);
                 });
                 unpack(recv_buffer, outputs);
               });
}

Work gather(const Tensor& input, std::vector<Tensor>& outputs, int dst,
            const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "gather");
  refuse_on_device(g, "gather");
  check_dense(g, "gather", input, "input");
  check_rank("gather", dst, g, "dst");
  const bool root = g.config.rank == dst;
  if (root) check_list(g, "gather", outputs, input, static_cast<size_t>(g.config.size), "outputs");
  Tensor in = input;
  Tensor flat = root ? empty({input.numel() * g.config.size}, input.options()) : Tensor();
  std::vector<Tensor> outs = root ? outputs : std::vector<Tensor>{};
  return g.run({"gather", describe(in) + ", dst " + std::to_string(dst), rooted_peers(g, dst)},
               o.async_op, [&g, in, flat, outs, dst, root](uint32_t tag) {
                 if (in.numel() == 0) return;
                 with_element_bytes(in.element_size(), [&]<class T>() {
                   gloo::GatherOptions options(g.context);
                   options.setInput(ptr<T>(in), static_cast<size_t>(in.numel()));
                   if (root) options.setOutput(ptr<T>(flat), static_cast<size_t>(flat.numel()));
                   options.setRoot(dst);
                   tag_and_time(options, tag, g);
                   gloo::gather(options);
                 });
                 if (root) unpack(flat, outs);
               });
}

Work scatter(Tensor& output, const std::vector<Tensor>& inputs, int src,
             const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "scatter");
  refuse_on_device(g, "scatter");
  check_dense(g, "scatter", output, "output");
  check_rank("scatter", src, g, "src");
  const bool root = g.config.rank == src;
  if (root) check_list(g, "scatter", inputs, output, static_cast<size_t>(g.config.size), "inputs");
  Tensor out = output;
  std::vector<Tensor> ins = root ? inputs : std::vector<Tensor>{};
  return g.run({"scatter", describe(out) + ", src " + std::to_string(src), rooted_peers(g, src)},
               o.async_op, [&g, out, ins, src, root](uint32_t tag) {
                 if (out.numel() == 0) return;
                 with_element_bytes(out.element_size(), [&]<class T>() {
                   gloo::ScatterOptions options(g.context);
                   if (root) {
                     std::vector<T*> pointers;
                     for (const auto& t : ins) pointers.push_back(ptr<T>(t));
                     options.setInputs(pointers, static_cast<size_t>(out.numel()));
                   }
                   options.setOutput(ptr<T>(out), static_cast<size_t>(out.numel()));
                   options.setRoot(src);
                   tag_and_time(options, tag, g);
                   gloo::scatter(options);
                 });
               });
}

Work barrier(const CollectiveOptions& o) {
  Group& g = resolve_group(o.group, "barrier");
  if (g.device_backend)
    // As c10d's NCCL barrier: a one-element all-reduce on the device, then the host waits.
    return g.run_on_device({"barrier", "", {}}, o.async_op, g.barrier_device(),
                           [&g](DeviceCommunicator& comm, int64_t seq) {
                             comm.all_reduce(zeros({1}, {.device = g.barrier_device()}),
                                             ReduceOp::SUM, seq);
                             comm.synchronize();
                           });
  return g.run({"barrier", "", {}}, o.async_op, [&g](uint32_t tag) {
    gloo::BarrierOptions options(g.context);
    tag_and_time(options, tag, g);
    gloo::barrier(options);
  });
}

// ── point to point ──────────────────────────────────────────────────────────────────────────

namespace {

// Slots of point-to-point messages: apart from every collective's (their prefixes are 1-8).
constexpr uint8_t kPointToPointSlotPrefix = 0x20;

Work post_p2p(const char* op, const Tensor& tensor, int peer, const ProcessGroup& group, int tag,
              bool sending, bool async) {
  Group& g = resolve_group(group, op);
  refuse_on_device(g, op);
  check_dense(g, op, tensor);
  check_rank(op, peer, g, sending ? "dst" : "src");
  EMBER_CHECK(peer != g.config.rank, op, "rank ", g.config.global_ranks[g.config.rank],
              " cannot ", op, " to itself");
  EMBER_CHECK(tag >= 0, op, "the tag must be >= 0, got ", tag);
  Tensor t = tensor;
  const auto timeout = g.config.timeout;
  return g.run_p2p({op, describe(t), {peer}}, async, [&g, t, peer, tag, sending, timeout] {
    std::shared_ptr<gloo::transport::UnboundBuffer> buffer =
        g.context->createUnboundBuffer(t.data_ptr(), static_cast<size_t>(t.nbytes()));
    const uint64_t slot = gloo::Slot::build(kPointToPointSlotPrefix, static_cast<uint32_t>(tag));
    if (sending) buffer->send(peer, slot);
    else buffer->recv(peer, slot);
    return std::function<void()>([buffer, t, sending, timeout] {
      if (sending) buffer->waitSend(timeout);
      else buffer->waitRecv(timeout);
    });
  });
}

}  // namespace

void send(const Tensor& tensor, int dst, const ProcessGroup& group, int tag) {
  post_p2p("send", tensor, dst, group, tag, true, false);
}
void recv(Tensor& tensor, int src, const ProcessGroup& group, int tag) {
  post_p2p("recv", tensor, src, group, tag, false, false);
}
Work isend(const Tensor& tensor, int dst, const ProcessGroup& group, int tag) {
  return post_p2p("send", tensor, dst, group, tag, true, true);
}
Work irecv(Tensor& tensor, int src, const ProcessGroup& group, int tag) {
  return post_p2p("recv", tensor, src, group, tag, false, true);
}

}  // namespace ember::dist

// A sampler's position saved into torch::serialize archives and restored into a new sampler:
// the restored one continues where the saved one stopped.
#include <torch/torch.h>

#include <cstdio>
#include <vector>

template <class Sampler>
void print_next(const char* label, Sampler& sampler, size_t batch) {
  auto indices = sampler.next(batch);
  std::printf("%s:", label);
  if (indices)
    for (size_t i : *indices) std::printf(" %zu", i);
  else
    std::printf(" (end)");
  std::printf("\n");
}

template <class Sampler>
void round_trip(const char* name, Sampler& saved, Sampler& restored) {
  print_next(name, saved, 3);
  torch::serialize::OutputArchive out;
  saved.save(out);
  std::stringstream buffer;
  out.save_to(buffer);
  torch::serialize::InputArchive in;
  in.load_from(buffer);
  restored.load(in);
  print_next("  saved continues", saved, 3);
  print_next("  restored continues", restored, 3);
}

int main() {
  torch::manual_seed(5);
  torch::data::samplers::SequentialSampler sequential(10), sequential2(10);
  round_trip("sequential", sequential, sequential2);
  torch::data::samplers::RandomSampler random(10), random2(4);
  round_trip("random", random, random2);
  torch::data::samplers::DistributedRandomSampler distributed(12, 2, 1), distributed2(12, 2, 1);
  distributed.set_epoch(3);
  distributed.reset();
  round_trip("distributed random", distributed, distributed2);
  torch::data::samplers::StreamSampler stream(7), stream2(7);
  auto first = stream.next(4);
  std::printf("stream first batch: %zu\n", first->size());
  torch::serialize::OutputArchive out;
  stream.save(out);
  std::stringstream buffer;
  out.save_to(buffer);
  torch::serialize::InputArchive in;
  in.load_from(buffer);
  stream2.load(in);
  std::printf("stream restored next: %zu\n", stream2.next(4)->size());
  return 0;
}

// torch::save / torch::load of tensors and tensor lists (files, streams, a writer function,
// memory, a device), pickle_save / pickle_load, and archives written and read by hand.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

int main() {
  torch::manual_seed(0);
  auto a = torch::randn({3, 4});
  auto b = torch::arange(0, 6, torch::kInt64).view({2, 3});

  // One tensor: into an undefined tensor, into one of the same shape (its storage), and into one
  // of another shape (replaced).
  torch::save(a, "a.pt");
  torch::Tensor loaded;
  torch::load(loaded, "a.pt");
  std::printf("tensor: %lld x %lld, sum %.6f, allclose %d\n",
              static_cast<long long>(loaded.size(0)), static_cast<long long>(loaded.size(1)),
              loaded.sum().item<float>(), int(torch::allclose(a, loaded)));
  auto same_shape = torch::zeros({3, 4});
  auto alias = same_shape;
  torch::load(same_shape, "a.pt", torch::kCPU);
  std::printf("same shape: sum %.6f, alias sees it %d\n", same_shape.sum().item<float>(),
              int(torch::allclose(alias, a)));
  auto other_shape = torch::zeros({5});
  torch::load(other_shape, "a.pt");
  std::printf("other shape: dim %lld numel %lld\n", static_cast<long long>(other_shape.dim()),
              static_cast<long long>(other_shape.numel()));
  torch::save(b, "b.pt");
  torch::Tensor ints;
  torch::load(ints, "b.pt");
  std::printf("int64: %d, sum %lld\n", int(ints.dtype() == torch::kInt64),
              static_cast<long long>(ints.sum().item<int64_t>()));

  // A list of tensors; load appends.
  std::vector<torch::Tensor> tensors{a, b.to(torch::kFloat64), torch::ones({2})};
  torch::save(tensors, "list.pt");
  std::vector<torch::Tensor> back{torch::zeros({1})};
  torch::load(back, "list.pt");
  std::printf("list: %zu tensors, sums %.6f %.6f %.6f, float64 %d\n", back.size(),
              back[1].sum().item<float>(), back[2].sum().item<float>(), back[3].sum().item<float>(),
              int(back[2].dtype() == torch::kFloat64));

  // Streams, a writer function, memory.
  std::ostringstream out;
  torch::save(a * 2, out);
  std::istringstream in(out.str());
  torch::Tensor from_stream;
  torch::load(from_stream, in);
  std::string bytes;
  torch::save(b, [&](const void* data, size_t size) {
    bytes.append(static_cast<const char*>(data), size);
    return size;
  });
  torch::Tensor from_memory;
  torch::load(from_memory, bytes.data(), bytes.size());
  std::printf("stream %.6f, memory %lld\n", from_stream.sum().item<float>(),
              static_cast<long long>(from_memory.sum().item<int64_t>()));

  // pickle_save / pickle_load.
  std::vector<char> pickled = torch::pickle_save(torch::IValue(a));
  torch::IValue unpickled = torch::pickle_load(pickled);
  std::printf("pickle tensor: %d %.6f\n", int(unpickled.isTensor()),
              unpickled.toTensor().sum().item<float>());
  auto number = torch::pickle_load(torch::pickle_save(torch::IValue(2.5)));
  auto integer = torch::pickle_load(torch::pickle_save(torch::IValue(int64_t(42))));
  auto text = torch::pickle_load(torch::pickle_save(torch::IValue(std::string("ember"))));
  std::printf("pickle scalars: %g %lld %s\n", number.toDouble(),
              static_cast<long long>(integer.toInt()), text.toStringRef().c_str());

  // Archives by hand: values, tensors, a nested archive.
  {
    torch::serialize::OutputArchive archive;
    archive.write("epoch", torch::IValue(int64_t(7)));
    archive.write("loss", torch::IValue(0.25));
    archive.write("weights", a);
    torch::serialize::OutputArchive nested;
    nested.write("bias", torch::ones({3}));
    archive.write("head", nested);
    archive.save_to("archive.pt");
  }
  torch::serialize::InputArchive archive;
  archive.load_from("archive.pt");
  torch::IValue epoch, loss;
  archive.read("epoch", epoch);
  archive.read("loss", loss);
  torch::Tensor weights, bias;
  archive.read("weights", weights);
  torch::serialize::InputArchive head;
  archive.read("head", head);
  head.read("bias", bias);
  torch::Tensor absent;
  const bool found = archive.try_read("absent", absent);
  auto keys = archive.keys();
  std::sort(keys.begin(), keys.end());
  std::printf("archive: epoch %lld loss %g weights %.6f bias %.1f, absent found %d, keys",
              static_cast<long long>(epoch.toInt()), loss.toDouble(), weights.sum().item<float>(),
              bias.sum().item<float>(), int(found));
  for (const auto& key : keys) std::printf(" %s", key.c_str());
  std::printf("\n");
  try {
    archive.read("absent", absent);
  } catch (const c10::Error&) {
    std::printf("reading an absent key throws\n");
  }
  return 0;
}

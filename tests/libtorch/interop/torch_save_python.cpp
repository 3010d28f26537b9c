// The C++ half of the Python interop test (python_interop.py): a LibTorch program that reads
// what Python's torch.save wrote (a state dict, an optimizer state dict, a list of tensors) and
// writes with torch::save what Python's torch.load then checks. It prints what it computed, one
// `name: values` line each, for the Python half to compare.
#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

torch::nn::Sequential make_model() {
  return torch::nn::Sequential(torch::nn::Linear(4, 5), torch::nn::ReLU(), torch::nn::Linear(5, 2));
}

void print(const char* name, const torch::Tensor& t) {
  auto flat = t.detach().to(torch::kFloat64).flatten().contiguous();
  std::printf("%s:", name);
  for (int64_t i = 0; i < flat.numel(); ++i) std::printf(" %.9g", flat.data_ptr<double>()[i]);
  std::printf("\n");
}

double sum_of(torch::nn::Sequential& model) {
  double total = 0;
  for (const auto& p : model->parameters()) total += p.sum().item<double>();
  return total;
}

void train(torch::optim::Optimizer& optimizer, torch::nn::Sequential& model,
           const std::vector<torch::Tensor>& data, int steps) {
  for (int i = 0; i < steps; ++i) {
    optimizer.zero_grad();
    torch::mse_loss(model->forward(data[0]), data[1]).backward();
    optimizer.step();
  }
}

// An error message on one line, without the list of the file's keys.
std::string first_line(const std::exception& e) {
  std::string message = e.what();
  message = message.substr(0, message.find("\n(the file"));
  for (char& c : message)
    if (c == '\n') c = ' ';
  return message;
}

}  // namespace

int main() {
  auto probe = torch::arange(0, 8, torch::kFloat32).view({2, 4}) / 10;

  // ── from Python ──
  auto model = make_model();
  torch::load(model, "from_python_model.pt");
  print("python_model_output", model->forward(probe));

  std::vector<torch::Tensor> data;
  torch::load(data, "from_python_data.pt");
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  torch::load(adam, "from_python_adam.pt");
  train(adam, model, data, 2);
  std::printf("python_adam_resumed_sum: %.9g\n", sum_of(model));

  try {
    auto wider =
        torch::nn::Sequential(torch::nn::Linear(4, 6), torch::nn::ReLU(), torch::nn::Linear(6, 2));
    torch::load(wider, "from_python_model.pt");
    std::printf("shape_mismatch: loaded\n");
  } catch (const std::exception& e) {
    std::printf("shape_mismatch: %s\n", first_line(e).c_str());
  }
  try {
    auto deeper = torch::nn::Sequential(torch::nn::Linear(4, 5), torch::nn::ReLU(),
                                        torch::nn::Linear(5, 2), torch::nn::Linear(2, 2));
    torch::load(deeper, "from_python_model.pt");
    std::printf("missing_key: loaded\n");
  } catch (const std::exception& e) {
    std::printf("missing_key: %s\n", first_line(e).c_str());
  }

  // ── to Python ──
  torch::manual_seed(3);
  auto mine = make_model();
  torch::save(mine, "to_python_model.pt");
  print("model_output", mine->forward(probe));

  torch::save(torch::arange(0, 12, torch::kFloat32).view({3, 4}) * 0.5, "to_python_tensor.pt");
  torch::save(std::vector<torch::Tensor>{torch::ones({2}), torch::arange(0, 3, torch::kInt64)},
              "to_python_list.pt");

  torch::optim::Adam mine_adam(mine->parameters(), torch::optim::AdamOptions(5e-3));
  train(mine_adam, mine, data, 3);
  torch::save(mine, "to_python_trained.pt");
  torch::save(mine_adam, "to_python_adam.pt");
  train(mine_adam, mine, data, 1);
  std::printf("adam_next_step_sum: %.9g\n", sum_of(mine));

  torch::optim::SGD sgd(mine->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  train(sgd, mine, data, 2);
  torch::save(sgd, "to_python_sgd.pt");

  std::vector<char> bytes = torch::pickle_save(torch::IValue(torch::full({2, 2}, 1.5)));
  std::ofstream("to_python_pickle.pt", std::ios::binary).write(bytes.data(), bytes.size());

  torch::serialize::OutputArchive archive, head;
  archive.write("epoch", torch::IValue(int64_t(3)));
  archive.write("weights", torch::ones({2, 3}));
  head.write("bias", torch::zeros({3}));
  archive.write("head", head);
  archive.save_to("to_python_archive.pt");
  return 0;
}

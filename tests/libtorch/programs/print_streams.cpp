// LibTorch's tensor printing and the stream it writes to: the caller's precision, notation,
// showpos, fill, alignment and a pending width shape the output, and the stream's format is
// as before afterwards; at::print / torch::print with a line width; the names LibTorch prints
// (c10::toString, DeviceTypeName, devices, sizes). Spaces are shown as '_' where alignment
// is the point, since the output comparison ignores spacing.
#include <torch/torch.h>

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace {

std::string visible(const std::string& text) {
  std::string out = text;
  for (char& c : out) {
    if (c == ' ') c = '_';
  }
  return out;
}

// What `write` puts on a fresh stream prepared by `prepare`, spaces visible.
template <class Prepare>
void show(const std::string& title, const torch::Tensor& t, Prepare prepare) {
  std::ostringstream os;
  prepare(os);
  os << t << "|after|" << 2.0 / 3.0 << "|" << 42 << "|\n";
  std::cout << "== " << title << "\n" << visible(os.str());
}

}  // namespace

int main() {
  torch::manual_seed(11);
  auto fractional = torch::randn({2, 3}, torch::kDouble);
  auto integral = torch::tensor({123456.0, -2.0}, torch::kDouble);
  auto factored = torch::rand({2, 2}, torch::kDouble) * 1e-9;
  auto mixed = torch::tensor({0.5, 1.5, 123456789.0, 2.0}, torch::kDouble).view({2, 1, 2});

  auto none = [](std::ostream&) {};
  show("default", fractional, none);
  show("precision 2, integral", integral, [](std::ostream& os) { os << std::setprecision(2); });
  show("precision 2, 0-dim", torch::tensor(3.14159265),
       [](std::ostream& os) { os << std::setprecision(2); });
  show("precision 10, fractional", fractional,
       [](std::ostream& os) { os << std::setprecision(10); });
  show("precision 2, n-d", mixed, [](std::ostream& os) { os << std::setprecision(2); });
  show("fixed, integral", integral, [](std::ostream& os) { os << std::fixed; });
  show("fixed, 0-dim", torch::tensor(2.5), [](std::ostream& os) { os << std::fixed; });
  show("scientific, factor", factored, [](std::ostream& os) { os << std::scientific; });
  show("showpos", factored, [](std::ostream& os) { os << std::showpos; });
  show("showpos, n-d", mixed, [](std::ostream& os) { os << std::showpos; });
  show("showpoint", torch::arange(0, 3, torch::kFloat),
       [](std::ostream& os) { os << std::showpoint; });
  show("showpoint, factor", factored, [](std::ostream& os) { os << std::showpoint; });
  show("uppercase", torch::tensor({1e-10, 2.0}, torch::kDouble),
       [](std::ostream& os) { os << std::uppercase; });
  show("fill", torch::tensor({1.5, -22.0}, torch::kDouble),
       [](std::ostream& os) { os << std::setfill('*'); });
  show("left", fractional, [](std::ostream& os) { os << std::left; });
  show("pending width, 0-dim", torch::tensor(1.5), [](std::ostream& os) { os << std::setw(10); });
  show("pending width, 1-d", torch::tensor({1.5, 2.0}),
       [](std::ostream& os) { os << std::setw(12); });
  show("pending width, factor", factored, [](std::ostream& os) { os << std::setw(12); });
  show("pending width, wide", torch::randn({2, 12}), [](std::ostream& os) { os << std::setw(20); });
  show("pending width, n-d", torch::ones({1, 1, 2}), [](std::ostream& os) { os << std::setw(12); });
  show("pending width, empty", torch::empty({0}), [](std::ostream& os) { os << std::setw(24); });
  show("pending width, undefined", torch::Tensor(), [](std::ostream& os) { os << std::setw(30); });
  show("hex", torch::tensor({10, 255}), [](std::ostream& os) { os << std::hex; });

  // at::print and torch::print: std::cout, and a line width of the caller's choosing.
  auto t = torch::randn({2, 5});
  torch::print(t);
  std::cout << "<\n";
  at::print(t, 30);
  std::cout << "<\n";
  at::print(std::cout, torch::randn({2, 2, 5}) * 100, 40) << "<\n";
  at::print(std::cout, torch::rand({2, 4}) * 0.01, 20) << "<\n";

  // The names LibTorch prints.
  std::cout << c10::toString(torch::kFloat) << " " << c10::toString(torch::kDouble) << " "
            << c10::toString(torch::kHalf) << " " << c10::toString(torch::kBFloat16) << " "
            << c10::toString(torch::kLong) << " " << c10::toString(torch::kInt) << " "
            << c10::toString(torch::kShort) << " " << c10::toString(torch::kChar) << " "
            << c10::toString(torch::kByte) << " " << c10::toString(torch::kBool) << "\n";
  std::cout << c10::DeviceTypeName(torch::kCPU) << " " << c10::DeviceTypeName(torch::kCUDA) << " "
            << c10::DeviceTypeName(torch::kCUDA, /*lower_case=*/true) << "\n";
  std::cout << torch::Device(torch::kCPU) << " " << torch::Device(torch::kCUDA) << " "
            << torch::Device("cuda:1") << " " << t.device() << "\n";
  std::cout << t.sizes() << " " << t.strides() << " " << torch::randn({}).sizes() << " "
            << torch::ones({4}).sizes() << "\n";
  return 0;
}

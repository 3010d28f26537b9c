// LibTorch's LBFGS names, refused at compile time: ember has no L-BFGS optimizer (nor line
// search), and a stand-in that does something else would print other numbers. Using either
// name stops the build with a message naming what is missing.
#pragma once

namespace torch::optim {

namespace detail {
template <class... Args>
inline constexpr bool kNoLBFGS = sizeof...(Args) > 1000;  // false, but only once instantiated
}  // namespace detail

struct LBFGSOptions {
  template <class... Args>
  LBFGSOptions(Args&&...) {  // NOLINT
    static_assert(detail::kNoLBFGS<Args...>,
                  "torch::optim::LBFGSOptions: ember has no L-BFGS optimizer (torch::optim::LBFGS "
                  "is not provided); use torch::optim::SGD, Adam, AdamW, Adagrad or RMSprop");
  }
};

class LBFGS {
 public:
  template <class... Args>
  LBFGS(Args&&...) {  // NOLINT
    static_assert(detail::kNoLBFGS<Args...>,
                  "torch::optim::LBFGS: ember has no L-BFGS optimizer; use torch::optim::SGD, "
                  "Adam, AdamW, Adagrad or RMSprop");
  }
};

}  // namespace torch::optim

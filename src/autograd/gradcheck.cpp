// gradcheck / gradgradcheck: the analytical Jacobian (one backward per output element) against
// central differences, in double precision, like torch.autograd.gradcheck.
#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"

namespace ember::autograd {
namespace {

bool is_differentiable_input(const Tensor& t) {
  return t.defined() && t.is_floating_point() && t.requires_grad();
}

// The element with row-major index k of a strided float64 tensor.
double& element(const Tensor& t, int64_t k) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (k % t.size(d)) * t.stride(d);
    k /= t.size(d);
  }
  return t.data_ptr<double>()[offset];
}

// The floating outputs of fn, flattened to float64 values (detached).
std::vector<std::vector<double>> evaluate(const TensorsFunction& fn,
                                          const std::vector<Tensor>& inputs) {
  std::vector<std::vector<double>> values;
  for (const Tensor& o : fn(inputs)) {
    if (!o.defined() || !o.is_floating_point()) {
      values.emplace_back();
      continue;
    }
    const Tensor flat = o.detach().to(kFloat64).contiguous();
    const double* p = flat.data_ptr<double>();
    values.emplace_back(p, p + flat.numel());
  }
  return values;
}

// jacobian[input][output](k, j) = d output_j / d input_k, as (numel_in, numel_out) float64.
using Jacobians = std::vector<std::vector<Tensor>>;

Jacobians analytical(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                     const std::vector<size_t>& diff) {
  Jacobians jac(diff.size(), std::vector<Tensor>(outputs.size()));
  std::vector<Tensor> wrt;
  for (size_t i : diff) wrt.push_back(inputs[i]);
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    const int64_t m = out.defined() && out.is_floating_point() ? out.numel() : 0;
    for (size_t i = 0; i < diff.size(); ++i)
      jac[i][o] = zeros({wrt[i].numel(), m}, {.dtype = kFloat64});
    if (m == 0 || !out.requires_grad()) continue;
    for (int64_t j = 0; j < m; ++j) {
      Tensor e = zeros(out.sizes(), {.dtype = out.dtype()});
      e.view({-1}).index_put_({j}, 1.0);
      const std::vector<Tensor> g =
          grad({out}, wrt, {.grad_outputs = {e}, .retain_graph = true, .allow_unused = true});
      for (size_t i = 0; i < diff.size(); ++i) {
        if (!g[i].defined()) continue;
        EMBER_CHECK(g[i].sizes() == wrt[i].sizes(), "gradcheck", "the gradient of input ",
                    diff[i], " has shape ", g[i].sizes(), "; expected ", wrt[i].sizes());
        jac[i][o].select(1, j).copy_(g[i].detach().reshape({-1}).to(kFloat64));
      }
    }
  }
  return jac;
}

Jacobians numerical(const TensorsFunction& fn, const std::vector<Tensor>& inputs,
                    const std::vector<size_t>& diff, const std::vector<int64_t>& out_numel,
                    double eps) {
  Jacobians jac(diff.size());
  for (size_t i = 0; i < diff.size(); ++i) {
    const Tensor& x = inputs[diff[i]];
    for (int64_t m : out_numel) jac[i].push_back(zeros({x.numel(), m}, {.dtype = kFloat64}));
    for (int64_t k = 0; k < x.numel(); ++k) {
      double& v = element(x, k);
      const double saved = v;
      v = saved + eps;
      const auto plus = evaluate(fn, inputs);
      v = saved - eps;
      const auto minus = evaluate(fn, inputs);
      v = saved;
      for (size_t o = 0; o < out_numel.size(); ++o) {
        double* row = jac[i][o].data_ptr<double>() + k * out_numel[o];
        for (int64_t j = 0; j < out_numel[o]; ++j)
          row[j] = (plus[o][size_t(j)] - minus[o][size_t(j)]) / (2 * eps);
      }
    }
  }
  return jac;
}

}  // namespace

bool gradcheck(const TensorsFunction& fn, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options) {
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!is_differentiable_input(inputs[i])) continue;
    EMBER_CHECK(inputs[i].dtype() == kFloat64, "gradcheck", "input ", i,
                " requires grad but is ", inputs[i].dtype(),
                "; gradcheck needs float64 inputs for its finite differences");
    diff.push_back(i);
  }
  EMBER_CHECK(!diff.empty(), "gradcheck",
              "gradcheck expects at least one input tensor to require gradient");
  const std::vector<Tensor> outputs = fn(inputs);
  std::vector<int64_t> out_numel;
  for (const Tensor& o : outputs)
    out_numel.push_back(o.defined() && o.is_floating_point() ? o.numel() : 0);
  const Jacobians a = analytical(outputs, inputs, diff);
  const Jacobians n = numerical(fn, inputs, diff, out_numel, options.eps);
  for (size_t i = 0; i < diff.size(); ++i)
    for (size_t o = 0; o < outputs.size(); ++o) {
      const double* pa = a[i][o].data_ptr<double>();
      const double* pn = n[i][o].data_ptr<double>();
      for (int64_t k = 0; k < a[i][o].numel(); ++k) {
        if (std::abs(pa[k] - pn[k]) <= options.atol + options.rtol * std::abs(pn[k])) continue;
        std::ostringstream os;
        os << "Jacobian mismatch for output " << o << " with respect to input " << diff[i]
           << " (element " << k << ": analytical " << pa[k] << ", numerical " << pn[k]
           << "),\nnumerical:" << n[i][o] << "\nanalytical:" << a[i][o];
        fail("gradcheck", os.str());
      }
    }
  return true;
}

bool gradcheck(const TensorFunction& fn, const std::vector<Tensor>& inputs,
               const GradcheckOptions& options) {
  return gradcheck(
      [&fn](const std::vector<Tensor>& in) { return std::vector<Tensor>{fn(in)}; }, inputs,
      options);
}

bool gradgradcheck(const TensorsFunction& fn, const std::vector<Tensor>& inputs,
                   const GradcheckOptions& options) {
  const std::vector<Tensor> outputs = fn(inputs);
  std::vector<Tensor> vs = options.grad_outputs;
  if (vs.empty()) {
    // Fixed, distinct, non-zero output gradients: results reproduce without touching the RNG.
    for (const Tensor& o : outputs) {
      if (!o.defined() || !o.is_floating_point()) continue;
      Tensor v = (arange(o.numel(), {.dtype = kFloat64}) * 0.37 + 0.3).sin().view(o.sizes());
      vs.push_back(v.requires_grad_());
    }
  }
  std::vector<size_t> diff;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_differentiable_input(inputs[i])) diff.push_back(i);
  const size_t n_in = inputs.size();
  auto first_order = [&fn, &diff, n_in](const std::vector<Tensor>& all) {
    const std::vector<Tensor> in(all.begin(), all.begin() + long(n_in));
    const std::vector<Tensor> v(all.begin() + long(n_in), all.end());
    std::vector<Tensor> outs;
    for (const Tensor& o : fn(in))
      if (o.defined() && o.is_floating_point()) outs.push_back(o);
    std::vector<Tensor> wrt;
    for (size_t i : diff) wrt.push_back(in[i]);
    std::vector<Tensor> g = grad(outs, wrt, {.grad_outputs = v, .create_graph = true,
                                             .allow_unused = true});
    std::erase_if(g, [](const Tensor& t) { return !t.defined(); });
    return g;
  };
  std::vector<Tensor> all(inputs);
  all.insert(all.end(), vs.begin(), vs.end());
  return gradcheck(first_order, all, options);
}

bool gradgradcheck(const TensorFunction& fn, const std::vector<Tensor>& inputs,
                   const GradcheckOptions& options) {
  return gradgradcheck(
      [&fn](const std::vector<Tensor>& in) { return std::vector<Tensor>{fn(in)}; }, inputs,
      options);
}

}  // namespace ember::autograd

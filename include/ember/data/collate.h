// default_collate: turns a list of samples into one batch, as torch.utils.data.default_collate —
// tensors are stacked along a new dim 0, numbers become a 1-D tensor (int64 / float64 / bool), and
// Example, pairs, tuples and vectors are collated member by member.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/tensor.h"

namespace ember::data {

/// Collate<S>::type is the batch of samples S; Collate<S>::apply builds it. Specialise it to
/// give your own sample types a default collate.
template <class S>
struct Collate;

namespace detail {
/// stack(samples, 0) with a "[default_collate]" message when the shapes differ; an all-undefined
/// list (e.g. unlabelled Examples) collates to an undefined tensor.
Tensor collate_tensors(const std::vector<Tensor>& samples);
Tensor collate_int64(const std::vector<int64_t>& samples);
Tensor collate_double(const std::vector<double>& samples);
Tensor collate_bool(const std::vector<bool>& samples);

// Moves member `get(sample)` of every sample out into one vector and collates that.
template <class S, class Get>
auto collate_member(std::vector<S>& samples, Get get) {
  using M = std::remove_cvref_t<decltype(get(samples[0]))>;
  std::vector<M> members;
  members.reserve(samples.size());
  for (auto& s : samples) members.push_back(std::move(get(s)));
  return Collate<M>::apply(std::move(members));
}
}  // namespace detail

template <>
struct Collate<Tensor> {
  using type = Tensor;
  static Tensor apply(std::vector<Tensor>&& s) { return detail::collate_tensors(s); }
};

template <class T>
  requires std::is_arithmetic_v<T>
struct Collate<T> {
  using type = Tensor;
  static Tensor apply(std::vector<T>&& s) {
    if constexpr (std::is_same_v<T, bool>) {
      return detail::collate_bool(std::vector<bool>(s.begin(), s.end()));
    } else if constexpr (std::is_integral_v<T>) {
      return detail::collate_int64(std::vector<int64_t>(s.begin(), s.end()));
    } else {
      return detail::collate_double(std::vector<double>(s.begin(), s.end()));
    }
  }
};

/// Strings stay a list, as PyTorch.
template <>
struct Collate<std::string> {
  using type = std::vector<std::string>;
  static type apply(std::vector<std::string>&& s) { return std::move(s); }
};

template <>
struct Collate<Example> {
  using type = Example;
  static Example apply(std::vector<Example>&& s) {
    return {detail::collate_member(s, [](Example& e) -> Tensor& { return e.data; }),
            detail::collate_member(s, [](Example& e) -> Tensor& { return e.target; })};
  }
};

template <class A, class B>
struct Collate<std::pair<A, B>> {
  using type = std::pair<typename Collate<A>::type, typename Collate<B>::type>;
  static type apply(std::vector<std::pair<A, B>>&& s) {
    auto first = detail::collate_member(s, [](auto& p) -> A& { return p.first; });
    return {std::move(first), detail::collate_member(s, [](auto& p) -> B& { return p.second; })};
  }
};

template <class... T>
struct Collate<std::tuple<T...>> {
  using type = std::tuple<typename Collate<T>::type...>;
  static type apply(std::vector<std::tuple<T...>>&& s) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return type{detail::collate_member(s, [](auto& t) -> auto& { return std::get<I>(t); })...};
    }(std::index_sequence_for<T...>{});
  }
};

/// A list per sample becomes a list of batches (every sample's list must have the same length).
template <class T>
struct Collate<std::vector<T>> {
  using type = std::vector<typename Collate<T>::type>;
  static type apply(std::vector<std::vector<T>>&& s) {
    type out;
    if (s.empty()) return out;
    const size_t n = s[0].size();
    for (const auto& v : s) {
      EMBER_CHECK(v.size() == n, "default_collate",
                  "each element in list of batch should be of equal size");
    }
    for (size_t i = 0; i < n; ++i) {
      out.push_back(detail::collate_member(s, [i](std::vector<T>& v) -> T& { return v[i]; }));
    }
    return out;
  }
};

/// The batch type default_collate makes from samples S.
template <class S>
using collate_t = typename Collate<S>::type;

/// torch.utils.data.default_collate.
template <class S>
collate_t<S> default_collate(std::vector<S> samples) {
  return Collate<S>::apply(std::move(samples));
}

}  // namespace ember::data

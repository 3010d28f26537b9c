// The copy and fill kernels' work, for the device (copy.cu) and the CPU emulation
// (copy_emulation.cpp) alike: a grid-stride loop over the strided layout of copy_launch.h,
// converting as core/convert.h does so a copy on the device gives the CPU's bits.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/copy_launch.h"
#include "backend/cuda/strided.cuh"

namespace ember::cuda::kernels {

/// core/convert.h's rules: to bool is != 0, the half types go through float, floating to integer
/// truncates.
template <class D, class S>
EMBER_HOST_DEVICE D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_half_v<S>) {
    return convert<D>(float(v));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_half_v<D>) {
    return D(float(v));
  } else {
    return static_cast<D>(v);
  }
}

/// One block's share of dst (operand 0) = src (operand 1) converted, D and S their storage types.
template <class D, class S>
struct CopyBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const CopyLaunch& l) {
    each_strided<2>(b, l, [&](char* const* at) {
      *reinterpret_cast<D*>(at[0]) = convert<D>(*reinterpret_cast<const S*>(at[1]));
    });
  }
};

/// One block's share of a fill: U the unsigned integer of the element size.
template <class U>
struct FillBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const FillLaunch& l) {
    const U value = U(l.bits);
    each_strided<1>(b, l, [&](char* const* at) { *reinterpret_cast<U*>(at[0]) = value; });
  }
};

/// Calls f(Tag<U>{}) for the unsigned integer U of `itemsize` bytes; false for another size.
template <class F>
bool with_item_bits(int32_t itemsize, F&& f) {
  return with_first<uint8_t, uint16_t, uint32_t, uint64_t>(
      [itemsize](auto u) { return sizeof(typename decltype(u)::type) == size_t(itemsize); }, f);
}

/// The bodies of each launch (launch.cuh): a copy between any two storage types, a fill of any
/// element size.
template <class F>
bool with_body(const CopyLaunch& l, F&& f) {
  bool found = false;
  with_type(l.dst, [&](auto d) {
    found = with_type(l.src, [&](auto s) {
      f(Tag<CopyBody<typename decltype(d)::type, typename decltype(s)::type>>{});
    });
  });
  return found;
}
template <class F>
bool with_body(const FillLaunch& l, F&& f) {
  return with_item_bits(l.itemsize,
                        [&](auto u) { f(Tag<FillBody<typename decltype(u)::type>>{}); });
}

}  // namespace ember::cuda::kernels

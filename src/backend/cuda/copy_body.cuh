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
template <class D, class S, class Block>
EMBER_HOST_DEVICE void copy_block(const Block& b, const CopyLaunch& l) {
  grid_stride(b, l.numel, [&](int64_t i) {
    int64_t off[2];
    strided_offsets(l, i, off);
    *reinterpret_cast<D*>(l.base[0] + off[0]) =
        convert<D>(*reinterpret_cast<const S*>(l.base[1] + off[1]));
  });
}

/// One block's share of a fill: U the unsigned integer of the element size.
template <class U, class Block>
EMBER_HOST_DEVICE void fill_block(const Block& b, const FillLaunch& l) {
  const U value = U(l.bits);
  grid_stride(b, l.numel, [&](int64_t i) {
    int64_t off[1];
    strided_offsets(l, i, off);
    *reinterpret_cast<U*>(l.base[0] + off[0]) = value;
  });
}

/// Calls f(Tag<U>{}) for the unsigned integer U of `itemsize` bytes; false for another size.
template <class F>
bool with_item_bits(int32_t itemsize, F&& f) {
  return with_first<uint8_t, uint16_t, uint32_t, uint64_t>(
      [itemsize](auto u) { return sizeof(typename decltype(u)::type) == size_t(itemsize); }, f);
}

}  // namespace ember::cuda::kernels

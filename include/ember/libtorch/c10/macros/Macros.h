// LibTorch's portability macros that programs use in their own code: branch hints, unused and
// nodiscard markers, forced inlining, deleted copies.
#pragma once

#include "c10/macros/Export.h"

#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define C10_UNUSED __attribute__((__unused__))
#define C10_NODISCARD [[nodiscard]]
#define C10_ALWAYS_INLINE __attribute__((__always_inline__)) inline
#define C10_DISABLE_COPY_AND_ASSIGN(classname) \
  classname(const classname&) = delete;        \
  classname& operator=(const classname&) = delete

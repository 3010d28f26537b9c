// Storage: one flat device buffer shared by every tensor viewing it, and the allocator behind it.
// The version counter lives here: every view of a storage sees the same count, so an in-place
// write through any view is visible to autograd's saved-tensor checks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ember/device.h"
#include "ember/intrusive_ptr.h"

namespace ember {

/// Frees a buffer that ember did not allocate (mmapped files, user memory).
using DeleterFn = void (*)(void* data, void* context);

class StorageImpl : public RefCounted {
 public:
  /// Allocates nbytes (64-byte aligned) on the device through its caching allocator.
  StorageImpl(size_t nbytes, Device device);
  /// Adopts external memory; deleter(data, context) runs when the last reference goes.
  StorageImpl(void* data, size_t nbytes, Device device, DeleterFn deleter, void* context);
  ~StorageImpl() override;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  bool owned_;                   // true: ember's allocator owns data_
  DeleterFn deleter_ = nullptr;  // for external memory; may be null (the caller keeps it alive)
  void* context_ = nullptr;
  std::atomic<uint32_t> version_{0};
};

using Storage = intrusive_ptr<StorageImpl>;

}  // namespace ember

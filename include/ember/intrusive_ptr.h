// A minimal intrusive reference-counted pointer: one word per handle, one atomic per copy.
// Tensors, storages and autograd nodes are shared through it.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace ember {

/// Base for intrusively counted objects. The count starts at 0; intrusive_ptr adopts it.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  void incref() const { refcount_.fetch_add(1, std::memory_order_relaxed); }
  /// Returns true when this was the last reference.
  bool decref() const { return refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1; }
  int64_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int64_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() = default;
  intrusive_ptr(std::nullptr_t) {}  // NOLINT
  explicit intrusive_ptr(T* p) : p_(p) {
    if (p_) p_->incref();
  }
  intrusive_ptr(const intrusive_ptr& o) : p_(o.p_) {
    if (p_) p_->incref();
  }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  intrusive_ptr(const intrusive_ptr<U>& o) : intrusive_ptr(static_cast<T*>(o.get())) {}  // NOLINT
  ~intrusive_ptr() { reset(); }
  intrusive_ptr& operator=(const intrusive_ptr& o) {
    intrusive_ptr(o).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& o) noexcept {
    intrusive_ptr(std::move(o)).swap(*this);
    return *this;
  }
  void reset() {
    if (p_ && p_->decref()) delete p_;
    p_ = nullptr;
  }
  void swap(intrusive_ptr& o) noexcept { std::swap(p_, o.p_); }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  int64_t use_count() const { return p_ ? p_->use_count() : 0; }
  friend bool operator==(const intrusive_ptr& a, const intrusive_ptr& b) { return a.p_ == b.p_; }

 private:
  T* p_ = nullptr;
};

template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>(new T(std::forward<Args>(args)...));
}

}  // namespace ember

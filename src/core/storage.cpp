// Storage lifetime: allocation through the device allocator, or adoption of external memory.
#include "ember/storage.h"

#include "allocator.h"

namespace ember {

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : data_(device_allocate(device, nbytes)), nbytes_(nbytes), device_(device), owned_(true) {}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device, DeleterFn deleter,
                         void* context)
    : data_(data),
      nbytes_(nbytes),
      device_(device),
      owned_(false),
      deleter_(deleter),
      context_(context) {}

StorageImpl::~StorageImpl() {
  if (owned_) {
    device_free(device_, data_, nbytes_);
  } else if (deleter_) {
    deleter_(data_, context_);
  }
}

}  // namespace ember

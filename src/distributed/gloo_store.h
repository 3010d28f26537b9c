// Lets Gloo's rendezvous (gloo::rendezvous::Context::connectFullMesh) publish and read addresses
// through any ember Store, as c10d's GlooStore does; Gloo's own stores are not used.
#pragma once

#include <gloo/rendezvous/store.h>

#include <memory>

#include "ember/distributed/store.h"

namespace ember::dist {

class GlooStore final : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<dist::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::string(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::string value = store_->get(key);
    return {value.begin(), value.end()};
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<dist::Store> store_;
};

}  // namespace ember::dist

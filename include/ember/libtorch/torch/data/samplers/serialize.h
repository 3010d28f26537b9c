// archive << sampler and archive >> sampler: a sampler's save() and load().
#pragma once

#include "torch/data/samplers/base.h"

namespace torch::data::samplers {

template <typename BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}

template <typename BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

}  // namespace torch::data::samplers

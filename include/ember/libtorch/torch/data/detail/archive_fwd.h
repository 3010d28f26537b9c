// torch::serialize's archive classes, declared only: samplers and stateful datasets name them
// in their save/load signatures, which need no more than the declaration.
#pragma once

namespace torch::serialize {
class OutputArchive;
class InputArchive;
}  // namespace torch::serialize

// What other parts of ember reuse of the torch.save reader (src/serialize/torch_format.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "ember/serialize.h"

namespace ember::serialize {

class ZipWriter;

/// What save() writes, as an archive into `zip` (committed here): for a distributed
/// checkpoint's per-rank file, whose archives sit back to back.
void write_archive(const Value& value, ZipWriter& zip);

/// load() of a torch.save archive that is bytes [offset, offset + length) of `path` (length
/// ZipReader::kWholeFile: to the end), as a distributed checkpoint's per-rank file holds them.
Value load_archive(const std::string& path, uint64_t offset, uint64_t length,
                   const LoadOptions& options);

}  // namespace ember::serialize

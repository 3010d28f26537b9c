// read_idx through zlib's gz* reader, which also passes plain files through unchanged. Every
// failure names the file and what the header promised.
#include "ember/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "ember/creation.h"
#include "ember/error.h"

namespace ember::data {

namespace {

struct IdxType {
  Dtype dtype;
  int64_t bytes;
};

std::optional<IdxType> idx_type(uint8_t code) {
  switch (code) {
    case 0x08:
      return IdxType{kUInt8, 1};
    case 0x09:
      return IdxType{kInt8, 1};
    case 0x0B:
      return IdxType{kInt16, 2};
    case 0x0C:
      return IdxType{kInt32, 4};
    case 0x0D:
      return IdxType{kFloat32, 4};
    case 0x0E:
      return IdxType{kFloat64, 8};
    default:
      return std::nullopt;
  }
}

// The whole (decompressed) file.
std::vector<uint8_t> read_all(const std::string& path) {
  EMBER_CHECK(std::filesystem::is_regular_file(path), "read_idx", path, ": no such file");
  gzFile f = gzopen(path.c_str(), "rb");
  EMBER_CHECK(f != nullptr, "read_idx", path, ": cannot open: ", std::strerror(errno));
  gzbuffer(f, 1 << 17);
  std::vector<uint8_t> data;
  uint8_t chunk[1 << 16];
  int n;
  while ((n = gzread(f, chunk, sizeof(chunk))) > 0) data.insert(data.end(), chunk, chunk + n);
  int errnum = Z_OK;
  const std::string zmsg = gzerror(f, &errnum);
  gzclose(f);
  // A cut gzip stream reads as Z_BUF_ERROR ("unexpected end of file"), a damaged one as
  // Z_DATA_ERROR (bad CRC or invalid codes).
  EMBER_CHECK(n == 0 && (errnum == Z_OK || errnum == Z_STREAM_END), "read_idx", path,
              ": corrupt or truncated gzip data (zlib: ", zmsg, ") after ", data.size(), " bytes");
  return data;
}

uint32_t big_endian32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

}  // namespace

Tensor read_idx(const std::string& path) {
  const std::vector<uint8_t> bytes = read_all(path);
  const char* op = "read_idx";
  EMBER_CHECK(bytes.size() >= 4, op, path, ": truncated: ", bytes.size(),
              " bytes, expected at least the 4-byte idx magic number");
  const auto type = idx_type(bytes[2]);
  EMBER_CHECK(bytes[0] == 0 && bytes[1] == 0 && type && bytes[3] >= 1, op, path,
              ": not an idx file: magic bytes ", int(bytes[0]), " ", int(bytes[1]), " ",
              int(bytes[2]), " ", int(bytes[3]),
              ", expected 0 0 <type 8,9,11,12,13,14> <number of dims >= 1>");
  const int64_t ndim = bytes[3];
  const size_t header = 4 + 4 * size_t(ndim);
  EMBER_CHECK(bytes.size() >= header, op, path, ": truncated header: ", bytes.size(),
              " bytes, expected ", header, " for ", ndim, " dims");
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndim; ++d) dims.push_back(big_endian32(&bytes[4 + 4 * size_t(d)]));
  // The values the header claims: a product of up to 255 dims of up to 2^32 each may overflow
  // 64 bits, which is a claim beyond any file rather than a number to compare.
  uint64_t count = 1, expect = 0;
  bool beyond = false;
  for (const int64_t dim : dims)
    beyond = beyond || __builtin_mul_overflow(count, uint64_t(dim), &count);
  beyond = beyond || __builtin_mul_overflow(count, uint64_t(type->bytes), &expect) ||
           __builtin_add_overflow(expect, uint64_t(header), &expect);
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) {  // no values, whatever the rest
    count = 0;
    expect = header;
    beyond = false;
  }
  EMBER_CHECK(
      !beyond && bytes.size() == expect, op, path, ": ",
      beyond || bytes.size() < expect ? "truncated" : "has trailing data", ": the header says ",
      IntArrayRef(dims), " values of ", type->bytes, " byte(s) (",
      beyond ? "more than any file holds" : std::to_string(expect) + " bytes with the header",
      "), the file has ", bytes.size());
  Tensor t = empty(dims, {.dtype = type->dtype});
  if (count == 0) return t;  // no storage to copy into (memcpy takes no null pointer)
  auto* out = static_cast<uint8_t*>(t.data_ptr());
  const uint8_t* in = bytes.data() + header;
  if (type->bytes == 1) {
    std::memcpy(out, in, size_t(count));
  } else {
    // idx stores values big-endian; swap each into the host's little-endian order.
    const int64_t w = type->bytes;
    for (int64_t i = 0; i < int64_t(count); ++i) {
      for (int64_t b = 0; b < w; ++b) out[i * w + b] = in[i * w + (w - 1 - b)];
    }
  }
  return t;
}

}  // namespace ember::data

// ZipWriter. See zip_writer.h. The records, as APPNOTE.TXT (PKWARE's zip specification) lays
// them out, all little-endian:
//   local header  [sig 0x04034b50][version needed][flags][method][time][date][crc][csize][usize]
//                 [name length][extra length][name][extra: zip64 sizes?, "FB" padding]
//   data
//   ... per entry, then the central directory, one record per entry, and its end record(s).
// Sizes and the CRC are known when the data is written (the CRC is patched into the local header
// right after), so no data descriptors follow the data, unlike PyTorch's streaming writer.
#include "serialize/zip_writer.h"

#include <algorithm>

#include "ember/error.h"
#include "serialize/crc32.h"

namespace ember::serialize {
namespace {

constexpr uint64_t kAlignment = 64;
constexpr uint16_t kPaddingField = 0x4246;  // "FB", the extra field PyTorch pads with
constexpr uint16_t kZip64Field = 0x0001;
constexpr uint16_t kUtf8Flag = 1 << 11;  // names are UTF-8
constexpr uint16_t kVersion = 20, kVersionZip64 = 45;
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint32_t kRegularFile0644 = 0100644u << 16;  // external attributes: st_mode << 16
// A fixed time stamp (MS-DOS 1980-01-01 00:00, the earliest there is), so saving the same state
// twice gives the same bytes.
constexpr uint16_t kDosTime = 0, kDosDate = (1 << 5) | 1;
// The data is written in pieces this large, each CRC'd just before the write reads it, so the
// CRC and the kernel's copy share one pass over memory (the piece stays in L2).
constexpr size_t kPiece = size_t(256) << 10;

// Little-endian field writer for the headers.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u16(uint16_t v) { return put(v, 2); }
  Bytes& u32(uint32_t v) { return put(v, 4); }
  Bytes& u64(uint64_t v) { return put(v, 8); }
  Bytes& text(const std::string& s) {
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b.push_back(uint8_t(v >> (8 * i)));
    return *this;
  }
};

uint32_t low32(uint64_t v, bool zip64) { return zip64 ? 0xFFFFFFFFu : uint32_t(v); }

}  // namespace

ZipWriter::ZipWriter(const std::string& path, bool durable)
    : owned_(std::make_unique<AtomicFile>(path, "save", durable)), file_(owned_.get()) {}

ZipWriter::ZipWriter(AtomicFile& file, uint64_t base) : file_(&file), base_(base) {}

void ZipWriter::write(const void* data, size_t size) {
  file_->write_at(base_ + pos_, data, size);
  pos_ += size;
}

void ZipWriter::add(const std::string& name, const void* data, size_t size) {
  EMBER_CHECK(name.size() < 0xFFFF, "save", "zip entry name of ", name.size(),
              " bytes (at most 65534)");
  const bool zip64 = size >= zip64_threshold;
  // The padding field (4 bytes of header + n) puts the data on a multiple of 64.
  const uint64_t header = 30 + name.size() + (zip64 ? 20 : 0) + 4;
  const uint64_t offset = pos_;  // of the local header
  const uint64_t pad = (kAlignment - (offset + header) % kAlignment) % kAlignment;
  Bytes h;
  h.u32(0x04034b50).u16(zip64 ? kVersionZip64 : kVersion).u16(kUtf8Flag).u16(0);
  h.u16(kDosTime).u16(kDosDate).u32(0 /* crc, patched below */);
  h.u32(low32(size, zip64)).u32(low32(size, zip64));
  h.u16(uint16_t(name.size())).u16(uint16_t((zip64 ? 20 : 0) + 4 + pad)).text(name);
  if (zip64) h.u16(kZip64Field).u16(16).u64(size).u64(size);
  h.u16(kPaddingField).u16(uint16_t(pad));
  h.b.resize(h.b.size() + pad, 'Z');
  write(h.b.data(), h.b.size());

  uint32_t crc = 0;
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t done = 0; done < size;) {
    const size_t n = std::min(kPiece, size - done);
    crc = crc32(crc, p + done, n);
    write(p + done, n);
    done += n;
  }
  const uint8_t crc_bytes[4] = {uint8_t(crc), uint8_t(crc >> 8), uint8_t(crc >> 16),
                                uint8_t(crc >> 24)};
  file_->write_at(base_ + offset + 14, crc_bytes, 4);
  entries_.push_back({name, crc, size, offset});
}

void ZipWriter::commit() {
  const uint64_t directory_offset = pos_;
  Bytes d;
  for (const Entry& e : entries_) {
    const bool big = e.size >= zip64_threshold, far = e.offset >= zip64_threshold;
    const bool zip64 = big || far;
    const uint16_t extra = zip64 ? uint16_t(4 + (big ? 16 : 0) + (far ? 8 : 0)) : 0;
    d.u32(0x02014b50).u16(kMadeByUnix | kVersionZip64).u16(zip64 ? kVersionZip64 : kVersion);
    d.u16(kUtf8Flag).u16(0).u16(kDosTime).u16(kDosDate).u32(e.crc);
    d.u32(low32(e.size, big)).u32(low32(e.size, big));
    d.u16(uint16_t(e.name.size())).u16(extra).u16(0 /* comment */).u16(0 /* disk */);
    d.u16(0 /* internal attributes */).u32(kRegularFile0644).u32(low32(e.offset, far));
    d.text(e.name);
    if (zip64) {
      d.u16(kZip64Field).u16(uint16_t(extra - 4));
      if (big) d.u64(e.size).u64(e.size);
      if (far) d.u64(e.offset);
    }
  }
  const uint64_t directory_size = d.b.size();
  const uint64_t count = entries_.size();
  const bool zip64_end = count >= 0xFFFF || directory_offset >= zip64_threshold ||
                         directory_size >= zip64_threshold;
  if (zip64_end) {
    const uint64_t end_offset = directory_offset + directory_size;
    d.u32(0x06064b50).u64(44).u16(kMadeByUnix | kVersionZip64).u16(kVersionZip64);
    d.u32(0).u32(0).u64(count).u64(count).u64(directory_size).u64(directory_offset);
    d.u32(0x07064b50).u32(0).u64(end_offset).u32(1);  // the locator
  }
  d.u32(0x06054b50).u16(0).u16(0);
  d.u16(zip64_end ? 0xFFFF : uint16_t(count)).u16(zip64_end ? 0xFFFF : uint16_t(count));
  d.u32(low32(directory_size, zip64_end)).u32(low32(directory_offset, zip64_end)).u16(0);
  write(d.b.data(), d.b.size());
  if (owned_) owned_->commit();
}

}  // namespace ember::serialize

// ZipReader over libzip. See zip_archive.h.
//
// It talks to libzip through a zip_source_function source of our own instead of libzip's file
// source: the Source serves reads from the file's descriptor and records where they start, which
// tells us where libzip found an entry's data (libzip 1.7 has no API for that), so stored records
// can be viewed in place through the file's mapping.
#include "serialize/zip_archive.h"

#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <vector>

#include "core/parallel.h"
#include "core/read_at.h"
#include "ember/error.h"
#include "serialize/crc32.h"

namespace ember::serialize {
namespace {

std::string zip_message(zip* z) { return zip_error_strerror(zip_get_error(z)); }

std::string error_message(zip_error_t* e) { return zip_error_strerror(e); }

// The seek commands of both sources: whence/offset as libzip passes them, within [0, end].
zip_int64_t seek(uint64_t& pos, uint64_t end, void* args, zip_uint64_t len, zip_error_t* error) {
  const zip_int64_t to = zip_source_seek_compute_offset(pos, end, args, len, error);
  if (to < 0) return -1;
  pos = uint64_t(to);
  return 0;
}

}  // namespace

// ── reader ──────────────────────────────────────────────────────────────
// Serves libzip's reads from the mapped file's descriptor (pread copies from the page cache;
// reading the mapping instead would fault in its pages, which costs more on some machines).
// `first_read` is where the first read after it was reset started: view() uses it to learn
// where an entry's data begins.
struct ZipReader::Source {
  static constexpr uint64_t kUnset = ~uint64_t(0);
  int fd;
  uint64_t base, size;  // the archive is bytes [base, base + size) of the file
  uint64_t pos = 0, first_read = kUnset;
  zip_error_t error;

  Source(int f, uint64_t b, uint64_t n) : fd(f), base(b), size(n) { zip_error_init(&error); }
  ~Source() { zip_error_fini(&error); }

  static zip_int64_t call(void* self, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
    auto& s = *static_cast<Source*>(self);
    const uint64_t size = s.size;
    switch (cmd) {
      case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS,
                                              ZIP_SOURCE_ACCEPT_EMPTY, -1);
      case ZIP_SOURCE_ACCEPT_EMPTY:
        return 0;  // an empty file is not an (empty) archive
      case ZIP_SOURCE_OPEN:
        s.pos = 0;
        return 0;
      case ZIP_SOURCE_READ: {
        const uint64_t want = std::min<uint64_t>(len, size - s.pos);  // seek keeps pos <= size
        if (s.first_read == kUnset) s.first_read = s.pos;
        // (a file that shrank under us reads short: libzip reports that)
        const int64_t n = read_at(s.fd, static_cast<char*>(data), want, s.base + s.pos);
        if (n < 0) {
          zip_error_set(&s.error, ZIP_ER_READ, errno);
          return -1;
        }
        s.pos += uint64_t(n);
        return zip_int64_t(n);
      }
      case ZIP_SOURCE_STAT: {
        auto* st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &s.error);
        if (!st) return -1;
        zip_stat_init(st);
        st->size = size;
        st->valid |= ZIP_STAT_SIZE;
        return sizeof(*st);
      }
      case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&s.error, data, len);
      case ZIP_SOURCE_SEEK:
        return seek(s.pos, size, data, len, &s.error);
      case ZIP_SOURCE_TELL:
        return zip_int64_t(s.pos);
      case ZIP_SOURCE_CLOSE:
      case ZIP_SOURCE_FREE:
        return 0;
      default:
        zip_error_set(&s.error, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
  }
};

ZipReader::ZipReader(const std::string& path, uint64_t offset, uint64_t length)
    : path_(path), map_(MappedFile::open(path, "load", &fd_)) {
  base_ = offset;
  size_ = length == kWholeFile ? map_->size() - std::min(offset, map_->size()) : length;
  if (offset > map_->size() || size_ > map_->size() - offset) {
    ::close(fd_);
    fail("load", "'", path, "' has ", map_->size(), " bytes; an archive at bytes ", offset, "..",
         offset + size_, " does not fit");
  }
  source_ = std::make_unique<Source>(fd_, base_, size_);
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_function_create(&Source::call, source_.get(), &error);
  if (src) archive_ = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (archive_) {
    zip_error_fini(&error);
    return;
  }
  if (src) zip_source_free(src);
  ::close(fd_);  // the destructor does not run when the constructor throws
  const int code = zip_error_code_zip(&error);
  const std::string msg = error_message(&error);
  zip_error_fini(&error);
  // Say what the file is instead, when we can tell from its first bytes.
  unsigned char head[4] = {};
  if (size_ > 0) std::memcpy(head, map_->data() + base_, std::min<uint64_t>(sizeof(head), size_));
  if (head[0] == 0x80 && head[1] == 0x02 && head[2] == 0x8a && head[3] == 0x0a)
    fail("load", "'", path,
         "' is in PyTorch's legacy (pre-1.6, non-zip) format; re-save it "
         "with torch.save(obj, path) from a current PyTorch");
  if (head[0] == 'P' && head[1] == 'K')
    fail("load", "'", path, "' is a truncated or corrupt zip archive (libzip error ", code, ")");
  fail("load", "'", path, "' is not a PyTorch checkpoint (not a zip archive: ", msg, ")");
}

ZipReader::~ZipReader() {
  if (archive_) zip_discard(archive_);
  ::close(fd_);
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  const zip_int64_t n = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (const char* name = zip_get_name(archive_, zip_uint64_t(i), 0)) out.emplace_back(name);
  return out;
}

int64_t ZipReader::index(const std::string& name) const {
  return zip_name_locate(archive_, name.c_str(), 0);
}

bool ZipReader::has(const std::string& name) const { return index(name) >= 0; }

uint64_t ZipReader::size(const std::string& name) const {
  const int64_t i = index(name);
  if (i < 0) fail("load", "'", path_, "' has no record '", name, "'");
  zip_stat_t st;
  if (zip_stat_index(archive_, zip_uint64_t(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) ||
      !(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
    fail("load", "cannot stat record '", name, "': ", zip_message(archive_));
  // A record cannot be bigger than the file unless compressed; deflate expands at most ~1032x.
  const uint64_t limit = st.comp_method == ZIP_CM_STORE ? st.comp_size : st.comp_size * 1032;
  if (st.comp_size > size_ || st.size > limit)
    fail("load", "record '", name, "' declares ", st.size, " bytes, more than the ", size_,
         "-byte file can hold");
  return st.size;
}

void ZipReader::read(const std::string& name, void* out, uint64_t size) const {
  read_all({{name, out, size}});
}

void ZipReader::read_through_libzip(const std::string& name, int64_t i, void* out,
                                    uint64_t size) const {
  zip_file_t* f = zip_fopen_index(archive_, zip_uint64_t(i), 0);
  if (!f) fail("load", "cannot open record '", name, "': ", zip_message(archive_));
  // One read past the end: libzip checks the CRC (and the size) when it reaches the end of data.
  char past;
  for (uint64_t done = 0; done <= size;) {
    const bool tail = done == size;
    const zip_int64_t n =
        tail ? zip_fread(f, &past, 1) : zip_fread(f, static_cast<char*>(out) + done, size - done);
    if (n < 0 || (n == 0) != tail) {
      const std::string msg = n < 0    ? zip_error_strerror(zip_file_get_error(f))
                              : n == 0 ? "end of data"
                                       : "more data than its declared size";
      zip_fclose(f);
      fail("load", "record '", name, "' is truncated or corrupt: ", msg);
    }
    done += tail ? 1 : uint64_t(n);
  }
  zip_fclose(f);
}

std::string ZipReader::read_string(const std::string& name, uint64_t max_size) const {
  const uint64_t n = size(name);
  if (n > max_size)
    fail("load", "record '", name, "' is ", n, " bytes, over the ", max_size, " limit");
  std::string s(n, '\0');
  read(name, s.data(), n);
  return s;
}

uint64_t ZipReader::stored_offset(int64_t i, zip_stat_t& st) const {
  if (i < 0 || zip_stat_index(archive_, zip_uint64_t(i), 0, &st) != 0) return kNotStored;
  const uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD |
                        ZIP_STAT_ENCRYPTION_METHOD | ZIP_STAT_CRC;
  if ((st.valid & need) != need || st.comp_method != ZIP_CM_STORE ||
      st.encryption_method != ZIP_EM_NONE || st.size != st.comp_size || st.size == 0)
    return kNotStored;
  // Open the entry raw and read its first bytes: libzip finds the data behind the local header
  // (which ZIP_CHECKCONS matched with the central directory) and reads them from there.
  zip_file_t* f = zip_fopen_index(archive_, zip_uint64_t(i), ZIP_FL_COMPRESSED);
  if (!f) return kNotStored;
  char head[64];
  const uint64_t n = std::min<uint64_t>(sizeof(head), st.size);
  source_->first_read = Source::kUnset;
  const zip_int64_t got = zip_fread(f, head, n);
  const uint64_t offset = source_->first_read;
  zip_fclose(f);
  // Trust the offset only if those bytes are the file's at that offset and the whole entry lies
  // inside the file; anything else takes libzip's reading path (which reports the error). Read
  // again, not compared with the mapping: touching a record's first page would fault it in (on
  // a shadow-paging VM an exit to the hypervisor per record: the mmap load of 25 records went
  // 2.9 -> 0.5 ms on a Zen 5 guest, the copying load 9.4 -> 8.2 ms).
  const uint64_t file = size_;
  char again[sizeof(head)];
  if (got != zip_int64_t(n) || offset == Source::kUnset || offset > file ||
      st.size > file - offset || read_at(fd_, again, n, base_ + offset) != int64_t(n) ||
      std::memcmp(again, head, n) != 0)
    return kNotStored;
  return offset;
}

Storage ZipReader::view(const std::string& name, uint64_t alignment) const {
  zip_stat_t st;
  const uint64_t offset = stored_offset(index(name), st);
  if (offset == kNotStored || (base_ + offset) % alignment != 0) return {};
  return map_->storage(base_ + offset, st.size);
}

// Note [Checked copy]: a stored record is read with pread into its tensor in 256 KiB pieces, each
// CRC-checked right after, while it is still in L2, so the data crosses memory once. Not copied
// out of the file's mapping: a fresh mapping costs a fault, or on a shadow-paging VM an exit to
// the hypervisor, for every page it touches (100 MiB from a new mapping: 41-48 ms on a Zen 5
// guest, where pread takes 9-10), and the kernel's copy from the page cache touches no new pages.
// The records' bytes are cut into parts of at most 8 MiB, which the threads share (a checkpoint
// of many 4 MiB tensors loads on every core, a single big record too); each part's CRC is joined
// with zlib's crc32_combine in order and compared with the central directory's, as libzip does.
// Below 8 MiB in all, one thread: a team's start-up costs more than it saves. stored_offset() has
// checked that every record lies inside the file.
void ZipReader::read_all(const std::vector<RecordRead>& reads) const {
  constexpr int64_t kPerPart = int64_t(8) << 20;
  struct Part {
    size_t read;  // index into reads
    uint64_t file_offset;
    int64_t begin, end;  // bytes of the record
    uint32_t crc = 0;
  };
  std::vector<Part> parts;
  std::vector<uint32_t> expected_crc(reads.size());
  std::vector<size_t> through_libzip;
  uint64_t total = 0;
  for (size_t r = 0; r < reads.size(); ++r) {
    const int64_t i = index(reads[r].name);
    if (i < 0) fail("load", "'", path_, "' has no record '", reads[r].name, "'");
    zip_stat_t st;
    const uint64_t offset = stored_offset(i, st);
    if (offset == kNotStored || st.size != reads[r].size) {
      through_libzip.push_back(r);
      continue;
    }
    expected_crc[r] = st.crc;
    const auto size = int64_t(reads[r].size);
    for (int64_t b = 0; b < size; b += kPerPart)
      parts.push_back({r, base_ + offset, b, std::min(size, b + kPerPart)});
    total += reads[r].size;
  }
  constexpr int64_t kPiece = int64_t(256) << 10;
  auto read_part = [&](Part& p) {
    char* dst = static_cast<char*>(reads[p.read].out) + p.begin;
    for (int64_t b = p.begin; b < p.end; b += kPiece, dst += kPiece) {
      const auto n = uint64_t(std::min(kPiece, p.end - b));
      const int64_t got = read_at(fd_, dst, n, p.file_offset + uint64_t(b));
      if (got != int64_t(n))
        fail("load", "cannot read record '", reads[p.read].name, "' of '", path_,
             "': ", got < 0 ? std::strerror(errno) : "the file ended early");
      p.crc = crc32(p.crc, dst, n);
    }
  };
  if (total < uint64_t(kPerPart)) {
    for (Part& p : parts) read_part(p);
  } else {
    parallel_for(0, int64_t(parts.size()), 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) read_part(parts[size_t(k)]);
    });
  }
  for (size_t k = 0; k < parts.size();) {  // the parts of one record are adjacent, in order
    const size_t r = parts[k].read;
    uint32_t crc = 0;
    for (; k < parts.size() && parts[k].read == r; ++k) {
      const Part& p = parts[k];
      crc = p.begin == 0 ? p.crc : uint32_t(crc32_combine64(crc, p.crc, p.end - p.begin));
    }
    if (crc != expected_crc[r])
      fail("load", "record '", reads[r].name, "' is truncated or corrupt: CRC error (", crc,
           " instead of ", expected_crc[r], ")");
  }
  for (size_t r : through_libzip)
    read_through_libzip(reads[r].name, index(reads[r].name), reads[r].out, reads[r].size);
}

}  // namespace ember::serialize

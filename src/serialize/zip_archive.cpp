// ZipWriter / ZipReader over libzip. See zip_archive.h.
#include "serialize/zip_archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"

namespace ember::serialize {
namespace {

constexpr uint64_t kAlignment = 64;
constexpr uint16_t kPaddingField = 0x4246;  // "FB", the extra field PyTorch pads with

std::string zip_message(zip* z) { return zip_error_strerror(zip_get_error(z)); }

}  // namespace

ZipWriter::ZipWriter(const std::string& path) : file_(path, "save") {
  // libzip writes into its own temporary file and renames it over ours at zip_close.
  int err = 0;
  archive_ = zip_open(file_.tmp_path().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!archive_) {
    zip_error_t e;
    zip_error_init_with_code(&e, err);
    const std::string msg = zip_error_strerror(&e);
    zip_error_fini(&e);
    fail("save", "cannot write '", path, "': ", msg);
  }
}

ZipWriter::~ZipWriter() {
  if (archive_) zip_discard(archive_);
}

void ZipWriter::add(const std::string& name, const void* data, size_t size) {
  // libzip writes entries in order as [local header 30 B + name + extra fields][data]; a zip64
  // field (20 B) joins the header of entries of 4 GiB and more. We pad the header with one extra
  // field of 4 + n bytes so that the data lands on a multiple of 64.
  uint64_t header = 30 + name.size() + (size >= 0xFFFFFFFFull ? 20 : 0) + 4;
  const uint64_t pad = (kAlignment - (offset_ + header) % kAlignment) % kAlignment;
  zip_source_t* src = zip_source_buffer(archive_, data, size, 0);
  if (!src) fail("save", "libzip: ", zip_message(archive_));
  const zip_int64_t index = zip_file_add(archive_, name.c_str(), src, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(src);
    fail("save", "cannot add '", name, "': ", zip_message(archive_));
  }
  const std::vector<uint8_t> padding(pad, 'Z');
  if (zip_set_file_compression(archive_, zip_uint64_t(index), ZIP_CM_STORE, 0) != 0 ||
      zip_file_extra_field_set(archive_, zip_uint64_t(index), kPaddingField, ZIP_EXTRA_FIELD_NEW,
                               padding.data(), zip_uint16_t(pad), ZIP_FL_LOCAL) != 0)
    fail("save", "cannot add '", name, "': ", zip_message(archive_));
  offset_ += header + pad + size;
}

void ZipWriter::commit() {
  if (zip_close(archive_) != 0)
    fail("save", "cannot write '", file_.path(), "': ", zip_message(archive_));
  archive_ = nullptr;
  file_.commit();
}

// ── reader ──────────────────────────────────────────────────────────────
ZipReader::ZipReader(const std::string& path) : path_(path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0)
    fail("load", "cannot open '", path, "': ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail("load", "'", path, "' is not a regular file");
  file_size_ = uint64_t(st.st_size);
  int err = 0;
  archive_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (archive_) return;
  // Say what the file is instead, when we can tell from its first bytes.
  unsigned char head[8] = {};
  if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    [[maybe_unused]] const ssize_t n = ::read(fd, head, sizeof(head));
    ::close(fd);
  }
  if (head[0] == 0x80 && head[1] == 0x02 && head[2] == 0x8a && head[3] == 0x0a)
    fail("load", "'", path, "' is in PyTorch's legacy (pre-1.6, non-zip) format; re-save it "
         "with torch.save(obj, path) from a current PyTorch");
  if (head[0] == 'P' && head[1] == 'K')
    fail("load", "'", path, "' is a truncated or corrupt zip archive (libzip error ", err, ")");
  zip_error_t e;
  zip_error_init_with_code(&e, err);
  const std::string msg = zip_error_strerror(&e);
  zip_error_fini(&e);
  fail("load", "'", path, "' is not a PyTorch checkpoint (not a zip archive: ", msg, ")");
}

ZipReader::~ZipReader() {
  if (archive_) zip_discard(archive_);
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
  if (st.comp_size > file_size_ || st.size > limit)
    fail("load", "record '", name, "' declares ", st.size, " bytes, more than the ", file_size_,
         "-byte file can hold");
  return st.size;
}

void ZipReader::read(const std::string& name, void* out, uint64_t size) const {
  const int64_t i = index(name);
  if (i < 0) fail("load", "'", path_, "' has no record '", name, "'");
  zip_file_t* f = zip_fopen_index(archive_, zip_uint64_t(i), 0);
  if (!f) fail("load", "cannot open record '", name, "': ", zip_message(archive_));
  uint64_t done = 0;
  while (done < size) {
    const zip_int64_t n = zip_fread(f, static_cast<char*>(out) + done, size - done);
    if (n <= 0) {
      const std::string msg = n < 0 ? zip_error_strerror(zip_file_get_error(f)) : "end of data";
      zip_fclose(f);
      fail("load", "record '", name, "' is truncated or corrupt: ", msg);
    }
    done += uint64_t(n);
  }
  zip_fclose(f);
}

std::string ZipReader::read_string(const std::string& name, uint64_t max_size) const {
  const uint64_t n = size(name);
  if (n > max_size) fail("load", "record '", name, "' is ", n, " bytes, over the ", max_size, " limit");
  std::string s(n, '\0');
  read(name, s.data(), n);
  return s;
}

}  // namespace ember::serialize

// FileStore: an append-only log of records in one file, shared by processes through flock.
// Note [FileStore log]: every change appends a record — [kind u8][key len u32][key][value len
// u32][value] with kind 'S' (set) or 'D' (delete) — under an exclusive lock; readers take a shared
// lock and replay only the bytes they have not seen. A whole record is written by one write()
// under the lock, so a reader never sees half of one. add() and compare_set() replay and append
// under the same exclusive lock, which makes them atomic across processes.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/read_at.h"
#include "distributed/store_detail.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::dist {

struct FileStore::State {
  std::string path;
  int fd = -1;
  std::mutex mutex;  // the threads of this process; flock orders the processes
  detail::KeyValueMap map;
  off_t replayed = 0;  // bytes of the log already applied to map

  // Holds flock for its lifetime (LOCK_SH or LOCK_EX).
  struct FileLock {
    int fd;
    FileLock(int fd_, int how, const std::string& path) : fd(fd_) {
      while (::flock(fd, how) != 0)
        EMBER_CHECK(errno == EINTR, "FileStore", "cannot lock '", path, "': ", std::strerror(errno));
    }
    ~FileLock() { ::flock(fd, LOCK_UN); }
  };

  // Applies the records appended since the last call. Called with the file locked.
  void replay() {
    const off_t end = ::lseek(fd, 0, SEEK_END);
    EMBER_CHECK(end >= 0, "FileStore", "cannot read '", path, "': ", std::strerror(errno));
    if (end == replayed) return;
    std::string bytes(static_cast<size_t>(end - replayed), '\0');
    const int64_t n = read_at(fd, bytes.data(), bytes.size(), uint64_t(replayed));
    EMBER_CHECK(n == int64_t(bytes.size()), "FileStore", "cannot read '", path,
                "': ", n < 0 ? std::strerror(errno) : "file truncated");
    size_t at = 0;
    auto take_string = [&](std::string& out) {
      uint32_t length;
      EMBER_CHECK(at + 4 <= bytes.size(), "FileStore", "'", path, "' is corrupt (a cut record)");
      std::memcpy(&length, bytes.data() + at, 4);
      at += 4;
      EMBER_CHECK(at + length <= bytes.size(), "FileStore", "'", path,
                  "' is corrupt (a cut record)");
      out.assign(bytes.data() + at, length);
      at += length;
    };
    while (at < bytes.size()) {
      const char kind = bytes[at++];
      std::string key, value;
      take_string(key);
      take_string(value);
      if (kind == 'S') {
        map.values[key] = std::move(value);
      } else {
        EMBER_CHECK(kind == 'D', "FileStore", "'", path, "' is corrupt (record kind ",
                    static_cast<int>(kind), ")");
        map.values.erase(key);
      }
    }
    replayed = end;
  }

  // Appends one record for a change already made to map. Called with the file locked
  // exclusively, after replay().
  void append(char kind, const std::string& key, const std::string& value) {
    std::string record(1, kind);
    auto put_string = [&](const std::string& s) {
      const auto length = static_cast<uint32_t>(s.size());
      record.append(reinterpret_cast<const char*>(&length), 4).append(s);
    };
    put_string(key);
    put_string(value);
    size_t done = 0;
    while (done < record.size()) {
      const ssize_t n = ::write(fd, record.data() + done, record.size() - done);
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n > 0, "FileStore", "cannot write '", path, "': ", std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    replayed += static_cast<off_t>(record.size());
  }

  // body() on the up-to-date map, with the file locked `how` (LOCK_EX to change it).
  template <class F>
  auto locked(int how, F&& body) {
    std::lock_guard guard(mutex);
    FileLock lock(fd, how, path);
    replay();
    return body();
  }
  template <class F>
  auto exclusive(F&& body) {
    return locked(LOCK_EX, std::forward<F>(body));
  }
  template <class F>
  auto shared(F&& body) {
    return locked(LOCK_SH, std::forward<F>(body));
  }
};

FileStore::FileStore(std::string path, std::chrono::milliseconds timeout)
    : Store(timeout), state_(std::make_unique<State>()) {
  state_->path = std::move(path);
  state_->fd = ::open(state_->path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  EMBER_CHECK(state_->fd >= 0, "FileStore", "cannot open '", state_->path, "': ",
              std::strerror(errno));
}

FileStore::~FileStore() {
  if (state_->fd >= 0) ::close(state_->fd);
}

const std::string& FileStore::path() const { return state_->path; }

void FileStore::set(const std::string& key, const std::string& value) {
  state_->exclusive([&] {
    state_->map.values[key] = value;
    state_->append('S', key, value);
  });
}

std::string FileStore::get(const std::string& key) {
  wait_for({key}, timeout());
  return state_->shared([&] {
    auto it = state_->map.values.find(key);
    // Deleted between the wait and the read: report it as the timeout it amounts to.
    if (it == state_->map.values.end())
      detail::throw_wait_timeout("FileStore.get", {key}, timeout(), " in '" + state_->path + "'");
    return it->second;
  });
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  return state_->exclusive([&] {
    const int64_t result = state_->map.add("FileStore.add", key, delta);
    state_->append('S', key, std::to_string(result));
    return result;
  });
}

std::string FileStore::compare_set(const std::string& key, const std::string& expected,
                                   const std::string& desired) {
  return state_->exclusive([&] {
    std::string result = state_->map.compare_set(key, expected, desired);
    // Logging an unchanged value again is harmless; skipping the swapped one is not.
    if (result == desired && state_->map.values.count(key)) state_->append('S', key, desired);
    return result;
  });
}

bool FileStore::check(const std::vector<std::string>& keys) {
  return state_->shared([&] { return state_->map.has_all(keys); });
}

bool FileStore::delete_key(const std::string& key) {
  return state_->exclusive([&] {
    if (state_->map.values.erase(key) == 0) return false;
    state_->append('D', key, "");
    return true;
  });
}

int64_t FileStore::num_keys() {
  return state_->shared([&] { return static_cast<int64_t>(state_->map.values.size()); });
}

void FileStore::wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  // Another process's write wakes nobody here, so poll, backing off from 1 ms to 20 ms.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline)
      detail::throw_wait_timeout("FileStore.wait",
                                 state_->shared([&] { return state_->map.missing(keys); }),
                                 timeout, " in '" + state_->path + "'");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace ember::dist

// Checkpoints in PyTorch's own format: save() writes what torch.save writes (a zip archive with
// a protocol-2 pickle and raw storages) and load() reads files from torch.save (1.13 and 2.x),
// never executing anything from the file: the unpickler only knows an allowlist of globals.
//
//   save(model->state_dict(), "model.pt");        // torch.load("model.pt", weights_only=True)
//   Value ck = load("checkpoint.pt", {.map_location = kCPU});
//   ck["epoch"].to_int();  ck["model_state_dict"].to_state_dict();
//
// Safetensors files (weights only, mmapped on load) are in ember/safetensors.h.
#pragma once

#include <functional>
#include <string>

#include "ember/device.h"
#include "ember/value.h"

namespace ember {

/// Where load() puts the tensors: the saved device (default), one device, or a function of the
/// saved location ("cpu", "cuda:1") — torch.load's map_location.
class MapLocation {
 public:
  MapLocation() = default;
  MapLocation(Device device) : device_(device), set_(true) {}           // NOLINT: = kCPU
  MapLocation(DeviceType type) : MapLocation(Device(type)) {}           // NOLINT
  MapLocation(const char* spec) : MapLocation(Device(spec)) {}          // NOLINT: = "cpu"
  MapLocation(std::function<Device(const Device& saved)> fn) : fn_(std::move(fn)) {}  // NOLINT

  /// The device for a storage saved at `saved`.
  Device operator()(const Device& saved) const {
    return fn_ ? fn_(saved) : set_ ? device_ : saved;
  }

 private:
  Device device_;
  bool set_ = false;
  std::function<Device(const Device&)> fn_;
};

struct LoadOptions {
  MapLocation map_location;
  /// true: only what torch.load(weights_only=True) accepts (containers, scalars, strings,
  /// tensors, torch.Size). false also accepts torch.device (as its string) and bytes from
  /// _codecs.encode (as a string of raw bytes). Neither ever runs code from the file.
  bool weights_only = true;
  /// true: CPU tensors view the file through a private mapping instead of copying it, where a
  /// storage's bytes are stored uncompressed and aligned for its dtype (always so in files from
  /// torch.save and save()); writes to them never reach the file. See Note [Mapped tensors and
  /// the file] in src/serialize/mapped_file.h. false: every storage is copied, as torch.load.
  /// The mapping is paid for at the first touch of each page: on a virtual machine that
  /// shadow-pages, a hypervisor exit per page (100 MiB read through a new mapping: about 45 ms,
  /// copied: about 8), so a program that will read every tensor there loads faster with false.
  bool mmap = true;
};

struct SaveOptions {
  /// true: fsync the file and its directory before save() returns, so the new checkpoint
  /// survives a power loss. false: still atomic (readers see the old or the new file), but the
  /// data may be lost in a crash of the machine; as torch.save, which never syncs.
  bool sync = true;
};

/// Writes `value` to `path` as torch.save does (atomically: a crash mid-save keeps the old file;
/// durably unless options.sync is false). Views of one storage keep sharing it; ordered dicts
/// (state dicts) carry `_metadata`.
void save(const Value& value, const std::string& path, const SaveOptions& options = {});

/// Reads a file written by torch.save (zip format) or by save(). Throws ember::Error naming the
/// problem for a missing, legacy, TorchScript, truncated or hostile file.
Value load(const std::string& path, const LoadOptions& options = {});

}  // namespace ember

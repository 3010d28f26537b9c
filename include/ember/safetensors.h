// Safetensors files (huggingface/safetensors): an 8-byte little-endian header length, a JSON
// header {name: {"dtype", "shape", "data_offsets": [begin, end)}, "__metadata__": {str: str}},
// then the packed tensor bytes. Weights only — no code, no views, no optimizer structure — and
// loadable without copying: load_file maps the file and its tensors view the mapping.
//
//   safetensors::save_file(model->state_dict(), "model.safetensors", {{"format", "pt"}});
//   model->load_state_dict(safetensors::load_file("model.safetensors"));
#pragma once

#include <map>
#include <string>

#include "ember/value.h"

namespace ember::safetensors {

using Metadata = std::map<std::string, std::string>;

/// Writes the tensors (packed, C order) atomically. Like the Python package it orders the data
/// by descending alignment so that every tensor starts on a multiple of its itemsize.
void save_file(const StateDict& tensors, const std::string& path, const Metadata& metadata = {});

/// Reads every tensor, sorted by name. Tensors whose data is aligned in the file view a private
/// copy-on-write mapping of it (no copy; in-place writes never reach the file); others are copied.
/// Offsets, sizes, dtypes and the JSON are validated strictly: any inconsistency is an Error.
StateDict load_file(const std::string& path);

/// The header's "__metadata__" (empty when absent).
Metadata load_metadata(const std::string& path);

}  // namespace ember::safetensors

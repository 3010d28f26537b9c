// torchelastic's error file: what a failed worker tells its launcher. The layout is PyTorch's
// (torch/distributed/elastic/multiprocessing/errors/error_handler.py), so either side may be
// PyTorch: {"message": {"message": "...", "extraInfo": {"py_callstack": "...",
// "timestamp": "1796297513"}}}.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "ember/distributed/elastic.h"

namespace ember::dist::elastic {

bool write_error_file(const std::string& message, const std::string& details) {
  const char* path = std::getenv("TORCHELASTIC_ERROR_FILE");
  if (path == nullptr || *path == '\0') return false;
  try {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    nlohmann::json record = {
        {"message",
         {{"message", message},
          {"extraInfo",
           {{"py_callstack", details.empty() ? message : details},
            {"timestamp",
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count())}}}}}};
    const std::filesystem::path file(path);
    std::error_code ignored;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ignored);
    // Written beside and renamed, so the launcher never reads half a file.
    const std::filesystem::path partial = file.string() + ".partial";
    {
      std::ofstream out(partial, std::ios::trunc);
      // error_handler="replace": a message cut mid-character must still reach the launcher.
      out << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
      if (!out.flush()) return false;
    }
    std::filesystem::rename(partial, file, ignored);
    return !ignored;
  } catch (...) {
    return false;  // reporting a failure must never become a second one
  }
}

std::optional<ErrorRecord> read_error_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("message")) return std::nullopt;
  const nlohmann::json& outer = doc["message"];
  ErrorRecord record;
  if (outer.is_string()) {  // torchelastic also accepts a bare message string
    record.message = outer.get<std::string>();
    return record;
  }
  if (!outer.is_object() || !outer.contains("message") || !outer["message"].is_string()) {
    return std::nullopt;
  }
  record.message = outer["message"].get<std::string>();
  if (outer.contains("extraInfo") && outer["extraInfo"].is_object()) {
    const nlohmann::json& extra = outer["extraInfo"];
    if (extra.contains("py_callstack") && extra["py_callstack"].is_string()) {
      record.details = extra["py_callstack"].get<std::string>();
    }
    if (extra.contains("timestamp") && extra["timestamp"].is_string()) {
      record.timestamp = std::atoll(extra["timestamp"].get<std::string>().c_str());
    }
  }
  return record;
}

}  // namespace ember::dist::elastic

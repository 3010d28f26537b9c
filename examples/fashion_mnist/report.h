// report.html: one self-contained page (inline SVG and CSS, nothing fetched) with a run's
// curves (loss, accuracy, learning rate, images/s per epoch), its configuration and its result.
// The job rewrites it after every epoch; `ember-report <run dir>` rebuilds it from metrics.csv
// and summary.json.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "trainer.h"

namespace fashion_mnist {

struct RunReport {
  std::string title = "Fashion-MNIST training run";
  std::string status;  // "Running: 2 of 5 epochs done", "Finished", ...
  std::vector<std::pair<std::string, std::string>> config;  // shown as given
  std::vector<std::pair<std::string, std::string>> result;  // empty while running
  std::vector<EpochMetrics> history;
};

/// The page (XHTML-style markup: every element closed, so it also parses as XML).
std::string render_report(const RunReport& report);

/// The report of a run directory: metrics.csv (required) and summary.json (when present).
RunReport read_run_directory(const std::string& dir);

/// The report of a run in progress or finished, from the job's own state.
RunReport make_report(const TrainConfig& config, const std::vector<EpochMetrics>& history,
                      const TrainResult* final_result);

}  // namespace fashion_mnist

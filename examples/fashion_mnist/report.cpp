// The training report's page. Each plot is an inline <svg> drawn here: nice-number y ticks,
// one x tick per epoch, a polyline per series and a circle per point whose <title> is its
// value (a tooltip) and whose data-value attribute carries it exactly (tests read it).
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <ember/error.h>
#include <nlohmann/json.hpp>

namespace fashion_mnist {
namespace {

constexpr const char* kReportOp = "ember-report";

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double v, const char* format = "%.6g") {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

struct Series {
  std::string label, color;
  std::vector<double> values;  // one per epoch
};

// Rounds a step up to 1, 2 or 5 times a power of ten.
double nice_step(double range, int ticks) {
  const double raw = range / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

std::string plot(const std::string& metric, const std::string& title,
                 const std::vector<int64_t>& epochs, const std::vector<Series>& series) {
  constexpr double kWidth = 440, kHeight = 250, kLeft = 62, kRight = 16, kTop = 30, kBottom = 40;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double lo = INFINITY, hi = -INFINITY;
  for (const Series& s : series)
    for (double v : s.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) {
    const double pad = std::abs(hi) > 0 ? std::abs(hi) * 0.05 : 1;
    lo -= pad, hi += pad;
  }
  const double step = nice_step(hi - lo, 4);
  const double y0 = std::floor(lo / step) * step, y1 = std::ceil(hi / step) * step;
  const size_t n = epochs.size();
  auto x_of = [&](size_t i) {
    return n <= 1 ? kLeft + plot_w / 2 : kLeft + plot_w * double(i) / double(n - 1);
  };
  auto y_of = [&](double v) { return kTop + plot_h * (1 - (v - y0) / (y1 - y0)); };

  std::ostringstream os;
  os << "<figure class=\"plot\" id=\"plot-" << metric << "\">\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" data-metric=\"" << metric << "\" width=\""
     << kWidth << "\" height=\"" << kHeight << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
     << "\" role=\"img\" aria-label=\"" << escape(title) << "\">\n"
     << "<text x=\"" << kLeft << "\" y=\"18\" class=\"title\">" << escape(title) << "</text>\n";
  for (double v = y0; v <= y1 + step / 2; v += step) {
    const double y = y_of(v);
    os << "<line class=\"grid\" x1=\"" << kLeft << "\" x2=\"" << kLeft + plot_w << "\" y1=\""
       << number(y) << "\" y2=\"" << number(y) << "\"/>\n"
       << "<text class=\"tick\" x=\"" << kLeft - 6 << "\" y=\"" << number(y + 4)
       << "\" text-anchor=\"end\">" << number(std::abs(v) < step * 1e-9 ? 0 : v, "%.4g")
       << "</text>\n";
  }
  const size_t label_every = std::max<size_t>(1, n / 10);
  for (size_t i = 0; i < n; ++i) {
    if (i % label_every != 0 && i + 1 != n) continue;
    os << "<text class=\"tick\" x=\"" << number(x_of(i)) << "\" y=\"" << kTop + plot_h + 16
       << "\" text-anchor=\"middle\">" << epochs[i] << "</text>\n";
  }
  os << "<text class=\"tick\" x=\"" << kLeft + plot_w / 2 << "\" y=\"" << kHeight - 6
     << "\" text-anchor=\"middle\">epoch</text>\n"
     << "<rect class=\"frame\" x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plot_w
     << "\" height=\"" << plot_h << "\"/>\n";
  // A legend only where a plot has several series (a single one is named by the title).
  double legend_x = kLeft + plot_w;
  for (auto it = series.rbegin(); series.size() > 1 && it != series.rend(); ++it) {
    const Series& s = *it;
    legend_x -= 8.0 * double(s.label.size()) + 24;
    os << "<g class=\"legend\"><rect x=\"" << number(legend_x) << "\" y=\"9\" width=\"12\" "
       << "height=\"4\" fill=\"" << s.color << "\"/><text x=\"" << number(legend_x + 16)
       << "\" y=\"15\">" << escape(s.label) << "</text></g>\n";
  }
  for (const Series& s : series) {
    os << "<g class=\"series\" data-series=\"" << escape(s.label) << "\">\n";
    if (n > 1) {
      os << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"2\" points=\"";
      for (size_t i = 0; i < n; ++i)
        os << (i ? " " : "") << number(x_of(i)) << ',' << number(y_of(s.values[i]));
      os << "\"/>\n";
    }
    for (size_t i = 0; i < n; ++i) {
      os << "<circle cx=\"" << number(x_of(i)) << "\" cy=\"" << number(y_of(s.values[i]))
         << "\" r=\"3.5\" fill=\"" << s.color << "\" data-epoch=\"" << epochs[i]
         << "\" data-value=\"" << number(s.values[i], "%.9g") << "\"><title>" << escape(s.label)
         << ", epoch " << epochs[i] << ": " << number(s.values[i]) << "</title></circle>\n";
    }
    os << "</g>\n";
  }
  os << "</svg>\n</figure>\n";
  return os.str();
}

std::string key_value_table(const std::string& id,
                            const std::vector<std::pair<std::string, std::string>>& rows) {
  std::ostringstream os;
  os << "<table class=\"kv\" id=\"" << id << "\">\n";
  for (const auto& [k, v] : rows)
    os << "<tr><th>" << escape(k) << "</th><td>" << escape(v) << "</td></tr>\n";
  os << "</table>\n";
  return os.str();
}

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px 0; }
h2 { font-size: 16px; margin: 20px 0 8px 0; }
.status { color: #555; margin-bottom: 12px; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
figure.plot { margin: 0; border: 1px solid #ddd; border-radius: 4px; background: #fcfcfc; }
svg text { font-size: 11px; fill: #333; }
svg text.title { font-size: 13px; font-weight: bold; }
svg .grid { stroke: #e4e4e4; stroke-width: 1; }
svg .frame { fill: none; stroke: #999; stroke-width: 1; }
.columns { display: flex; flex-wrap: wrap; gap: 32px; }
table { border-collapse: collapse; font-size: 13px; }
table.kv th { text-align: left; padding: 2px 16px 2px 0; font-weight: normal; color: #555; }
table.kv td { padding: 2px 0; font-family: "DejaVu Sans Mono", monospace; }
table.epochs th, table.epochs td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
table.epochs td { font-family: "DejaVu Sans Mono", monospace; }
)";

}  // namespace

std::string render_report(const RunReport& r) {
  std::vector<int64_t> epochs;
  Series train{"train loss", "#1f77b4", {}}, val{"val loss", "#ff7f0e", {}},
      acc{"val accuracy", "#2ca02c", {}}, lr{"learning rate", "#9467bd", {}},
      speed{"train images/s", "#d62728", {}};
  for (const EpochMetrics& m : r.history) {
    epochs.push_back(m.epoch);
    train.values.push_back(m.train_loss);
    val.values.push_back(m.val_loss);
    acc.values.push_back(m.accuracy);
    lr.values.push_back(m.lr);
    speed.values.push_back(m.images_per_second);
  }
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
     << "<meta charset=\"utf-8\"/>\n";
  // A run in progress reloads itself, so the page can be watched while training.
  if (r.result.empty()) os << "<meta http-equiv=\"refresh\" content=\"30\"/>\n";
  os << "<title>" << escape(r.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n"
     << "<body>\n<h1>" << escape(r.title) << "</h1>\n<div class=\"status\" id=\"status\">"
     << escape(r.status) << "</div>\n";
  if (r.history.empty()) {
    os << "<p id=\"no-epochs\">No epoch has finished yet.</p>\n";
  } else {
    os << "<div class=\"plots\">\n"
       << plot("loss", "Loss (cross entropy)", epochs, {train, val})
       << plot("accuracy", "Validation accuracy", epochs, {acc})
       << plot("lr", "Learning rate (after the scheduler step)", epochs, {lr})
       << plot("images_per_second", "Training throughput (images/s)", epochs, {speed})
       << "</div>\n";
  }
  os << "<div class=\"columns\">\n<div>\n<h2>Result</h2>\n";
  if (r.result.empty())
    os << "<p id=\"result\">In progress.</p>\n";
  else
    os << key_value_table("result", r.result);
  os << "</div>\n<div>\n<h2>Configuration</h2>\n";
  if (r.config.empty())
    os << "<p id=\"config\">Unknown (no summary.json).</p>\n";
  else
    os << key_value_table("config", r.config);
  os << "</div>\n</div>\n<h2>Epochs</h2>\n<table class=\"epochs\" id=\"epochs\">\n"
     << "<tr><th>epoch</th><th>train loss</th><th>val loss</th><th>val accuracy</th>"
     << "<th>lr</th><th>epoch s</th><th>train images/s</th></tr>\n";
  for (const EpochMetrics& m : r.history) {
    os << "<tr><td>" << m.epoch << "</td><td>" << number(m.train_loss, "%.4f") << "</td><td>"
       << number(m.val_loss, "%.4f") << "</td><td>" << number(m.accuracy, "%.4f") << "</td><td>"
       << number(m.lr, "%.6g") << "</td><td>" << number(m.seconds, "%.1f") << "</td><td>"
       << number(m.images_per_second, "%.0f") << "</td></tr>\n";
  }
  os << "</table>\n</body>\n</html>\n";
  return os.str();
}

RunReport make_report(const TrainConfig& c, const std::vector<EpochMetrics>& history,
                      const TrainResult* final_result) {
  RunReport r;
  r.config = {{"model", c.model},
              {"epochs", std::to_string(c.epochs)},
              {"batch size", std::to_string(c.batch_size)},
              {"learning rate", number(c.lr)},
              {"weight decay", number(c.weight_decay)},
              {"max grad norm", number(c.max_grad_norm)},
              {"loader workers", std::to_string(c.workers)},
              {"threads", c.threads > 0 ? std::to_string(c.threads) : "all cores"},
              {"seed", std::to_string(c.seed)},
              {"train limit", c.limit > 0 ? std::to_string(c.limit) : "all"},
              {"val limit", c.val_limit > 0 ? std::to_string(c.val_limit) : "all"},
              {"output dir", c.output_dir}};
  r.history = history;
  if (!final_result) {
    r.status = "Running: " + std::to_string(history.size()) + " of " + std::to_string(c.epochs) +
               " epochs done";
    return r;
  }
  const TrainResult& f = *final_result;
  r.status = f.finished ? "Finished" : f.interrupted ? "Interrupted (continue with --resume)"
                                                     : "Paused (continue with --resume)";
  r.result = {{"test accuracy", number(f.test_accuracy, "%.4f")},
              {"wall time", number(f.wall_seconds, "%.1f") + " s"},
              {"train images/s", number(f.images_per_second, "%.0f")},
              {"epochs done", std::to_string(f.history.size()) + " of " +
                                  std::to_string(c.epochs)}};
  return r;
}

RunReport read_run_directory(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path metrics = fs::path(dir) / "metrics.csv";
  std::ifstream in(metrics);
  EMBER_CHECK(in.good(), kReportOp, "no metrics.csv in ", dir,
              " (expected a run directory written by "
              "ember-train-fashion-mnist --output-dir)");
  RunReport r;
  std::string line;
  std::getline(in, line);
  EMBER_CHECK(line.rfind("epoch,train_loss,val_loss,val_accuracy,lr", 0) == 0, kReportOp,
              metrics.string(), ": unexpected header '", line, "'");
  for (int64_t row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    EpochMetrics m;
    const int n = std::sscanf(line.c_str(), "%ld,%lf,%lf,%lf,%lf,%lf,%lf", &m.epoch,
                              &m.train_loss, &m.val_loss, &m.accuracy, &m.lr, &m.seconds,
                              &m.images_per_second);
    EMBER_CHECK(n == 7, kReportOp, metrics.string(), " line ", row, ": expected 7 numbers, got '",
                line, "'");
    r.history.push_back(m);
  }
  const fs::path summary_path = fs::path(dir) / "summary.json";
  if (!fs::exists(summary_path)) {
    r.status = std::to_string(r.history.size()) + " epochs in metrics.csv (no summary.json: "
               "running, or stopped without one)";
    return r;
  }
  std::ifstream sin(summary_path);
  nlohmann::ordered_json s;
  try {
    s = nlohmann::ordered_json::parse(sin);
  } catch (const std::exception& e) {
    ember::fail(kReportOp, summary_path.string(), " is not valid JSON: ", e.what());
  }
  r.config.emplace_back("model", s.value("model", "?"));
  for (const auto& [k, v] : s["config"].items())
    r.config.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  r.config.emplace_back("train images", s["train_images"].dump());
  r.config.emplace_back("test images", s["test_images"].dump());
  const bool finished = s.value("finished", false), interrupted = s.value("interrupted", false);
  r.status = finished ? "Finished" : interrupted ? "Interrupted" : "Paused";
  r.result = {{"test accuracy", number(s.value("test_accuracy", 0.0), "%.4f")},
              {"wall time", number(s.value("wall_seconds", 0.0), "%.1f") + " s"},
              {"train images/s", number(s.value("train_images_per_second", 0.0), "%.0f")},
              {"epochs done", std::to_string(r.history.size())}};
  return r;
}

}  // namespace fashion_mnist

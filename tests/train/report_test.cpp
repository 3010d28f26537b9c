// report.html: well-formed markup with one plot per metric holding the run's values, its
// configuration and result, nothing fetched from the network; ember-report's reader rebuilds it
// from a run directory; the job writes it every epoch (and trace.json + profile.txt with
// profile_steps); and headless Chromium renders it to a screenshot that is not blank (skipped,
// with a message, where Debian's chromium package is absent: scripts/bootstrap.sh --render).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <ember/data/mnist.h>
#include <nlohmann/json.hpp>

#include "report.h"
#include "test_support.h"
#include "trainer.h"

namespace fashion_mnist {
namespace {

namespace fs = std::filesystem;

const fs::path& scratch() {
  static const struct Root {
    fs::path path = fs::temp_directory_path() / ("ember_report_test_" + std::to_string(getpid()));
    Root() { fs::create_directories(path); }
    ~Root() { fs::remove_all(path); }
  } root;
  return root.path;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<EpochMetrics> history(int64_t epochs) {
  std::vector<EpochMetrics> h;
  for (int64_t e = 0; e < epochs; ++e)
    h.push_back({.epoch = e, .train_loss = 0.9 / double(e + 1), .val_loss = 0.8 / double(e + 1.5),
                 .accuracy = 0.7 + 0.05 * double(e), .lr = 1e-3 * std::cos(0.3 * double(e)),
                 .seconds = 12.5 + double(e), .images_per_second = 4800 + 10.0 * double(e)});
  return h;
}

// Checks that every element is closed in order (XHTML-style); returns the first problem.
std::string balance_problem(const std::string& html) {
  std::vector<std::string> open;
  for (size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i);
      if (i == std::string::npos) return "unclosed comment";
      continue;
    }
    const size_t end = html.find('>', i);
    if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
    const std::string tag = html.substr(i + 1, end - i - 1);
    if (tag.empty()) return "empty tag";
    if (tag[0] == '!') continue;  // <!DOCTYPE html>
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? "nothing" : open.back()) + ">";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
    }
    if (open.size() && (open.back() == "style" || open.back() == "title")) {
      const size_t close = html.find("</" + open.back() + ">", end);
      if (close == std::string::npos) return "unclosed <" + open.back() + ">";
      i = close - 1;
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

// The data-value attributes of one plot's series, in order.
std::map<std::string, std::vector<double>> plotted(const std::string& html,
                                                   const std::string& metric) {
  const size_t start = html.find("data-metric=\"" + metric + "\"");
  const size_t end = html.find("</svg>", start);
  std::map<std::string, std::vector<double>> out;
  if (start == std::string::npos) return out;
  const std::string svg = html.substr(start, end - start);
  const std::regex series("data-series=\"([^\"]+)\""), value("data-value=\"([^\"]+)\"");
  for (auto s = std::sregex_iterator(svg.begin(), svg.end(), series); s != std::sregex_iterator();
       ++s) {
    const size_t from = size_t(s->position()), to = svg.find("</g>", from);
    const std::string body = svg.substr(from, to - from);
    auto& values = out[(*s)[1]];
    for (auto v = std::sregex_iterator(body.begin(), body.end(), value);
         v != std::sregex_iterator(); ++v)
      values.push_back(std::stod((*v)[1]));
  }
  return out;
}

void expect_values(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-8 * std::abs(want[i]));
}

void expect_plots_hold(const std::string& html, const std::vector<EpochMetrics>& h) {
  std::vector<double> train, val, acc, lr, speed;
  for (const auto& m : h) {
    train.push_back(m.train_loss);
    val.push_back(m.val_loss);
    acc.push_back(m.accuracy);
    lr.push_back(m.lr);
    speed.push_back(m.images_per_second);
  }
  for (const char* metric : {"loss", "accuracy", "lr", "images_per_second"}) {
    size_t count = 0;
    for (size_t p = html.find(std::string("data-metric=\"") + metric + "\"");
         p != std::string::npos; p = html.find(std::string("data-metric=\"") + metric + "\"", p + 1))
      ++count;
    EXPECT_EQ(count, 1u) << metric;  // one plot per metric
  }
  auto loss = plotted(html, "loss");
  expect_values(loss["train loss"], train);
  expect_values(loss["val loss"], val);
  expect_values(plotted(html, "accuracy")["val accuracy"], acc);
  expect_values(plotted(html, "lr")["learning rate"], lr);
  expect_values(plotted(html, "images_per_second")["train images/s"], speed);
}

TEST(Report, WellFormedWithOnePlotPerMetricAndTheRunsValues) {
  TrainConfig c{.epochs = 6, .batch_size = 64, .lr = 2e-3, .seed = 11, .model = "mlp"};
  const auto h = history(4);
  TrainResult r;
  r.history = h;
  r.test_accuracy = 0.8765;
  r.wall_seconds = 61.25;
  r.images_per_second = 4810;
  r.interrupted = true;
  const TrainResult* no_result = nullptr;
  for (const TrainResult* final_result : {no_result, static_cast<const TrainResult*>(&r)}) {
    const std::string html = render_report(make_report(c, h, final_result));
    EXPECT_EQ(balance_problem(html), "");
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    expect_plots_hold(html, h);
    // Self-contained: no scripts, no links, nothing loaded.
    for (const char* remote : {"<script", " src=", "href=", "url(", "@import"})
      EXPECT_EQ(html.find(remote), std::string::npos) << remote;
    EXPECT_NE(html.find("<th>model</th><td>mlp</td>"), std::string::npos);
    EXPECT_NE(html.find("<th>batch size</th><td>64</td>"), std::string::npos);
    EXPECT_NE(html.find("<th>learning rate</th><td>0.002</td>"), std::string::npos);
    EXPECT_NE(html.find("<td>0.8000</td>"), std::string::npos);  // epoch 2's accuracy, in the table
    if (final_result) {
      EXPECT_NE(html.find("<th>test accuracy</th><td>0.8765</td>"), std::string::npos);
      EXPECT_NE(html.find("Interrupted"), std::string::npos);
      EXPECT_EQ(html.find("http-equiv=\"refresh\""), std::string::npos);
    } else {
      EXPECT_NE(html.find("Running: 4 of 6 epochs done"), std::string::npos);
      EXPECT_NE(html.find("http-equiv=\"refresh\""), std::string::npos);  // watchable
    }
  }
}

TEST(Report, NoEpochYetAndOneEpoch) {
  const std::string none = render_report(make_report(TrainConfig{}, {}, nullptr));
  EXPECT_EQ(balance_problem(none), "");
  EXPECT_NE(none.find("No epoch has finished yet."), std::string::npos);
  const auto one = history(1);
  const std::string html = render_report(make_report(TrainConfig{}, one, nullptr));
  EXPECT_EQ(balance_problem(html), "");
  expect_plots_hold(html, one);
}

TEST(Report, ReadsARunDirectory) {
  const fs::path dir = scratch() / "run";
  fs::create_directories(dir);
  std::ofstream(dir / "metrics.csv")
      << "epoch,train_loss,val_loss,val_accuracy,lr,epoch_seconds,train_images_per_second\n"
      << "0,0.61,0.45,0.84,0.00090451,10.5,5900\n1,0.40,0.38,0.865,0.00065451,10.1,6010\n";
  RunReport partial = read_run_directory(dir.string());
  ASSERT_EQ(partial.history.size(), 2u);
  EXPECT_EQ(partial.history[1].accuracy, 0.865);
  EXPECT_TRUE(partial.result.empty());
  std::ofstream(dir / "summary.json")
      << R"({"model": "cnn", "config": {"epochs": 2, "batch_size": 128, "lr": 0.001},
             "train_images": 60000, "test_images": 10000, "finished": true,
             "interrupted": false, "test_accuracy": 0.865, "wall_seconds": 25.0,
             "train_images_per_second": 5950.0})";
  const RunReport full = read_run_directory(dir.string());
  const std::string html = render_report(full);
  EXPECT_EQ(balance_problem(html), "");
  expect_plots_hold(html, full.history);
  EXPECT_NE(html.find("<th>batch_size</th><td>128</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>test accuracy</th><td>0.8650</td>"), std::string::npos);
  EXPECT_NE(html.find("Finished"), std::string::npos);

  const std::string m = ember::test::message_of([&] { read_run_directory((dir / "x").string()); });
  EXPECT_NE(m.find("[ember-report] no metrics.csv in"), std::string::npos) << m;
  std::ofstream(dir / "metrics.csv") << "epoch,train_loss,val_loss,val_accuracy,lr\n0,0.5,oops\n";
  const std::string bad = ember::test::message_of([&] { read_run_directory(dir.string()); });
  EXPECT_NE(bad.find("line 2: expected 7 numbers, got '0,0.5,oops'"), std::string::npos) << bad;
}

TEST(Report, TheJobWritesItEveryEpochAndProfilesSteps) {
  if (!fs::is_directory(ember::data::FashionMNIST::kDefaultRoot))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/bootstrap.sh installs it)";
  TrainConfig c{.epochs = 2, .batch_size = 32, .workers = 2, .seed = 3,
                .output_dir = (scratch() / "job").string(), .model = "mlp", .limit = 320,
                .val_limit = 64, .profile_steps = 2};
  int64_t epochs_seen_in_report = -1;
  TrainIO io;
  // The report after epoch 0 exists before epoch 1 starts: check it at epoch 1's first step.
  io.on_step = [&](int64_t epoch, int64_t batch) {
    if (epoch == 1 && batch == 1)
      epochs_seen_in_report = int64_t(plotted(read(fs::path(c.output_dir) / "report.html"),
                                              "accuracy")["val accuracy"].size());
  };
  const TrainResult r = train(c, io);
  EXPECT_EQ(epochs_seen_in_report, 1);
  const std::string html = read(r.report_path);
  EXPECT_EQ(balance_problem(html), "");
  expect_plots_hold(html, r.history);
  EXPECT_NE(html.find("Finished"), std::string::npos);

  ASSERT_FALSE(r.trace_path.empty());
  std::ifstream trace_file(r.trace_path);
  const auto trace = nlohmann::json::parse(trace_file);
  int steps = 0, ops_in_steps = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["name"] == "training_step") ++steps;
    if (e["ph"] == "X" && e["name"] != "training_step") ++ops_in_steps;
  }
  EXPECT_EQ(steps, 2);
  EXPECT_GT(ops_in_steps, 10);
  const std::string table = read(r.profile_table_path);
  EXPECT_NE(table.find("Optimizer.step#AdamW.step"), std::string::npos) << table;
  EXPECT_NE(table.find("Self CPU time total:"), std::string::npos);
}

// ── the headless Chromium render ──

// RGB(A) pixels of an 8-bit, non-interlaced PNG (what Chromium's screenshots are).
struct Image {
  uint32_t width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

Image decode_png(const std::string& file) {
  Image img;
  const std::string data = read(file);
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  if (data.size() < 8 || data.compare(1, 3, "PNG") != 0) return img;
  std::string idat;
  int color = 0, depth = 0, interlace = 0;
  for (size_t at = 8; at + 8 <= data.size();) {
    const uint32_t len = be32(p + at);
    const std::string type = data.substr(at + 4, 4);
    if (type == "IHDR") {
      img.width = be32(p + at + 8);
      img.height = be32(p + at + 12);
      depth = p[at + 16];
      color = p[at + 17];
      interlace = p[at + 20];
    } else if (type == "IDAT") {
      idat += data.substr(at + 8, len);
    }
    at += 12 + len;
  }
  if (depth != 8 || interlace != 0 || (color != 2 && color != 6)) return Image{};
  img.channels = color == 6 ? 4 : 3;
  const size_t stride = size_t(img.width) * img.channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()),
                 idat.size()) != Z_OK)
    return Image{};
  img.pixels.resize(stride * img.height);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img.pixels[y * stride];
    const uint8_t* up = y ? &img.pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= img.channels ? out[x - img.channels] : 0, b = up ? up[x] : 0,
                c = up && x >= img.channels ? up[x - img.channels] : 0;
      int pred = 0;
      switch (filter) {
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) / 2; break;
        case 4: {
          const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
          pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
      }
      out[x] = uint8_t(in[x] + pred);
    }
  }
  return img;
}

std::string find_chromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(path)) return path;
  return "";
}

TEST(Report, HeadlessChromiumRendersItNotBlank) {
  const std::string chromium = find_chromium();
  if (chromium.empty())
    GTEST_SKIP() << "Debian's chromium package is not installed (scripts/bootstrap.sh --render "
                    "installs it); the render check is skipped";
  const fs::path dir = scratch() / "render";
  fs::create_directories(dir);
  TrainConfig c{.epochs = 8, .model = "cnn"};
  const auto h = history(8);
  TrainResult r;
  r.history = h;
  r.test_accuracy = 0.91;
  r.wall_seconds = 100;
  r.finished = true;
  std::ofstream(dir / "report.html") << render_report(make_report(c, h, &r));
  const fs::path png = dir / "shot.png";
  const std::string command =
      "timeout 90 " + chromium + " --headless --no-sandbox --disable-gpu --hide-scrollbars "
      "--user-data-dir=" + (dir / "profile").string() + " --window-size=1000,800 --screenshot=" +
      png.string() + " file://" + (dir / "report.html").string() + " > " +
      (dir / "chromium.log").string() + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command << "\n" << read(dir / "chromium.log");
  const Image img = decode_png(png.string());
  ASSERT_EQ(img.width, 1000u) << read(dir / "chromium.log");
  ASSERT_EQ(img.height, 800u);
  // Not blank: many pixels differ from white, and the plots' line colours are there.
  size_t ink = 0, blue = 0, orange = 0;
  for (size_t i = 0; i + 2 < img.pixels.size(); i += img.channels) {
    const int r8 = img.pixels[i], g8 = img.pixels[i + 1], b8 = img.pixels[i + 2];
    if (r8 < 240 || g8 < 240 || b8 < 240) ++ink;
    if (std::abs(r8 - 0x1f) < 40 && std::abs(g8 - 0x77) < 40 && std::abs(b8 - 0xb4) < 40) ++blue;
    if (std::abs(r8 - 0xff) < 30 && std::abs(g8 - 0x7f) < 40 && std::abs(b8 - 0x0e) < 50) ++orange;
  }
  const size_t total = size_t(img.width) * img.height;
  EXPECT_GT(ink, total / 50) << "ink " << ink << " of " << total;
  EXPECT_GT(blue, 200u);    // the train-loss curve
  EXPECT_GT(orange, 200u);  // the val-loss curve
}

}  // namespace
}  // namespace fashion_mnist

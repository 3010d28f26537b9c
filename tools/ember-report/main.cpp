// ember-report: (re)builds report.html for a Fashion-MNIST run directory from its metrics.csv
// and summary.json, e.g. for a run made before the job wrote reports, or one stopped abruptly.
//   ember-report runs/fashion-mnist [-o other.html]
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "report.h"

int main(int argc, char** argv) {
  std::string dir, output;
  CLI::App app{"Write report.html (self-contained: inline SVG plots, no network) for a training "
               "run directory from its metrics.csv and summary.json."};
  app.add_option("run_dir", dir, "The run's --output-dir (e.g. runs/fashion-mnist)")->required();
  app.add_option("-o,--output", output, "Where to write the page (default: <run_dir>/report.html)");
  CLI11_PARSE(app, argc, argv);
  try {
    fashion_mnist::RunReport report = fashion_mnist::read_run_directory(dir);
    report.title += " — " + dir;
    if (output.empty()) output = (std::filesystem::path(dir) / "report.html").string();
    std::ofstream f(output, std::ios::binary | std::ios::trunc);
    f << fashion_mnist::render_report(report);
    f.flush();
    if (!f.good()) {
      std::cerr << "[ember-report] cannot write " << output << std::endl;
      return 1;
    }
    std::cout << output << ": " << report.history.size() << " epochs" << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 1;
  }
}

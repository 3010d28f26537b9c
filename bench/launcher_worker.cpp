// ember's twin of bench/launcher_torch.py for bench/launcher_compare.py: one all_reduce after
// init_process_group, with wall-clock stamps the driver turns into start-up and restart times.
//   launcher_worker OUT_DIR startup   rank 0 writes OUT_DIR/first.<attempt> after the first
//                                     collective (unix time, ns)
//   launcher_worker OUT_DIR restart   the same; in attempt 0 rank 1 then writes OUT_DIR/fail and
//                                     fails, so attempt 1's first.1 - fail is the restart
#include <chrono>
#include <fstream>
#include <string>

#include "ember/creation.h"
#include "ember/distributed/elastic.h"
#include "ember/distributed/process_group.h"
#include "ember/error.h"

namespace {

void stamp(const std::string& path) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::ofstream(path) << std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() << '\n';
}

int run(const std::string& out, const std::string& mode) {
  namespace dist = ember::dist;
  const std::string attempt = std::getenv("TORCHELASTIC_RESTART_COUNT");
  dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(30)});
  ember::Tensor t = ember::ones({1});
  dist::all_reduce(t);
  const int rank = dist::get_rank();
  if (rank == 0) stamp(out + "/first." + attempt);
  if (mode == "restart" && attempt == "0") {
    if (rank == 1) {
      stamp(out + "/fail");
      ember::fail("bench", "injected failure of rank 1");
    }
    dist::all_reduce(t);  // fails when rank 1 is gone
  }
  dist::destroy_process_group();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  return ember::dist::elastic::record([&] { return run(argv[1], argv[2]); });
}

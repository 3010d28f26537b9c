#include "options.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <thread>

namespace ember_run {
namespace {

int parse_int(const std::string& text, const std::string& what) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    throw std::invalid_argument(what + ": expected an integer, got '" + text + "'");
  }
  return value;
}

// --nnodes N or MIN:MAX. Elastic membership (MIN < MAX) is not supported: say so.
int parse_nnodes(const std::string& text) {
  const auto colon = text.find(':');
  const int min = parse_int(text.substr(0, colon), "--nnodes");
  const int max = colon == std::string::npos ? min : parse_int(text.substr(colon + 1), "--nnodes");
  if (min < 1 || max != min) {
    throw std::invalid_argument("--nnodes: expected N >= 1 or N:N (elastic MIN:MAX membership "
                                "is not supported), got '" + text + "'");
  }
  return min;
}

// --nproc-per-node N, or "cpu"/"auto" (one per core). "gpu" needs a CUDA build.
int parse_nproc(const std::string& text) {
  if (text == "cpu" || text == "auto") {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  if (text == "gpu") {
    throw std::invalid_argument("--nproc-per-node=gpu: this ember build has no CUDA; give a number");
  }
  const int n = parse_int(text, "--nproc-per-node");
  if (n < 1) throw std::invalid_argument("--nproc-per-node: expected >= 1, got " + text);
  return n;
}

// "host:port" of --rdzv-endpoint; the port is optional (then --master-port's).
void parse_endpoint(const std::string& text, Options& options) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    options.master_addr = text;
    return;
  }
  options.master_addr = text.substr(0, colon);
  options.master_port = parse_int(text.substr(colon + 1), "--rdzv-endpoint port");
}

// "a,b,c" -> {"a", "b", "c"}; an empty text has no items.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// --rdzv-conf key=value,...: join_timeout (seconds) is the one ember-run uses.
void parse_rdzv_conf(const std::string& text, Options& options) {
  for (const std::string& item : split_commas(text)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument("--rdzv-conf: expected key=value, got '" + item + "'");
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "join_timeout") {
      options.join_timeout_s = std::stod(value);
    }  // torchrun's other keys (read_timeout, last_call_timeout, ...) have no meaning here
  }
}

// A Python script runs through an interpreter, as torchrun runs it through Python: --python's
// (/usr/bin/python3 for PyTorch's own scripts), or else ember-python, so that its `import torch`
// is ember (the package's torch alias): ember-python beside this program (installed: both in
// <prefix>/bin) or in the build tree's python/ folder (build/tools/ember-run).
std::vector<std::string> python_script_command(std::vector<std::string> command,
                                               const std::string& python) {
  namespace fs = std::filesystem;
  const std::string& script = command.front();
  if (script.size() < 3 || script.compare(script.size() - 3, 3, ".py") != 0) return command;
  if (!python.empty()) {
    command.insert(command.begin(), python);
    return command;
  }
  const fs::path self = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& candidate :
       {self / "ember-python", self.parent_path() / "python" / "ember-python"}) {
    if (fs::exists(candidate)) {
      command.insert(command.begin(), candidate.string());
      return command;
    }
  }
  throw std::invalid_argument("cannot run " + script +
                              ": ember-python is neither next to ember-run (" + self.string() +
                              ") nor in ../python (build ember with its Python package)");
}

// torchrun's --standalone takes uuid4(): a run id no other job on the machine has.
std::string random_run_id() {
  std::random_device device;
  char id[40];
  std::snprintf(id, sizeof id, "%08x-%04x-4%03x-%04x-%08x%04x", device(), device() & 0xffff,
                device() & 0xfff, (device() & 0x3fff) | 0x8000, device(), device() & 0xffff);
  return id;
}

}  // namespace

StreamSpec StreamSpec::parse(const std::string& text, const std::string& flag) {
  auto value_of = [&](const std::string& digits) {
    const int v = parse_int(digits, flag);
    if (v < 0 || v > 3) {
      throw std::invalid_argument(flag + ": expected 0 (none), 1 (stdout), 2 (stderr) or 3 (both), "
                                  "got '" + digits + "'");
    }
    return v;
  };
  StreamSpec spec;
  if (text.find(':') == std::string::npos) {
    spec.all_ = value_of(text);
    return spec;
  }
  for (const std::string& item : split_commas(text)) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      throw std::invalid_argument(flag + ": expected local_rank:value pairs like 0:3,1:1, got '" +
                                  text + "'");
    }
    spec.per_rank_.emplace_back(parse_int(item.substr(0, colon), flag),
                                value_of(item.substr(colon + 1)));
  }
  return spec;
}

int StreamSpec::streams_for(int local_rank) const {
  for (const auto& [rank, streams] : per_rank_) {
    if (rank == local_rank) return streams;
  }
  return all_;
}

std::optional<Options> parse_options(int argc, char** argv, int& exit_code) {
  Options options;
  // As torchrun, a flag not on the command line takes its value from PET_<FLAG> (Kubeflow's
  // TrainJob sets PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR/PORT).
  CLI::App app{"ember-run: torchrun for C++ programs. Starts --nproc-per-node workers with "
               "torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, ...), hosts the "
               "rendezvous store, and restarts the whole group when a worker fails.",
               "ember-run"};
  app.prefix_command();  // everything from the program on belongs to the program
  std::string nnodes = "1", nproc = "1", endpoint, redirects = "0", tee = "0", rdzv_conf;
  std::string log_dir, python;
  bool no_python = false;
  app.add_option("--nnodes", nnodes, "Number of nodes: N (or N:N)")
      ->envname("PET_NNODES");
  app.add_option("--nproc-per-node,--nproc_per_node", nproc,
                 "Workers on this node: a number, or cpu/auto (one per core)")
      ->envname("PET_NPROC_PER_NODE");
  options.node_rank = -1;
  app.add_option("--node-rank,--node_rank", options.node_rank,
                 "This node's rank in [0, nnodes) (default 0; with --rdzv-backend c10d and "
                 "--nnodes > 1: the order in which the launchers join)")
      ->envname("PET_NODE_RANK");
  app.add_option("--master-addr,--master_addr", options.master_addr,
                 "Address of node 0, which hosts the store (default 127.0.0.1)")
      ->envname("PET_MASTER_ADDR");
  app.add_option("--master-port,--master_port", options.master_port,
                 "Port of the store on node 0 (default 29500)")
      ->envname("PET_MASTER_PORT");
  app.add_flag("--standalone", options.standalone,
               "One node; the store on a free loopback port and a fresh run id")
      ->envname("PET_STANDALONE");
  app.add_option("--max-restarts,--max_restarts", options.max_restarts,
                 "Restart the worker group this many times after a failure (default 0)")
      ->envname("PET_MAX_RESTARTS");
  app.add_option("--monitor-interval,--monitor_interval", options.monitor_interval_s,
                 "Seconds between checks of the store for other nodes' failures (default 0.1; "
                 "local workers' exits are seen at once)")
      ->envname("PET_MONITOR_INTERVAL");
  app.add_option("--rdzv-backend,--rdzv_backend", options.rdzv_backend,
                 "static (default) or c10d: both rendezvous through ember-run's TCPStore; c10d "
                 "also assigns node ranks")
      ->envname("PET_RDZV_BACKEND");
  app.add_option("--rdzv-endpoint,--rdzv_endpoint", endpoint,
                 "host:port of the store (instead of --master-addr/--master-port)")
      ->envname("PET_RDZV_ENDPOINT");
  app.add_option("--rdzv-id,--rdzv_id", options.rdzv_id, "The job's id (TORCHELASTIC_RUN_ID)")
      ->envname("PET_RDZV_ID");
  app.add_option("--rdzv-conf,--rdzv_conf", rdzv_conf,
                 "key=value,...: join_timeout=SECONDS (default 600) bounds the wait for "
                 "other nodes")
      ->envname("PET_RDZV_CONF");
  app.add_option("--role", options.role, "Worker role name (default 'default')")
      ->envname("PET_ROLE");
  app.add_option("-r,--redirects", redirects,
                 "Send workers' output to files in --log-dir: 0 none, 1 stdout, 2 stderr, 3 both, "
                 "or per local rank: 0:3,1:1");
  app.add_option("-t,--tee", tee,
                 "Like --redirects, and also to the console, each line prefixed [<role><rank>]:");
  app.add_option("--log-dir,--log_dir", log_dir,
                 "Directory for each attempt's logs and error files (default: a temporary "
                 "directory, removed at the end)")
      ->envname("PET_LOG_DIR");
  app.add_option("--stop-timeout,--stop_timeout", options.stop_timeout_s,
                 "Seconds a worker gets between SIGTERM and SIGKILL when the group is stopped "
                 "(default 10)");
  app.add_flag("--no-python,--no_python", no_python,
               "Run the program as given, even a .py script (torchrun's --no-python): e.g. "
               "/usr/bin/python3 train.py")
      ->envname("PET_NO_PYTHON");
  app.add_option("--python", python,
                 "The interpreter for a .py program (default: ember-python, so `import torch` "
                 "is ember; /usr/bin/python3 runs a PyTorch script with PyTorch)");
  try {
    app.parse(argc, argv);
    options.command = app.remaining();
    if (!options.command.empty() && options.command.front() == "--") {
      options.command.erase(options.command.begin());
    }
    if (options.command.empty()) {
      throw CLI::ValidationError("program", "missing: give the program to run and its arguments");
    }
    if (no_python && !python.empty()) {
      throw std::invalid_argument("--no-python runs the program as given; it takes no --python");
    }
    if (!no_python) options.command = python_script_command(std::move(options.command), python);
    options.nnodes = parse_nnodes(nnodes);
    options.nproc_per_node = parse_nproc(nproc);
    options.redirects = StreamSpec::parse(redirects, "--redirects");
    options.tee = StreamSpec::parse(tee, "--tee");
    if (!endpoint.empty()) parse_endpoint(endpoint, options);
    if (!rdzv_conf.empty()) parse_rdzv_conf(rdzv_conf, options);
    if (!log_dir.empty()) options.log_dir = log_dir;
    if (options.rdzv_backend != "static" && options.rdzv_backend != "c10d") {
      throw std::invalid_argument("--rdzv-backend: expected static or c10d, got '" +
                                  options.rdzv_backend + "' (etcd is not supported)");
    }
    if (options.standalone) {
      if (options.nnodes != 1) throw std::invalid_argument("--standalone runs one node, not --nnodes " + nnodes);
      options.master_addr = "127.0.0.1";
      options.master_port = 0;  // a free port, picked when the store starts
      if (options.rdzv_id == "none") options.rdzv_id = random_run_id();
    }
    const bool assigned_by_rendezvous = options.rdzv_backend == "c10d" && options.nnodes > 1;
    if (options.node_rank == -1 && !assigned_by_rendezvous) options.node_rank = 0;
    if (options.node_rank != -1 && (options.node_rank < 0 || options.node_rank >= options.nnodes)) {
      throw std::invalid_argument("--node-rank: expected 0.." + std::to_string(options.nnodes - 1) +
                                  " for --nnodes " + std::to_string(options.nnodes) + ", got " +
                                  std::to_string(options.node_rank));
    }
    if (options.max_restarts < 0) throw std::invalid_argument("--max-restarts: expected >= 0");
    if (options.monitor_interval_s <= 0) {
      throw std::invalid_argument("--monitor-interval: expected > 0 seconds");
    }
    if (options.join_timeout_s <= 0) throw std::invalid_argument("--rdzv-conf join_timeout: expected > 0");
    if (options.master_port < 0 || options.master_port > 65535) {
      throw std::invalid_argument("--master-port: expected 0..65535");
    }
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e);
    if (exit_code != 0) exit_code = 2;
    return std::nullopt;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ember-run: %s\nRun with --help for more information.\n", e.what());
    exit_code = 2;
    return std::nullopt;
  }
  return options;
}

}  // namespace ember_run

// ember-run: torchrun for C++ programs.
//   ember-run --standalone --nproc-per-node=2 ./train --epochs 3
//   ember-run --nnodes=2 --nproc-per-node=2 --node-rank=0 --master-addr=10.0.0.1
//             --master-port=29500 ./train   (one line)
#include <cstdio>
#include <exception>

#include "agent.h"
#include "launcher_rendezvous.h"
#include "options.h"

int main(int argc, char** argv) {
  int exit_code = 0;
  const std::optional<ember_run::Options> options = ember_run::parse_options(argc, argv, exit_code);
  if (!options) return exit_code;
  // Before the store's server thread exists, so that it inherits the mask too.
  ember_run::block_agent_signals();
  try {
    ember_run::LauncherRendezvous rendezvous(*options);
    ember_run::Options resolved = *options;
    resolved.node_rank = rendezvous.node_rank();  // c10d may have assigned it
    return ember_run::run_agent(resolved, rendezvous);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[ember-run] error: %s\n", e.what());
    return 1;
  }
}

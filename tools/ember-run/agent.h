// The elastic agent: one per node, as torchrun's. It runs attempts: rendezvous, start the
// node's workers with torchrun's environment, watch them, and on a failure stop the rest,
// report, and start the next attempt, up to --max-restarts.
#pragma once

#include <csignal>
#include <string>

#include "launcher_rendezvous.h"
#include "options.h"

namespace ember_run {

/// Blocks the signals the agent takes through its signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP).
/// Call first in main, before any thread starts, so that every thread inherits the mask.
void block_agent_signals();

/// Runs the job; returns ember-run's exit status: 0 when every worker succeeded, 1 after a
/// failure with no restarts left, 128+signal when stopped by SIGINT/SIGTERM/SIGHUP.
int run_agent(const Options& options, LauncherRendezvous& rendezvous);

}  // namespace ember_run

// The profiler's observer on the op-entry scope (op_observer.cpp).
#pragma once

namespace ember::profiler::detail {

/// Installs (true) or removes (false) the observer that turns ops into events.
void install_op_observer(bool on);

}  // namespace ember::profiler::detail

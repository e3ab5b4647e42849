// Running libsplit-cc out of process (posix_spawn, no shell).
#pragma once

#include "program_source.h"

#include <string>
#include <vector>

namespace libsplit {

struct CcResult {
  bool ok = false;
  std::string partition_ready;  // OUTDIR/partition-ready.cl
  std::string summary_json;     // OUTDIR/summary.json
  std::string error;            // why not ok (tool missing, exit status, its stderr)
};

// Path of libsplit-cc: LIBSPLIT_CC, next to libsplit.so, where the install
// puts it relative to libsplit.so (libexec/libsplit/), ../passes/ of it
// (build tree), then PATH. Empty when none is executable.
std::string find_cc(const std::string& configured);

// device_macro_sets: one `--device-macros` SPEC per distinct set of the
// devices' predefined macros (device_macros.h).
// Kills the libsplit-cc child a run_cc() is waiting for, if any (the app is
// exiting: its result would not be used).
void stop_running_cc();

CcResult run_cc(const std::string& cc, const std::string& source, const std::string& options,
                const std::vector<std::string>& device_macro_sets = {});


}  // namespace libsplit

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

// Path of libsplit-cc: LIBSPLIT_CC, else as child_process.h finds helpers.
// Empty when none is executable.
std::string find_cc(const std::string& configured);

// device_macro_sets: one `--device-macros` SPEC per distinct set of the
// devices' predefined macros (device_macros.h). stop_helpers() kills it.
CcResult run_cc(const std::string& cc, const std::string& source, const std::string& options,
                const std::vector<std::string>& device_macro_sets = {});


}  // namespace libsplit

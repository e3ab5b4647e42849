// What preparing a program decides (program_prep.h): the partition-ready
// program from libsplit-cc (Compiled), the original source when it needs no
// rewrite (Plain) or run whole (Whole), the units linked again, the app's
// binaries or IL run whole, or nothing (Failed). Built on the platform slots
// of the app's context; the others build it when first wanted (lazy_slots.h).
#pragma once

#include "objects.h"

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

// What preparing decided, before it is adopted by the program.
struct PreparedProgram {
  _cl_program::Mode mode = _cl_program::Mode::Failed;
  std::string reason;
  std::optional<ProgramSummary> summary;
  std::vector<cl_program> per_platform;  // null for the lazy slots
  std::string lazy_source;  // what the slots left null build when first needed
  std::string lazy_options;
  std::vector<bool> lazy_cached;  // by slot: lazy_source's device binaries are cached
};

// Any program: its source (or the source of a binary libsplit handed out),
// else its separately compiled units linked again, else binaries or IL run
// whole (the app's, else those of the app's own build), else nothing.
// `originals` (by slot, may be null) are the original source's builds
// already made, reused when the program is not partition-ready.
PreparedProgram prepare(cl_program p, const std::string& source, const std::string& options,
                        const std::vector<cl_program>* originals);

}  // namespace libsplit

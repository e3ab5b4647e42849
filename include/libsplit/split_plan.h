// Choosing how to split a launch: which NDRange dimension, and whether the
// buffers written by the slices overlap (then the runtime must merge the
// devices' copies instead of copying each slice's bytes back). Plain C++ on
// top of the region evaluator; the runtime calls it at every launch.
#pragma once

#include "libsplit/region.h"
#include "libsplit/summary.h"

#include <optional>
#include <string>
#include <vector>

namespace libsplit {

// Per-slice byte ranges of one buffer (nullopt: unknown = whole buffer).
// True when no byte appears in two slices' lists.
bool slices_disjoint(const std::vector<std::optional<std::vector<ByteRange>>>& per_slice);

// `parts` slices of whole work-groups along `dim`, as even as possible; fewer
// when the dimension has fewer groups.
std::vector<Slice> even_slices(const NDRange& nd, unsigned dim, unsigned parts);

// What the written buffers of a kernel do under one slicing.
struct WriteCheck {
  bool needs_merge = false;
  std::vector<unsigned> merge_args;  // written buffer arguments needing a merge
  std::string reason;                // first cause, for logs ("" when none)
  bool atomic_overlap = false;       // a merge cannot combine atomic updates
                                     // (reduction buffers are never checked: the
                                     // runtime combines their private copies)
  uint64_t moved_bytes = 0;          // sum over slices of read+written bytes (a cost hint)
};

// args: scalar values by argument index (nullopt for buffers);
// buffer_sizes: bytes by argument index (0 for non-buffers).
// count_reads=false skips the read regions (moved_bytes then counts writes).
// memory answers the regions' loads from index buffers (null: such regions
// are unknown).
WriteCheck check_slices(const KernelSummary& k, const std::vector<std::optional<int64_t>>& args,
                        const NDRange& nd, const std::vector<uint64_t>& buffer_sizes,
                        const std::vector<Slice>& slices, bool count_reads = true,
                        const LoadedValues* memory = nullptr);

struct SplitChoice {
  unsigned dim = 0;
  bool splittable = true;       // false: run whole on one device (see reason)
  bool needs_merge = false;     // true when even the best dimension has overlapping writes
  std::vector<unsigned> merge_args;
  std::string reason;           // why this dimension / why a merge / why no split
};

// Prefers a dimension where the written regions of different slices do not
// overlap. When even the best dimension has slices updating overlapping bytes
// of a buffer with atomics, the launch is not splittable (a byte-diff merge
// would lose updates). (checked on an even split into `parts` slices and on single-group
// slices at the start of the dimension); among those the one moving the
// fewest bytes. The runtime should re-check its actual slicing with
// check_slices, since shares change per launch.
SplitChoice choose_split_dim(const KernelSummary& k, const std::vector<std::optional<int64_t>>& args,
                             const NDRange& nd, const std::vector<uint64_t>& buffer_sizes,
                             unsigned parts = 2, const LoadedValues* memory = nullptr);

}  // namespace libsplit

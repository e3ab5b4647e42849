// Run-time inspection of indirection: the values that a launch's region
// expressions load from index buffers (region.h, `(load_i32 K offset)`: a CSR
// row pointer, a gather's index), read from the buffer's contents before the
// launch runs. Hulls are cached per buffer content (BufferStore::version) in
// blocks of elements (index_hull.h), so an index buffer the app does not
// change costs one scan for all the launches that use it.
//
// Sound only because (a) the analysis loads only from arguments the kernel
// never writes, and (b) the reader refuses a buffer that the summary says is
// written (another device's macro set) or that another argument of the
// launch may write (same store); bytes never written (undefined) are refused
// too. A refused or failed read makes the region unknown: whole buffer, as
// before this existed. LIBSPLIT_INDIRECT=0 turns it off.
#pragma once

#include "launch.h"

#include "libsplit/region.h"

#include <cmath>
#include <memory>
#include <string>

namespace libsplit {

class IndexReader final : public LoadedValues {
 public:
  explicit IndexReader(const Launch& L);
  // Logs (LIBSPLIT_LOG >= 1) and traces the launch's cost of index reads.
  ~IndexReader() override;
  std::optional<Interval> load_hull(unsigned arg, unsigned bits, bool is_signed, int64_t first,
                                    int64_t last) const override;

  struct Stats {
    uint64_t queries = 0, failed = 0;
    uint64_t elements_scanned = 0;  // scanned now (not taken from the cache)
    uint64_t bytes_read_back = 0;   // device-to-host reads the scans needed
    uint64_t ns = 0;                // host time spent answering
    uint64_t first_ns = 0;          // when the first query came
    std::string first_failure;
  };
  const Stats& stats() const { return stats_; }
  // The most host seconds this launch's reads may take in all (scans and
  // read-backs): what the split they serve can gain. Beyond it a read fails
  // (the region is unknown: whole buffer) and the blocks scanned so far stay
  // cached, so the next launches go on where this one stopped.
  void limit_seconds(double seconds) const { limit_ns_ = seconds * 1e9; }

 private:
  const Launch& L;
  mutable Stats stats_;
  mutable double limit_ns_ = INFINITY;
};

// Limits the host time the launch's index reads may take (no-op without a
// reader): see IndexReader::limit_seconds.
void limit_index_reads(const Launch& L, double seconds);

// The reader for a launch whose regions load from index buffers; null when
// none does or LIBSPLIT_INDIRECT=0 (the regions then stay unevaluable: whole
// buffers, merged scatters).
std::shared_ptr<const LoadedValues> make_index_reader(const Launch& L);

// Whether some buffer region of the launch's kernel loads from memory.
bool uses_index_buffers(const Launch& L);
// Whether a written buffer's region does: chunks' written bytes then depend
// on where the chunk boundaries fall, so a split needs its actual chunks
// checked for overlap (static split), never a prediction (dynamic chunks).
bool writes_through_index(const Launch& L);

}  // namespace libsplit

#include "trace.h"

namespace libsplit::sched::sim {

void write_trace(std::ostream& out, const LaunchKey& key, uint64_t numgroups,
                 const std::vector<LaunchResult>& results, bool header) {
  if (header) out << kTraceHeader << '\n';
  for (const LaunchResult& result : results) {
    for (const ChunkTiming& timing : result.timings) {
      const unsigned d = timing.chunk.device;
      out << result.launch << ',' << key.kernel << ',' << d << ',' << key.split_dim << ','
          << timing.chunk.first_group << ',' << timing.chunk.group_count << ',' << numgroups
          << ',' << timing.seconds * 1e3 << ',' << timing.transfer_seconds * 1e3 << ','
          << double(result.groups[d]) / double(numgroups) << ','
          << result.predicted_seconds[d] * 1e3 << '\n';
    }
  }
}

}  // namespace libsplit::sched::sim

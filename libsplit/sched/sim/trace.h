// LIBSPLIT_TRACE CSV, the same format the runtime writes:
// launch,kernel,device,split_dim,first_group,groups,total_groups,ms_kernel,
// ms_transfer,granularity,predicted_ms
#pragma once

#include <ostream>
#include <vector>

#include "simulate.h"

namespace libsplit::sched::sim {

inline constexpr const char* kTraceHeader =
    "launch,kernel,device,split_dim,first_group,groups,total_groups,ms_kernel,ms_transfer,"
    "granularity,predicted_ms";

// One row per chunk; granularity = the device's share of the launch.
void write_trace(std::ostream& out, const LaunchKey& key, uint64_t numgroups,
                 const std::vector<LaunchResult>& results, bool header = true);

}  // namespace libsplit::sched::sim

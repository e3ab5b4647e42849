// Granularities (shares in [0,1]) to whole work-groups, and back.
#pragma once

#include <cstdint>
#include <vector>

namespace libsplit::sched {

// Largest-remainder rounding: counts sum exactly to numgroups, every count
// >= 0, deterministic (ties go to the lower device index). Negative or NaN
// shares count as 0; all-zero shares give an equal split.
std::vector<uint64_t> round_to_groups(const std::vector<double>& shares, uint64_t numgroups);

// Euclidean projection onto the probability simplex {x >= 0, sum x = 1}.
std::vector<double> project_to_simplex(const std::vector<double>& x);

// shares scaled to sum 1 (negatives clamped to 0; all-zero -> uniform).
std::vector<double> normalized(const std::vector<double>& x);

}  // namespace libsplit::sched

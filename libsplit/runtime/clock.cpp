#include "clock.h"

#include <chrono>
#include <ctime>

namespace libsplit {

cl_ulong now_ns() {
  return static_cast<cl_ulong>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

cl_ulong now_coarse_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return static_cast<cl_ulong>(t.tv_sec) * 1000000000u + static_cast<cl_ulong>(t.tv_nsec);
}

}  // namespace libsplit

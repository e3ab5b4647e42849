// How long each device sat idle between the app's consecutive launches:
// the host's round trip between them (the app's wait for the previous
// launch, its enqueue of the next), which the scheduler charges a split
// with where it exceeds that of whole launches (ChunkTiming::idle_before).
// Measured from the kernels' profiling times, on each device's own clock.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace libsplit {

class DeviceIdle {
 public:
  // Launch `launch` (the runtime's launch counter) ran kernels on `device`
  // from start_ns to end_ns (device clock). Returns the seconds the device
  // was idle before them since launch - 1 ended there, or -1 when unknown:
  // launch - 1 did not run there, or its times were not read (yet).
  // Any thread (whole launches report from driver callbacks).
  double ran(unsigned device, uint64_t launch, uint64_t start_ns, uint64_t end_ns);

 private:
  struct Last {
    uint64_t launch = 0;
    uint64_t end_ns = 0;
  };
  std::mutex mutex_;
  std::vector<Last> last_;  // per device
};

// The runtime's one.
DeviceIdle& device_idle();

// device_idle().ran(...) for a whole launch, -1 where it first moved data
// to its device (transfer_seconds > 0): the device then waited for the
// moves, which are priced as such.
double idle_unless_moved(unsigned device, uint64_t launch, uint64_t start_ns, uint64_t end_ns,
                         double transfer_seconds);

}  // namespace libsplit

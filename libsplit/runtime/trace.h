// LIBSPLIT_TRACE (CSV, one row per sub-kernel) and LIBSPLIT_TIMELINE (Chrome
// trace-event JSON, written at exit).
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace libsplit {

struct SubKernelRow {
  uint64_t launch = 0;
  std::string kernel;
  unsigned device = 0;
  unsigned split_dim = 0;
  uint64_t first_group = 0, groups = 0, total_groups = 0;
  double ms_kernel = 0, ms_transfer = 0, granularity = 0, predicted_ms = 0;
  // Data the launch moved for this device (on its first row of the launch):
  // host-to-device writes and device-to-host reads made to stage its slices.
  uint64_t bytes_to_device = 0, bytes_to_host = 0;
  // Host time spent, before the kernels, gathering what this device lacked
  // from the other devices (read back into the host copy, or copied over
  // through pinned staging or a copy command; first row of the launch).
  double ms_gather = 0;
  // Store units of the launch's merged buffers that two devices wrote with
  // different values (a race in the kernel; first row of the launch).
  uint64_t racy_units = 0;
};

class Tracer {
 public:
  Tracer(std::string csv_path, std::string timeline_path);
  ~Tracer();
  bool enabled() const { return csv_ || !timeline_path_.empty(); }
  void row(const SubKernelRow& r);
  // One timeline slice (times in ns of the host clock).
  void span(const std::string& name, const std::string& category, unsigned device,
            uint64_t begin_ns, uint64_t end_ns);
  void write_timeline();

 private:
  std::mutex mutex_;
  FILE* csv_ = nullptr;
  std::string timeline_path_;
  struct Span {
    std::string name, category;
    unsigned device;
    uint64_t begin, end;
  };
  std::vector<Span> spans_;
};

}  // namespace libsplit

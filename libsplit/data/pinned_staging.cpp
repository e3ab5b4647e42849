#include "pinned_staging.h"

#include "objects.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace libsplit {

namespace {
// Large enough for copies to run near full speed (on the H100, 1 MB pieces
// ran at 28-35 GB/s, 16 MB at 52-53), small enough to pin in a few
// milliseconds (32 MiB took 21 ms).
constexpr size_t kStagingBytes = size_t(8) << 20;
}  // namespace

PinnedStaging* pinned_staging() {
  static PinnedStaging staging;
  static bool tried = false;
  if (tried) return staging.ptr ? &staging : nullptr;
  tried = true;
  Runtime& rt = runtime();
  if (rt.pinning_device < 0) return nullptr;
  const Device& dev = rt.devices[rt.pinning_device];
  size_t bytes = kStagingBytes;
  // Tests: a move in many small pieces.
  if (auto v = injected_fault(rt.controls.inject_faults, "staging_bytes"); v && !v->empty())
    bytes = std::max<size_t>(2, std::strtoull(std::string(*v).c_str(), nullptr, 10));
  const cl_ulong t0 = now_ns();
  cl_int err = CL_SUCCESS;
  cl_mem mem = real().clCreateBuffer(rt.context(dev.slot), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                     bytes, nullptr, &err);
  if (!mem || err != CL_SUCCESS) return nullptr;
  void* ptr = real().clEnqueueMapBuffer(dev.queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                        bytes, 0, nullptr, nullptr, &err);
  if (!ptr || err != CL_SUCCESS) {
    real().clReleaseMemObject(mem);
    return nullptr;
  }
  staging = {mem, static_cast<uint8_t*>(ptr), bytes};
  log_line(2, "pinned staging: " + std::to_string(bytes) + " bytes from " + dev.name + " in " +
                  std::to_string((now_ns() - t0) / 1000) + " us");
  return &staging;
}

}  // namespace libsplit

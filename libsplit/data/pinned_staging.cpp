#include "pinned_staging.h"

#include "objects.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace libsplit {

namespace {
// Large enough for copies to run near full speed (on the H100, 1 MB pieces
// ran at 28-35 GB/s, 16 MB at 52-53), small enough to pin in a few
// milliseconds (32 MiB took 21 ms).
constexpr size_t kStagingBytes = size_t(8) << 20;

PinnedStaging g_staging;
std::once_flag g_pinned;

// `context`: the pinning device's internal context.
void pin_staging(cl_context context) {
  Runtime& rt = runtime();
  const Device& dev = rt.devices[rt.pinning_device];
  size_t bytes = kStagingBytes;
  // Tests: a move in many small pieces.
  if (auto v = injected_fault(rt.controls.inject_faults, "staging_bytes"); v && !v->empty())
    bytes = std::max<size_t>(2, std::strtoull(std::string(*v).c_str(), nullptr, 10));
  const cl_ulong t0 = now_ns();
  cl_int err = CL_SUCCESS;
  cl_mem mem = real().clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                     bytes, nullptr, &err);
  if (!mem || err != CL_SUCCESS) return;
  // Mapped on a queue of its own: the background opener must not run the
  // app's queued commands on its thread (Oclgrind asserted when it did).
  cl_command_queue queue = create_profiling_queue(dev, context, &err);
  void* ptr = queue ? real().clEnqueueMapBuffer(queue, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                                nullptr, nullptr, &err)
                    : nullptr;
  if (queue) real().clReleaseCommandQueue(queue);
  if (!ptr || err != CL_SUCCESS) {
    real().clReleaseMemObject(mem);
    return;
  }
  g_staging = {mem, static_cast<uint8_t*>(ptr), bytes};
  log_line(2, "pinned staging: " + std::to_string(bytes) + " bytes from " + dev.name + " in " +
                  std::to_string((now_ns() - t0) / 1000) + " us");
}

}  // namespace

PinnedStaging* pinned_staging() {
  Runtime& rt = runtime();
  if (rt.pinning_device < 0) return nullptr;
  std::call_once(g_pinned, [&rt] { pin_staging(rt.context(rt.devices[rt.pinning_device].slot)); });
  return g_staging.ptr ? &g_staging : nullptr;
}

void pin_staging_beside(unsigned opened_slot) {
  Runtime& rt = runtime();
  if (rt.pinning_device < 0) return;
  const unsigned slot = rt.devices[rt.pinning_device].slot;
  // The slot just opened is not marked open yet (Runtime::context would
  // wait for the opener, which is the caller), but its context is made.
  if (slot != opened_slot && !rt.device_slot_open(slot)) return;
  std::call_once(g_pinned, [&rt, slot] { pin_staging(rt.contexts[slot]); });
}

}  // namespace libsplit

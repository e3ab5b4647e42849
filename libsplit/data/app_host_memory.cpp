#include "app_host_memory.h"

#include "buffer_data.h"
#include "real_api.h"
#include "runtime.h"

#include <atomic>
#include <mutex>
#include <set>

namespace libsplit {

namespace {

// Lock order: the runtime's exec lock, then this one (a store's destructor
// may run with or without the exec lock held).
std::mutex g_mutex;
std::set<BufferStore*> g_stores;
std::atomic<bool> g_any{false};
// The driver's error of a final copy into the app's memory that failed (at
// the buffer's end, where nobody can be told): the next clFinish or blocking
// command reports it once.
std::atomic<cl_int> g_lost{CL_SUCCESS};

bool shares_host_memory(cl_device_id d) {
  cl_bool unified = CL_FALSE;
  if (real().clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr) == CL_SUCCESS)
    return unified == CL_TRUE;
  cl_device_type type = 0;
  real().clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  return type & CL_DEVICE_TYPE_CPU;
}

}  // namespace

bool app_reads_host_memory(cl_context ctx) {
  for (cl_device_id d : ctx->devices)
    if (shares_host_memory(d)) return true;
  return false;
}

void track_app_host_memory(BufferStore& s) {
  std::lock_guard lock(g_mutex);
  g_stores.insert(&s);
  g_any.store(true, std::memory_order_release);
}

void untrack_app_host_memory(BufferStore& s) {
  std::lock_guard lock(g_mutex);
  g_stores.erase(&s);
  g_any.store(!g_stores.empty(), std::memory_order_release);
}

void note_lost_app_host_memory(cl_int err) { g_lost.store(err, std::memory_order_release); }

cl_int update_app_host_memory() {
  if (cl_int lost = g_lost.exchange(CL_SUCCESS, std::memory_order_acq_rel)) return lost;
  if (!g_any.load(std::memory_order_acquire)) return CL_SUCCESS;
  std::lock_guard exec(runtime().exec_mutex);
  std::lock_guard lock(g_mutex);
  for (BufferStore* s : g_stores)
    if (cl_int err = ensure_host(*s, {0, s->size})) return err;
  return CL_SUCCESS;
}

}  // namespace libsplit

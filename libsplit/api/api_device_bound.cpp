// Features bound to one device: shared virtual memory, pipes and native
// kernels. SVM allocations and pipes are made in the internal context of the
// app context's device (the first device of the app's context), and kernels
// using them run whole on the app queue's device (launch.cpp); SVM commands
// run on that device's queue. Native kernels run on the host, on the host
// copies of their memory objects, when the app's device can run them.
// Every check the native runtime makes at creation is made by creating the
// object natively on the app's context first (then released).
#include "api.h"
#include "buffer_data.h"
#include "image_data.h"
#include "queue.h"
#include "real_api.h"
#include "runtime.h"

#include <cstring>
#include <map>
#include <mutex>

namespace libsplit {

namespace {

// The runtime device standing for the app's context: its first device.
int context_device(cl_context ctx) {
  return ctx->devices.empty() ? -1 : runtime().device_index(ctx->devices[0]);
}

// Live SVM allocations -> the internal platform slot they were made in.
std::mutex g_svm_mutex;
std::map<const void*, unsigned>& svm_slots() {
  static auto* m = new std::map<const void*, unsigned>;
  return *m;
}

// Runs `op` on the queue's device queue as a command of the app's queue,
// waiting for it there.
cl_int enqueue_on_device(cl_command_queue q, cl_command_type type, cl_uint n, const cl_event* waits,
                         cl_event* ev, bool blocking, std::function<cl_int(cl_command_queue)> op) {
  return enqueue(q, type, n, waits, ev, blocking, [q, op = std::move(op)] {
    cl_command_queue dq = runtime().devices[q->home].queue;
    cl_int err = op(dq);
    return err != CL_SUCCESS ? err : real().clFinish(dq);
  });
}

}  // namespace

namespace api {

void* clSVMAlloc(cl_context ctx, cl_svm_mem_flags flags, size_t size, cl_uint alignment) {
  if (!valid(ctx)) return nullptr;
  const int device = context_device(ctx);
  if (device < 0) return nullptr;
  // The native context decides whether it would allocate (its devices' SVM
  // capabilities, flags, size, alignment).
  void* probe = real().clSVMAlloc(ctx->real, flags, size, alignment);
  if (!probe) return nullptr;
  real().clSVMFree(ctx->real, probe);
  const unsigned slot = runtime().devices[unsigned(device)].slot;
  void* p = real().clSVMAlloc(runtime().context(slot), flags, size, alignment);
  if (p) {
    std::lock_guard lock(g_svm_mutex);
    svm_slots()[p] = slot;
  }
  return p;
}

void clSVMFree(cl_context ctx, void* ptr) {
  if (!valid(ctx) || !ptr) return;
  unsigned slot = 0;
  {
    std::lock_guard lock(g_svm_mutex);
    auto it = svm_slots().find(ptr);
    if (it == svm_slots().end()) return;
    slot = it->second;
    svm_slots().erase(it);
  }
  real().clSVMFree(runtime().context(slot), ptr);
}

cl_int clSetKernelArgSVMPointer(cl_kernel k, cl_uint index, const void* value) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  if (index >= k->num_args) return CL_INVALID_ARG_INDEX;
  if (cl_int err = real().clSetKernelArgSVMPointer(k->native, index, value)) return err;
  ArgValue a;
  a.kind = ArgValue::Kind::Svm;
  a.svm = const_cast<void*>(value);
  std::lock_guard lock(k->mutex);
  k->args[index] = std::move(a);
  return CL_SUCCESS;
}

cl_int clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void* dst, const void* src, size_t size,
                          cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!dst || !src) return CL_INVALID_VALUE;
  const auto* d = static_cast<const uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (d < s + size && s < d + size) return CL_MEM_COPY_OVERLAP;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  return enqueue_on_device(q, CL_COMMAND_SVM_MEMCPY, n, waits, ev, blocking, [=](cl_command_queue dq) {
    return real().clEnqueueSVMMemcpy(dq, CL_TRUE, dst, src, size, 0, nullptr, nullptr);
  });
}

cl_int clEnqueueSVMMemFill(cl_command_queue q, void* ptr, const void* pattern, size_t pattern_size,
                           size_t size, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!ptr || !pattern || pattern_size == 0 || pattern_size > 128 ||
      (pattern_size & (pattern_size - 1)) || reinterpret_cast<uintptr_t>(ptr) % pattern_size ||
      size % pattern_size)
    return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  std::vector<uint8_t> pat(static_cast<const uint8_t*>(pattern),
                           static_cast<const uint8_t*>(pattern) + pattern_size);
  return enqueue_on_device(q, CL_COMMAND_SVM_MEMFILL, n, waits, ev, false, [=](cl_command_queue dq) {
    return real().clEnqueueSVMMemFill(dq, ptr, pat.data(), pat.size(), size, 0, nullptr, nullptr);
  });
}

cl_int clEnqueueSVMMap(cl_command_queue q, cl_bool blocking, cl_map_flags flags, void* ptr, size_t size,
                       cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!ptr || size == 0) return CL_INVALID_VALUE;
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if ((flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  return enqueue_on_device(q, CL_COMMAND_SVM_MAP, n, waits, ev, blocking, [=](cl_command_queue dq) {
    return real().clEnqueueSVMMap(dq, CL_TRUE, flags, ptr, size, 0, nullptr, nullptr);
  });
}

cl_int clEnqueueSVMUnmap(cl_command_queue q, void* ptr, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  return enqueue_on_device(q, CL_COMMAND_SVM_UNMAP, n, waits, ev, false, [=](cl_command_queue dq) {
    return real().clEnqueueSVMUnmap(dq, ptr, 0, nullptr, nullptr);
  });
}

cl_int clEnqueueSVMFree(cl_command_queue q, cl_uint num, void* ptrs[],
                        void(CL_CALLBACK* free_fn)(cl_command_queue, cl_uint, void*[], void*),
                        void* user, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if ((num == 0) != (ptrs == nullptr)) return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  std::vector<void*> list(ptrs, ptrs + num);
  return enqueue(q, CL_COMMAND_SVM_FREE, n, waits, ev, false, [=]() mutable {
    // Device work using them is done: the device queue drains first.
    real().clFinish(runtime().devices[q->home].queue);
    if (free_fn) {
      free_fn(q, num, list.data(), user);
    } else {
      for (void* p : list) api::clSVMFree(q->context, p);
    }
    return CL_SUCCESS;
  });
}

cl_int clEnqueueSVMMigrateMem(cl_command_queue q, cl_uint num, const void** ptrs, const size_t* sizes,
                              cl_mem_migration_flags flags, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (num == 0 || !ptrs) return CL_INVALID_VALUE;
  (void)sizes;
  if (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  // SVM stays in the one context it was made in: an ordering point only.
  return enqueue(q, CL_COMMAND_SVM_MIGRATE_MEM, n, waits, ev, false, nullptr);
}

cl_mem clCreatePipe(cl_context ctx, cl_mem_flags flags, cl_uint packet_size, cl_uint max_packets,
                    const cl_pipe_properties* properties, cl_int* errcode_ret) {
  auto fail = [&](cl_int e) -> cl_mem {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(ctx)) return fail(CL_INVALID_CONTEXT);
  cl_int err = CL_SUCCESS;
  cl_mem native = real().clCreatePipe(ctx->real, flags, packet_size, max_packets, properties, &err);
  if (!native || err != CL_SUCCESS) return fail(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES);
  cl_mem_flags native_flags = flags;
  size_t size = 0;
  real().clGetMemObjectInfo(native, CL_MEM_FLAGS, sizeof native_flags, &native_flags, nullptr);
  real().clGetMemObjectInfo(native, CL_MEM_SIZE, sizeof size, &size, nullptr);
  real().clReleaseMemObject(native);
  const int device = context_device(ctx);
  if (device < 0) return fail(CL_INVALID_OPERATION);
  cl_mem pipe = real().clCreatePipe(runtime().context(runtime().devices[unsigned(device)].slot), flags,
                                    packet_size, max_packets, properties, &err);
  if (!pipe) return fail(err);
  auto* m = new _cl_mem;
  m->context = ctx;
  retain(ctx);
  m->type = CL_MEM_OBJECT_PIPE;
  m->flags = native_flags;
  m->size = size;
  m->pipe = pipe;
  if (properties) m->properties.push_back(0);
  register_mem(m);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return m;
}

cl_int clGetPipeInfo(cl_mem m, cl_pipe_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(m) || !m->pipe) return CL_INVALID_MEM_OBJECT;
  return real().clGetPipeInfo(m->pipe, param, size, value, size_ret);
}

cl_int clEnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK* fn)(void*), void* args, size_t cb_args,
                             cl_uint num_mems, const cl_mem* mems, const void** mem_locs, cl_uint n,
                             const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  cl_device_exec_capabilities caps = 0;
  real().clGetDeviceInfo(q->device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, nullptr);
  if (!(caps & CL_EXEC_NATIVE_KERNEL)) return CL_INVALID_OPERATION;
  if (!fn || (!args && (cb_args || num_mems)) || (args && !cb_args) ||
      (num_mems && (!mems || !mem_locs)) || (!num_mems && (mems || mem_locs)))
    return CL_INVALID_VALUE;
  std::vector<size_t> offsets(num_mems);
  for (cl_uint i = 0; i < num_mems; ++i) {
    if (!valid(mems[i]) || mems[i]->pipe) return CL_INVALID_MEM_OBJECT;
    if (mems[i]->context != q->context) return CL_INVALID_CONTEXT;
    const auto* loc = static_cast<const uint8_t*>(mem_locs[i]);
    const auto* base = static_cast<const uint8_t*>(args);
    if (loc < base || loc + sizeof(void*) > base + cb_args) return CL_INVALID_VALUE;
    offsets[i] = size_t(loc - base);
  }
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  for (cl_uint i = 0; i < num_mems; ++i) hold->add(mems[i]);
  std::vector<uint8_t> copy(static_cast<const uint8_t*>(args), static_cast<const uint8_t*>(args) + cb_args);
  return enqueue(q, CL_COMMAND_NATIVE_KERNEL, n, waits, ev, false, [=]() mutable {
    // The function sees the host copies (what a CPU device gives it), each
    // made valid first and the only valid copy afterwards.
    for (cl_uint i = 0; i < num_mems; ++i) {
      cl_mem m = hold->mems[i];
      void* where = nullptr;
      if (m->image) {
        if (cl_int err = ensure_image_host(*m->image)) return err;
        where = m->image->shadow;
      } else {
        if (cl_int err = ensure_host(*m->store, root_range(m, 0, m->size))) return err;
        before_shadow_change(*m->store, root_range(m, 0, m->size));
        where = m->store->shadow + m->origin;
      }
      std::memcpy(copy.data() + offsets[i], &where, sizeof where);
    }
    fn(copy.empty() ? nullptr : copy.data());
    for (cl_uint i = 0; i < num_mems; ++i) {
      cl_mem m = hold->mems[i];
      if (m->image)
        wrote_image_host(*m->image);
      else
        wrote_host(*m->store, root_range(m, 0, m->size));
    }
    return CL_SUCCESS;
  });
}

}  // namespace api
}  // namespace libsplit

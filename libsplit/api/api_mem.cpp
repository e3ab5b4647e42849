// Buffers, sub-buffers and the buffer commands. Every command works on the
// host shadow (fetching from devices what is stale there); kernels move data
// to devices (launch.cpp).
#include "api.h"
#include "app_host_memory.h"
#include "buffer_data.h"
#include "deferred_writes.h"
#include "device_wait.h"
#include "image_data.h"
#include "queue.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <cstring>

namespace libsplit {

namespace {

constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostAccessFlags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
constexpr cl_mem_flags kHostPtrFlags =
    CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

int bits(cl_mem_flags f) { return __builtin_popcountll(f); }

cl_mem create_buffer(cl_context ctx, const cl_mem_properties* properties, cl_mem_flags flags,
                     size_t size, void* host_ptr, cl_int* err) {
  auto fail = [&](cl_int e) -> cl_mem {
    if (err) *err = e;
    return nullptr;
  };
  if (!valid(ctx)) return fail(CL_INVALID_CONTEXT);
  if (properties && *properties) return fail(CL_INVALID_PROPERTY);
  const cl_mem_flags known = kAccessFlags | kHostAccessFlags | kHostPtrFlags |
                             CL_MEM_KERNEL_READ_AND_WRITE;
  if ((flags & ~known) || bits(flags & kAccessFlags) > 1 || bits(flags & kHostAccessFlags) > 1 ||
      ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
    return fail(CL_INVALID_VALUE);
  if (size == 0) return fail(CL_INVALID_BUFFER_SIZE);
  cl_ulong max_alloc = ~cl_ulong(0);
  for (auto& d : runtime().devices) max_alloc = std::min(max_alloc, d.max_alloc);
  if (size > max_alloc) {
    // Above the advertised limit: whatever the app's own driver does
    // (NVIDIA's takes a buffer above its CL_DEVICE_MAX_MEM_ALLOC_SIZE, PoCL's
    // refuses it), asked with a buffer of that size on the app's context,
    // released at once. Only on this path: no cost for the others.
    cl_int native_err = CL_INVALID_BUFFER_SIZE;
    cl_mem probe = real().clCreateBuffer(ctx->real, flags & kAccessFlags, size, nullptr, &native_err);
    if (!probe) return fail(native_err != CL_SUCCESS ? native_err : CL_INVALID_BUFFER_SIZE);
    real().clReleaseMemObject(probe);
  }
  bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  if (wants_ptr != (host_ptr != nullptr)) return fail(CL_INVALID_HOST_PTR);
  if (!(flags & kAccessFlags)) flags |= CL_MEM_READ_WRITE;
  auto store = std::make_shared<BufferStore>();
  store->size = size;
  if (flags & CL_MEM_USE_HOST_PTR) {
    store->shadow = static_cast<uint8_t*>(host_ptr);
    if (app_reads_host_memory(ctx)) {
      store->app_host_memory = true;
      track_app_host_memory(*store);
    }
  } else {
    store->owned.reset(static_cast<uint8_t*>(std::calloc(size, 1)));
    if (!store->owned) return fail(CL_OUT_OF_HOST_MEMORY);
    store->shadow = store->owned.get();
  }
  store->host_valid.add({0, size});
  if (!wants_ptr) store->undefined.add({0, size});
  if (flags & CL_MEM_COPY_HOST_PTR) {
    // Contents given at creation go to the device of a one-device context
    // at once, as natively, straight from the app's memory (a copy into the
    // shadow first cost ~0.2 s of wall time for 512 MB); elsewhere, or if
    // that fails, into the shadow.
    bool on_device = false;
    if (int home = ctx->devices.size() == 1 ? runtime().device_index(ctx->devices[0]) : -1; home >= 0) {
      std::lock_guard exec(runtime().exec_mutex);
      on_device = write_device_only(*store, unsigned(home), {0, size}, host_ptr) == CL_SUCCESS;
    }
    if (!on_device) std::memcpy(store->shadow, host_ptr, size);
  }
  auto* m = new _cl_mem;
  m->context = ctx;
  retain(ctx);
  m->flags = flags;
  m->size = size;
  m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
  m->store = std::move(store);
  if (properties) m->properties.push_back(0);
  register_mem(m);
  if (err) *err = CL_SUCCESS;
  return m;
}

bool host_may_read(cl_mem m) { return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)); }
bool host_may_write(cl_mem m) { return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)); }

cl_int check_buffer(cl_command_queue q, cl_mem m) {
  if (!valid(m) || m->type != CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

bool in_bounds(cl_mem m, size_t offset, size_t size) {
  return offset <= m->size && size <= m->size - offset;
}

// Rectangles: pitches defaulted as the spec says; the byte span touched.
struct Rect {
  size_t origin[3], region[3], row, slice;
  uint64_t first() const { return origin[2] * slice + origin[1] * row + origin[0]; }
  uint64_t end() const {
    return (origin[2] + region[2] - 1) * slice + (origin[1] + region[1] - 1) * row + origin[0] +
           region[0];
  }
};

cl_int make_rect(const size_t* origin, const size_t* region, size_t row, size_t slice, Rect* out) {
  if (!origin || !region) return CL_INVALID_VALUE;
  if (region[0] == 0 || region[1] == 0 || region[2] == 0) return CL_INVALID_VALUE;
  if (row == 0) row = region[0];
  else if (row < region[0]) return CL_INVALID_VALUE;
  if (slice == 0) slice = region[1] * row;
  else if (slice < region[1] * row || slice % row != 0) return CL_INVALID_VALUE;
  for (int i = 0; i < 3; ++i) out->origin[i] = origin[i], out->region[i] = region[i];
  out->row = row;
  out->slice = slice;
  return CL_SUCCESS;
}

void copy_rect(uint8_t* dst, const Rect& d, const uint8_t* src, const Rect& s) {
  for (size_t z = 0; z < d.region[2]; ++z)
    for (size_t y = 0; y < d.region[1]; ++y)
      std::memmove(dst + (d.origin[2] + z) * d.slice + (d.origin[1] + y) * d.row + d.origin[0],
                   src + (s.origin[2] + z) * s.slice + (s.origin[1] + y) * s.row + s.origin[0],
                   d.region[0]);
}

}  // namespace

namespace api {

cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void* host_ptr,
                      cl_int* errcode_ret) {
  return create_buffer(ctx, nullptr, flags, size, host_ptr, errcode_ret);
}

cl_mem clCreateBufferWithProperties(cl_context ctx, const cl_mem_properties* properties,
                                    cl_mem_flags flags, size_t size, void* host_ptr,
                                    cl_int* errcode_ret) {
  return create_buffer(ctx, properties, flags, size, host_ptr, errcode_ret);
}

cl_mem clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags, cl_buffer_create_type type,
                         const void* info, cl_int* errcode_ret) {
  auto fail = [&](cl_int e) -> cl_mem {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(buffer) || buffer->parent || buffer->type != CL_MEM_OBJECT_BUFFER)
    return fail(CL_INVALID_MEM_OBJECT);
  if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) return fail(CL_INVALID_VALUE);
  if (bits(flags & kAccessFlags) > 1 || (flags & kHostPtrFlags) ||
      bits(flags & kHostAccessFlags) > 1)
    return fail(CL_INVALID_VALUE);
  auto* region = static_cast<const cl_buffer_region*>(info);
  if (region->size == 0) return fail(CL_INVALID_BUFFER_SIZE);
  if (!in_bounds(buffer, region->origin, region->size)) return fail(CL_INVALID_VALUE);
  cl_uint align_bits = 0;
  for (auto& d : runtime().devices) align_bits = std::max(align_bits, d.base_addr_align);
  if (align_bits && region->origin % (align_bits / 8) != 0)
    return fail(CL_MISALIGNED_SUB_BUFFER_OFFSET);
  auto* m = new _cl_mem;
  m->context = buffer->context;
  retain(m->context);
  m->flags = (flags & kAccessFlags ? flags & kAccessFlags : buffer->flags & kAccessFlags) |
             (buffer->flags & kHostPtrFlags) |
             (flags & kHostAccessFlags ? flags & kHostAccessFlags : buffer->flags & kHostAccessFlags);
  m->size = region->size;
  m->parent = buffer;
  retain(buffer);
  m->origin = region->origin;
  m->host_ptr = buffer->host_ptr ? static_cast<uint8_t*>(buffer->host_ptr) + region->origin : nullptr;
  m->store = buffer->store;
  register_mem(m);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return m;
}

cl_int clRetainMemObject(cl_mem m) {
  if (!valid(m)) return CL_INVALID_MEM_OBJECT;
  retain(m);
  return CL_SUCCESS;
}

cl_int clReleaseMemObject(cl_mem m) {
  if (!valid(m)) return CL_INVALID_MEM_OBJECT;
  release(m);
  return CL_SUCCESS;
}

cl_int clSetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK* fn)(cl_mem, void*), void* user) {
  if (!valid(m)) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard lock(m->mutex);
  m->destructor_callbacks.emplace_back(fn, user);
  return CL_SUCCESS;
}

cl_int clGetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(m)) return CL_INVALID_MEM_OBJECT;
  switch (param) {
    case CL_MEM_TYPE: return set_info_value(size, value, size_ret, m->type);
    case CL_MEM_FLAGS: return set_info_value(size, value, size_ret, m->flags);
    case CL_MEM_SIZE: return set_info_value(size, value, size_ret, static_cast<size_t>(m->size));
    case CL_MEM_HOST_PTR: return set_info_value(size, value, size_ret, m->host_ptr);
    case CL_MEM_MAP_COUNT: return set_info_value(size, value, size_ret, m->map_count.load());
    case CL_MEM_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(m));
    case CL_MEM_CONTEXT: return set_info_value(size, value, size_ret, m->context);
    case CL_MEM_ASSOCIATED_MEMOBJECT: return set_info_value(size, value, size_ret, m->parent);
    case CL_MEM_OFFSET: return set_info_value(size, value, size_ret, static_cast<size_t>(m->parent ? m->origin : 0));
    case CL_MEM_USES_SVM_POINTER: return set_info_value(size, value, size_ret, cl_bool{CL_FALSE});
    case CL_MEM_PROPERTIES:
      return set_info(size, value, size_ret, m->properties.data(),
                      m->properties.size() * sizeof(cl_mem_properties));
    default: return CL_INVALID_VALUE;
  }
}

cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                           size_t size, void* ptr, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, m)) return err;
  if (!ptr || size == 0 || !in_bounds(m, offset, size)) return CL_INVALID_VALUE;
  if (!host_may_read(m)) return CL_INVALID_OPERATION;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  return enqueue(q, CL_COMMAND_READ_BUFFER, n, waits, ev, blocking, [=] {
    (void)hold;
    return read_into(*m->store, root_range(m, offset, size), ptr);
  });
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                            size_t size, const void* ptr, cl_uint n, const cl_event* waits,
                            cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, m)) return err;
  if (!ptr || size == 0 || !in_bounds(m, offset, size)) return CL_INVALID_VALUE;
  if (!host_may_write(m)) return CL_INVALID_OPERATION;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  // LIBSPLIT_DEFERRED_WRITES defers only a non-blocking write whose event the
  // app does not take: the app may reuse or free the source once it knows the
  // write completed, and without an event it can only learn that through a
  // later command, a blocking call or clFinish, each of which copies every
  // pending write first. A blocking write returns with its bytes copied.
  const bool deferrable = runtime().controls.deferred_writes;
  const bool defer = deferrable && !blocking && !ev;
  return enqueue(q, CL_COMMAND_WRITE_BUFFER, n, waits, ev, blocking, [=] {
    (void)hold;
    Range r = root_range(m, offset, size);
    if (defer) {
      deferred_write(*m->store, r.begin, ptr, size);
      wrote_host(*m->store, r);
      return CL_SUCCESS;
    }
    // Pending writes go first: they were enqueued before this one.
    if (deferrable) deferred_flush_all();
    // A blocking write of our own store goes straight to the queue's
    // device, as natively: copying it through the shadow first cost a
    // second pass over the bytes (256 MB: ~60 ms) on the app's time.
    if (blocking && m->store->owned &&
        write_device_only(*m->store, q->home, r, ptr) == CL_SUCCESS)
      return CL_SUCCESS;
    before_shadow_change(*m->store, r);
    std::memmove(m->store->shadow + r.begin, ptr, size);
    wrote_host(*m->store, r);
    // On to the queue's device at once, as the native runtime does: a launch
    // there then finds its data (the upload is not deferred into it), and a
    // blocking write returns once it is there. The host copy is valid
    // whatever happens to this copy.
    if (ensure_device(*m->store, q->home, r) == CL_SUCCESS && blocking)
      finish_device_queue(runtime().devices[q->home].queue);
    return CL_SUCCESS;
  });
}

// The checks clEnqueueRead/WriteBufferRect share, in the native order: queue,
// buffer, host pointer, both rectangles, buffer bounds.
static cl_int check_rect_transfer(cl_command_queue q, cl_mem m, const void* ptr,
                                  const size_t* buffer_origin, const size_t* host_origin,
                                  const size_t* region, size_t buffer_row_pitch,
                                  size_t buffer_slice_pitch, size_t host_row_pitch,
                                  size_t host_slice_pitch, Rect* b, Rect* h) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, m)) return err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = make_rect(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch, b)) return err;
  if (cl_int err = make_rect(host_origin, region, host_row_pitch, host_slice_pitch, h)) return err;
  if (b->end() > m->size) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

cl_int clEnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                               const size_t* buffer_origin, const size_t* host_origin,
                               const size_t* region, size_t buffer_row_pitch,
                               size_t buffer_slice_pitch, size_t host_row_pitch,
                               size_t host_slice_pitch, void* ptr, cl_uint n,
                               const cl_event* waits, cl_event* ev) {
  Rect b, h;
  if (cl_int err = check_rect_transfer(q, m, ptr, buffer_origin, host_origin, region,
                                       buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                                       host_slice_pitch, &b, &h))
    return err;
  if (!host_may_read(m)) return CL_INVALID_OPERATION;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  return enqueue(q, CL_COMMAND_READ_BUFFER_RECT, n, waits, ev, blocking, [=] {
    (void)hold;
    if (cl_int err = ensure_host(*m->store, root_range(m, b.first(), b.end() - b.first()))) return err;
    copy_rect(static_cast<uint8_t*>(ptr), h, m->store->shadow + m->origin, b);
    return CL_SUCCESS;
  });
}

cl_int clEnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                const size_t* buffer_origin, const size_t* host_origin,
                                const size_t* region, size_t buffer_row_pitch,
                                size_t buffer_slice_pitch, size_t host_row_pitch,
                                size_t host_slice_pitch, const void* ptr, cl_uint n,
                                const cl_event* waits, cl_event* ev) {
  Rect b, h;
  if (cl_int err = check_rect_transfer(q, m, ptr, buffer_origin, host_origin, region,
                                       buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                                       host_slice_pitch, &b, &h))
    return err;
  if (!host_may_write(m)) return CL_INVALID_OPERATION;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  return enqueue(q, CL_COMMAND_WRITE_BUFFER_RECT, n, waits, ev, blocking, [=] {
    (void)hold;
    Range span = root_range(m, b.first(), b.end() - b.first());
    if (cl_int err = ensure_host(*m->store, span)) return err;
    before_shadow_change(*m->store, span);
    copy_rect(m->store->shadow + m->origin, b, static_cast<const uint8_t*>(ptr), h);
    wrote_host(*m->store, span);
    return CL_SUCCESS;
  });
}

cl_int clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                           size_t dst_offset, size_t size, cl_uint n, const cl_event* waits,
                           cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, src)) return err;
  if (cl_int err = check_buffer(q, dst)) return err;
  if (size == 0 || !in_bounds(src, src_offset, size) || !in_bounds(dst, dst_offset, size))
    return CL_INVALID_VALUE;
  Range rs = root_range(src, src_offset, size), rd = root_range(dst, dst_offset, size);
  if (src->store == dst->store && rs.begin < rd.end && rd.begin < rs.end) return CL_MEM_COPY_OVERLAP;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(src);
  hold->add(dst);
  return enqueue(q, CL_COMMAND_COPY_BUFFER, n, waits, ev, false, [=] {
    (void)hold;
    if (cl_int err = ensure_host(*src->store, rs)) return err;
    before_shadow_change(*dst->store, rd);
    std::memmove(dst->store->shadow + rd.begin, src->store->shadow + rs.begin, size);
    wrote_host(*dst->store, rd);
    return CL_SUCCESS;
  });
}

cl_int clEnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst, const size_t* src_origin,
                               const size_t* dst_origin, const size_t* region,
                               size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch,
                               size_t dst_slice_pitch, cl_uint n, const cl_event* waits,
                               cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, src)) return err;
  if (cl_int err = check_buffer(q, dst)) return err;
  Rect s, d;
  if (cl_int err = make_rect(src_origin, region, src_row_pitch, src_slice_pitch, &s)) return err;
  if (cl_int err = make_rect(dst_origin, region, dst_row_pitch, dst_slice_pitch, &d)) return err;
  if (s.end() > src->size || d.end() > dst->size) return CL_INVALID_VALUE;
  Range rs = root_range(src, s.first(), s.end() - s.first());
  Range rd = root_range(dst, d.first(), d.end() - d.first());
  if (src->store == dst->store && rs.begin < rd.end && rd.begin < rs.end) return CL_MEM_COPY_OVERLAP;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(src);
  hold->add(dst);
  return enqueue(q, CL_COMMAND_COPY_BUFFER_RECT, n, waits, ev, false, [=] {
    (void)hold;
    if (cl_int err = ensure_host(*src->store, rs)) return err;
    if (cl_int err = ensure_host(*dst->store, rd)) return err;
    before_shadow_change(*dst->store, rd);
    copy_rect(dst->store->shadow + dst->origin, d, src->store->shadow + src->origin, s);
    wrote_host(*dst->store, rd);
    return CL_SUCCESS;
  });
}

cl_int clEnqueueFillBuffer(cl_command_queue q, cl_mem m, const void* pattern, size_t pattern_size,
                           size_t offset, size_t size, cl_uint n, const cl_event* waits,
                           cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_buffer(q, m)) return err;
  if (!pattern || pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)) ||
      offset % pattern_size || size % pattern_size || !in_bounds(m, offset, size))
    return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  std::vector<uint8_t> pat(static_cast<const uint8_t*>(pattern),
                           static_cast<const uint8_t*>(pattern) + pattern_size);
  return enqueue(q, CL_COMMAND_FILL_BUFFER, n, waits, ev, false, [=] {
    (void)hold;
    Range r = root_range(m, offset, size);
    before_shadow_change(*m->store, r);
    for (uint64_t p = r.begin; p < r.end; p += pat.size())
      std::memcpy(m->store->shadow + p, pat.data(), pat.size());
    wrote_host(*m->store, r);
    return CL_SUCCESS;
  });
}

void* clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                         size_t offset, size_t size, cl_uint n, const cl_event* waits, cl_event* ev,
                         cl_int* errcode_ret) {
  auto fail = [&](cl_int e) -> void* {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(q)) return fail(CL_INVALID_COMMAND_QUEUE);
  if (cl_int err = check_buffer(q, m)) return fail(err);
  if (size == 0 || !in_bounds(m, offset, size)) return fail(CL_INVALID_VALUE);
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if ((flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return fail(CL_INVALID_VALUE);
  if ((flags & CL_MAP_READ) && !host_may_read(m)) return fail(CL_INVALID_OPERATION);
  if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && !host_may_write(m))
    return fail(CL_INVALID_OPERATION);
  if (cl_int err = check_queue_and_waits(q, n, waits)) return fail(err);
  Range r = root_range(m, offset, size);
  void* ptr = m->store->shadow + r.begin;
  {
    std::lock_guard lock(m->mutex);
    m->mappings.emplace(ptr, _cl_mem::Mapping{offset, size, flags});
  }
  ++m->map_count;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  cl_int err = enqueue(q, CL_COMMAND_MAP_BUFFER, n, waits, ev, blocking, [=] {
    (void)hold;
    // The app writes through the pointer once the map returns.
    if (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) before_shadow_change(*m->store, r);
    if (flags & CL_MAP_WRITE_INVALIDATE_REGION) {
      wrote_host(*m->store, r);  // contents undefined: no fetch
      return CL_SUCCESS;
    }
    return ensure_host(*m->store, r);
  });
  if (errcode_ret) *errcode_ret = err;
  return err == CL_SUCCESS ? ptr : nullptr;
}

cl_int clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void* ptr, cl_uint n,
                               const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!valid(m)) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  _cl_mem::Mapping mapping{};
  {
    std::lock_guard lock(m->mutex);
    auto it = m->mappings.find(ptr);
    if (it == m->mappings.end()) return CL_INVALID_VALUE;
    if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
    mapping = it->second;
    m->mappings.erase(it);
  }
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  return enqueue(q, CL_COMMAND_UNMAP_MEM_OBJECT, n, waits, ev, false, [=] {
    (void)hold;
    // Images move whole: the host copy becomes the only valid one.
    if ((mapping.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && m->image)
      wrote_image_host(*m->image);
    else if (mapping.flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
      wrote_host(*m->store, root_range(m, mapping.offset, mapping.size));
    --m->map_count;
    return CL_SUCCESS;
  });
}

cl_int clEnqueueMigrateMemObjects(cl_command_queue q, cl_uint num_mems, const cl_mem* mems,
                                  cl_mem_migration_flags flags, cl_uint n, const cl_event* waits,
                                  cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (num_mems == 0 || !mems) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num_mems; ++i) {
    if (!valid(mems[i])) return CL_INVALID_MEM_OBJECT;
    if (mems[i]->context != q->context) return CL_INVALID_CONTEXT;
  }
  if (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  // Placement is libsplit's business: migration is a no-op ordering point.
  return enqueue(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, n, waits, ev, false, nullptr);
}

}  // namespace api
}  // namespace libsplit

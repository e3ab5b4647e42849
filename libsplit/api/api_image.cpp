// Images: creation (validated by the native runtime on the app's context),
// queries, and the image commands. The data lives in an ImageStore
// (image_data.h); commands run on the queue's device with the native image
// calls, the image first made valid there; maps work on the host copy.
#include "api.h"
#include "buffer_data.h"
#include "image_data.h"
#include "queue.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>

namespace libsplit {

namespace {

constexpr cl_mem_flags kAccessFlags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
constexpr cl_mem_flags kHostPtrFlags = CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR;

bool is_image(cl_mem m) {
  return valid(m) && m->image != nullptr;
}

bool is_buffer(cl_mem m) { return valid(m) && m->type == CL_MEM_OBJECT_BUFFER; }

template <class T>
T image_info(cl_mem native, cl_image_info what) {
  T v{};
  real().clGetImageInfo(native, what, sizeof v, &v, nullptr);
  return v;
}

// The image infos the app may ask, answered as the native image did.
constexpr cl_image_info kImageInfos[] = {CL_IMAGE_FORMAT,     CL_IMAGE_ELEMENT_SIZE, CL_IMAGE_ROW_PITCH,
                                         CL_IMAGE_SLICE_PITCH, CL_IMAGE_WIDTH,       CL_IMAGE_HEIGHT,
                                         CL_IMAGE_DEPTH,       CL_IMAGE_ARRAY_SIZE,  CL_IMAGE_NUM_MIP_LEVELS,
                                         CL_IMAGE_NUM_SAMPLES};

void record(std::map<cl_uint, std::vector<uint8_t>>& into, cl_uint what,
            const std::function<cl_int(size_t, void*, size_t*)>& query) {
  size_t n = 0;
  if (query(0, nullptr, &n) != CL_SUCCESS) return;
  std::vector<uint8_t> bytes(n);
  if (query(n, bytes.data(), nullptr) == CL_SUCCESS) into[what] = std::move(bytes);
}

using NativeCreate = std::function<cl_mem(cl_context, const cl_image_desc*, cl_int*)>;

// The image created natively on the app's context (every check and error
// code as native); null with *err set where it is refused.
cl_mem create_native_image(cl_context ctx, const cl_image_desc* desc, const NativeCreate& native_create,
                           cl_int* errcode) {
  auto refuse = [&](cl_int e) -> cl_mem {
    *errcode = e;
    return nullptr;
  };
  // An image over a buffer: checked natively over a stand-in buffer of the
  // same size and flags on the app's context.
  cl_mem over = desc ? desc->mem_object : nullptr;
  cl_image_desc native_desc{};
  cl_mem stand_in = nullptr;
  if (over) {
    if (!valid(over)) return refuse(CL_INVALID_IMAGE_DESCRIPTOR);
    if (over->type != CL_MEM_OBJECT_BUFFER) {
      // Images over other images (views): not supported while splitting (README, limitations).
      log_line(1, "images created from another image are not supported while splitting");
      return refuse(CL_INVALID_OPERATION);
    }
    cl_int err = CL_SUCCESS;
    // A buffer made with a host pointer flag: the stand-in uses our copy of
    // its bytes, so that the native image answers CL_MEM_FLAGS as it would
    // over the app's buffer (PoCL's inherits the buffer's host pointer
    // flags, NVIDIA's does not: create_image).
    const bool host_flags = over->flags & kHostPtrFlags;
    stand_in = real().clCreateBuffer(ctx->real, (over->flags & ~kHostPtrFlags) | (host_flags ? CL_MEM_USE_HOST_PTR : 0),
                                     over->size, host_flags ? over->store->shadow + over->origin : nullptr, &err);
    if (!stand_in) return refuse(err);
    native_desc = *desc;
    native_desc.mem_object = stand_in;
    desc = &native_desc;
  }
  cl_int err = CL_SUCCESS;
  cl_mem native = native_create(ctx->real, desc, &err);
  if (native && err == CL_SUCCESS && desc && desc->num_mip_levels > 1) {
    // Mip-mapped images (cl_khr_mipmap_image): the host copy holds level 0
    // only, so they are refused rather than moved wrong (README, limitations).
    real().clReleaseMemObject(native);
    if (stand_in) real().clReleaseMemObject(stand_in);
    log_line(1, "mip-mapped images are not supported while splitting");
    return refuse(CL_INVALID_OPERATION);
  }
  if (stand_in) real().clReleaseMemObject(stand_in);
  if (!native || err != CL_SUCCESS) return refuse(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES);
  return native;
}

// The extent of an image as the driver reports it.
struct ImageExtent {
  size_t width = 0, height = 1, depth = 1, array_size = 1;
};

// The whole image as an API region, and its host copy: over a buffer the
// buffer's host copy, with CL_MEM_USE_HOST_PTR the app's memory, else a
// copy of its own (filled from host_ptr with CL_MEM_COPY_HOST_PTR).
cl_int lay_out_host_copy(ImageStore& store, cl_mem_object_type type, const ImageExtent& extent,
                         const cl_image_desc* desc, cl_mem_flags flags, cl_mem_flags native_flags, cl_mem over,
                         void* host_ptr) {
  const size_t width = extent.width, height = extent.height, depth = extent.depth,
               array_size = extent.array_size;
  // The whole image as an API region, and the host copy's layout: rows of
  // `width` texels, `rows` rows per slice, `slices` slices (array layers).
  size_t rows = 1, slices = 1;
  switch (type) {
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: slices = array_size; store.region[1] = array_size; break;
    case CL_MEM_OBJECT_IMAGE2D: rows = height; store.region[1] = height; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
      rows = height, slices = array_size;
      store.region[1] = height, store.region[2] = array_size;
      break;
    case CL_MEM_OBJECT_IMAGE3D:
      rows = height, slices = depth;
      store.region[1] = height, store.region[2] = depth;
      break;
    default: break;
  }
  store.region[0] = width;
  const size_t tight_row = width * store.element_size;
  // The app's layout of host_ptr (pitches as given, else tight).
  const size_t app_row = desc->image_row_pitch ? desc->image_row_pitch : tight_row;
  const size_t app_slice = desc->image_slice_pitch ? desc->image_slice_pitch : app_row * rows;
  if (over) {
    // The buffer's host copy, laid out as the image over it.
    store.buffer = over;
    store.shadow = over->store->shadow + over->origin;
    store.row_pitch = app_row;
    store.slice_pitch = 0;
    if (!(flags & kAccessFlags)) store.device_flags = (store.device_flags & ~kAccessFlags) | (native_flags & kAccessFlags);
  } else if (flags & CL_MEM_USE_HOST_PTR) {
    store.shadow = static_cast<uint8_t*>(host_ptr);
    store.row_pitch = app_row;
    store.slice_pitch = app_slice;
  } else {
    store.row_pitch = tight_row;
    store.slice_pitch = tight_row * rows;
    store.owned.reset(new (std::nothrow) uint8_t[store.slice_pitch * slices]());
    if (!store.owned) return CL_OUT_OF_HOST_MEMORY;
    store.shadow = store.owned.get();
    if (flags & CL_MEM_COPY_HOST_PTR)
      for (size_t s = 0; s < slices; ++s)
        for (size_t y = 0; y < rows; ++y)
          std::memcpy(store.shadow + s * store.slice_pitch + y * store.row_pitch,
                      static_cast<const uint8_t*>(host_ptr) + s * app_slice + y * app_row, tight_row);
  }
  return CL_SUCCESS;
}

// Creates the image natively on the app's context (every check and error
// code as native), records its answers, releases it, and makes ours.
cl_mem create_image(cl_context ctx, const cl_mem_properties* properties, cl_mem_flags flags,
                    const cl_image_desc* desc, void* host_ptr,
                    cl_int* errcode_ret, const NativeCreate& native_create) {
  auto fail = [&](cl_int e) -> cl_mem {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(ctx)) return fail(CL_INVALID_CONTEXT);
  cl_mem over = desc ? desc->mem_object : nullptr;
  cl_int err = CL_SUCCESS;
  cl_mem native = create_native_image(ctx, desc, native_create, &err);
  if (!native) return fail(err);
  std::map<cl_uint, std::vector<uint8_t>> image_answers;
  for (cl_image_info what : kImageInfos)
    record(image_answers, what, [&](size_t n, void* v, size_t* r) { return real().clGetImageInfo(native, what, n, v, r); });
  cl_mem_object_type type = 0;
  real().clGetMemObjectInfo(native, CL_MEM_TYPE, sizeof type, &type, nullptr);
  cl_mem_flags native_flags = flags;
  real().clGetMemObjectInfo(native, CL_MEM_FLAGS, sizeof native_flags, &native_flags, nullptr);
  size_t mem_size = 0;
  real().clGetMemObjectInfo(native, CL_MEM_SIZE, sizeof mem_size, &mem_size, nullptr);
  auto store = std::make_shared<ImageStore>();
  store->image_answers = std::move(image_answers);
  store->format = image_info<cl_image_format>(native, CL_IMAGE_FORMAT);
  store->element_size = image_info<size_t>(native, CL_IMAGE_ELEMENT_SIZE);
  ImageExtent extent;
  extent.width = image_info<size_t>(native, CL_IMAGE_WIDTH);
  extent.height = std::max<size_t>(1, image_info<size_t>(native, CL_IMAGE_HEIGHT));
  extent.depth = std::max<size_t>(1, image_info<size_t>(native, CL_IMAGE_DEPTH));
  extent.array_size = std::max<size_t>(1, image_info<size_t>(native, CL_IMAGE_ARRAY_SIZE));
  real().clReleaseMemObject(native);

  cl_image_desc& d = store->desc;
  d = *desc;
  d.image_type = type;
  d.image_row_pitch = d.image_slice_pitch = 0;
  d.mem_object = nullptr;
  store->device_flags = flags & (kAccessFlags | CL_MEM_KERNEL_READ_AND_WRITE);
  if (!(store->device_flags & kAccessFlags)) store->device_flags |= CL_MEM_READ_WRITE;
  if (cl_int e = lay_out_host_copy(*store, type, extent, desc, flags, native_flags, over, host_ptr)) return fail(e);
  auto* m = new _cl_mem;
  m->context = ctx;
  retain(ctx);
  m->type = type;
  m->flags = native_flags;
  // Over a buffer, the native image told whether it inherits the buffer's
  // host pointer flags (its stand-in had USE_HOST_PTR for any of them).
  if (over)
    m->flags = (native_flags & ~kHostPtrFlags) | ((native_flags & CL_MEM_USE_HOST_PTR) ? over->flags & kHostPtrFlags : 0);
  m->size = mem_size;
  m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : nullptr;
  m->image = std::move(store);
  if (over) {
    m->parent = over;  // CL_MEM_ASSOCIATED_MEMOBJECT; kept alive by the image
    retain(over);
  }
  if (properties) m->properties.push_back(0);
  register_mem(m);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return m;
}

bool host_may_read(cl_mem m) { return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)); }
bool host_may_write(cl_mem m) { return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)); }

cl_int check_image(cl_command_queue q, cl_mem m) {
  if (!is_image(m)) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

// origin/region inside the image, with the coordinates its type leaves
// unused at 0 (origin) / 1 (region).
cl_int check_region(cl_mem m, const size_t* origin, const size_t* region) {
  if (!origin || !region) return CL_INVALID_VALUE;
  const ImageStore& s = *m->image;
  const cl_mem_object_type t = s.desc.image_type;
  const unsigned used = (t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER) ? 1
                        : (t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY) ? 2 : 3;
  for (unsigned i = 0; i < 3; ++i) {
    if (region[i] == 0) return CL_INVALID_VALUE;
    if (i >= used && (origin[i] != 0 || region[i] != 1)) return CL_INVALID_VALUE;
    if (origin[i] > s.region[i] || region[i] > s.region[i] - origin[i]) return CL_INVALID_VALUE;
  }
  return CL_SUCCESS;
}

// Host pitches of a read or write: row 0 or at least a row; slice (3D
// images and arrays) 0 or at least a slice.
cl_int check_pitches(cl_mem m, const size_t* region, size_t row, size_t slice) {
  const ImageStore& s = *m->image;
  if (row && row < region[0] * s.element_size) return CL_INVALID_VALUE;
  const size_t min_row = row ? row : region[0] * s.element_size;
  // The spec wants 0 for 1D and 2D images; the native runtime (PoCL 3.1)
  // ignores any value, and so does libsplit (it passes 0 on).
  if (s.transfer_slice_pitch() == 0) return CL_SUCCESS;
  const size_t rows = s.desc.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : region[1];
  if (slice && slice < min_row * rows) return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

// clEnqueueReadImage (`reading`) / clEnqueueWriteImage arguments, in the
// order the native runtime checks them.
cl_int check_host_transfer(cl_command_queue q, cl_mem m, const void* ptr, const size_t* origin,
                           const size_t* region, size_t row_pitch, size_t slice_pitch,
                           bool reading, cl_uint n, const cl_event* waits) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_image(q, m)) return err;
  if (!ptr) return CL_INVALID_VALUE;
  if (cl_int err = check_region(m, origin, region)) return err;
  if (cl_int err = check_pitches(m, region, row_pitch, slice_pitch)) return err;
  if (!(reading ? host_may_read(m) : host_may_write(m))) return CL_INVALID_OPERATION;
  return check_queue_and_waits(q, n, waits);
}


bool covers_whole(const ImageStore& s, const size_t* origin, const size_t* region) {
  if (s.buffer) return false;  // the buffer's other bytes (row padding) stay as they are
  for (unsigned i = 0; i < 3; ++i)
    if (origin[i] != 0 || region[i] != s.region[i]) return false;
  return true;
}

std::array<size_t, 3> array3(const size_t* v) { return {v[0], v[1], v[2]}; }

cl_command_queue device_queue(cl_command_queue q) { return runtime().devices[q->home].queue; }

}  // namespace

namespace api {

cl_mem clCreateImage(cl_context ctx, cl_mem_flags flags, const cl_image_format* format,
                     const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  return create_image(ctx, nullptr, flags, desc, host_ptr, errcode_ret,
                      [&](cl_context real_ctx, const cl_image_desc* checked, cl_int* err) {
                        return real().clCreateImage(real_ctx, flags, format, checked, host_ptr, err);
                      });
}

cl_mem clCreateImageWithProperties(cl_context ctx, const cl_mem_properties* properties,
                                   cl_mem_flags flags, const cl_image_format* format,
                                   const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  return create_image(ctx, properties, flags, desc, host_ptr, errcode_ret,
                      [&](cl_context real_ctx, const cl_image_desc* checked, cl_int* err) {
                        return real().clCreateImageWithProperties(real_ctx, properties, flags, format,
                                                                  checked, host_ptr, err);
                      });
}

cl_mem clCreateImage2D(cl_context ctx, cl_mem_flags flags, const cl_image_format* format, size_t width,
                       size_t height, size_t row_pitch, void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_row_pitch = row_pitch;
  return create_image(ctx, nullptr, flags, &desc, host_ptr, errcode_ret,
                      [&](cl_context real_ctx, const cl_image_desc*, cl_int* err) {
                        return real().clCreateImage2D(real_ctx, flags, format, width, height, row_pitch,
                                                      host_ptr, err);
                      });
}

cl_mem clCreateImage3D(cl_context ctx, cl_mem_flags flags, const cl_image_format* format, size_t width,
                       size_t height, size_t depth, size_t row_pitch, size_t slice_pitch,
                       void* host_ptr, cl_int* errcode_ret) {
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE3D;
  desc.image_width = width;
  desc.image_height = height;
  desc.image_depth = depth;
  desc.image_row_pitch = row_pitch;
  desc.image_slice_pitch = slice_pitch;
  return create_image(ctx, nullptr, flags, &desc, host_ptr, errcode_ret,
                      [&](cl_context real_ctx, const cl_image_desc*, cl_int* err) {
                        return real().clCreateImage3D(real_ctx, flags, format, width, height, depth,
                                                      row_pitch, slice_pitch, host_ptr, err);
                      });
}

// The formats of the app's context, as its native context lists them:
// images live only on the devices of the app's queues (devices of that
// context; libsplit's internal contexts over the same devices support the
// same formats), never on the other devices of the set.
cl_int clGetSupportedImageFormats(cl_context ctx, cl_mem_flags flags, cl_mem_object_type type,
                                  cl_uint num_entries, cl_image_format* formats, cl_uint* num_ret) {
  if (!valid(ctx)) return CL_INVALID_CONTEXT;
  return real().clGetSupportedImageFormats(ctx->real, flags, type, num_entries, formats, num_ret);
}

cl_int clGetImageInfo(cl_mem m, cl_image_info param, size_t size, void* value, size_t* size_ret) {
  if (!is_image(m)) return CL_INVALID_MEM_OBJECT;
  if (param == CL_IMAGE_BUFFER) return set_info_value(size, value, size_ret, m->image->buffer);
  const auto& image = m->image->image_answers;
  auto it = image.find(param);
  if (it == image.end()) return CL_INVALID_VALUE;
  return set_info(size, value, size_ret, it->second.data(), it->second.size());
}

cl_int clEnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t* origin,
                          const size_t* region, size_t row_pitch, size_t slice_pitch, void* ptr,
                          cl_uint n, const cl_event* waits, cl_event* ev) {
  if (cl_int err = check_host_transfer(q, m, ptr, origin, region, row_pitch, slice_pitch,
                                       true, n, waits))
    return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  auto o = array3(origin), r = array3(region);
  return enqueue(q, CL_COMMAND_READ_IMAGE, n, waits, ev, blocking, [=] {
    (void)hold;
    ImageStore& s = *m->image;
    int d = image_valid_device(s, q->home);
    if (d < 0) {
      if (cl_int err = ensure_image_device(s, q->home)) return err;
      d = int(q->home);
    }
    return real().clEnqueueReadImage(runtime().devices[unsigned(d)].queue, s.dev_image[unsigned(d)],
                                     CL_TRUE, o.data(), r.data(), row_pitch,
                                     s.transfer_slice_pitch() ? slice_pitch : 0, ptr, 0, nullptr, nullptr);
  });
}

cl_int clEnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t* origin,
                           const size_t* region, size_t row_pitch, size_t slice_pitch,
                           const void* ptr, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (cl_int err = check_host_transfer(q, m, ptr, origin, region, row_pitch, slice_pitch,
                                       false, n, waits))
    return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  auto o = array3(origin), r = array3(region);
  return enqueue(q, CL_COMMAND_WRITE_IMAGE, n, waits, ev, blocking, [=] {
    (void)hold;
    ImageStore& s = *m->image;
    cl_int err = CL_SUCCESS;
    // A write of the whole image needs none of the old contents.
    if (covers_whole(s, o.data(), r.data()) ? !device_image(s, q->home, &err)
                                            : (err = ensure_image_device(s, q->home)) != CL_SUCCESS)
      return err;
    err = real().clEnqueueWriteImage(device_queue(q), s.dev_image[q->home], CL_TRUE, o.data(), r.data(),
                                     row_pitch, s.transfer_slice_pitch() ? slice_pitch : 0, ptr, 0,
                                     nullptr, nullptr);
    if (err == CL_SUCCESS) wrote_image_device(s, q->home);
    return err;
  });
}

cl_int clEnqueueFillImage(cl_command_queue q, cl_mem m, const void* fill_color, const size_t* origin,
                          const size_t* region, cl_uint n, const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_image(q, m)) return err;
  if (!fill_color) return CL_INVALID_VALUE;
  if (cl_int err = check_region(m, origin, region)) return err;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  auto o = array3(origin), r = array3(region);
  // The colour is four 32-bit components (float, int or uint).
  std::array<uint8_t, 16> color;
  std::memcpy(color.data(), fill_color, color.size());
  return enqueue(q, CL_COMMAND_FILL_IMAGE, n, waits, ev, false, [=] {
    (void)hold;
    ImageStore& s = *m->image;
    cl_int err = CL_SUCCESS;
    if (covers_whole(s, o.data(), r.data()) ? !device_image(s, q->home, &err)
                                            : (err = ensure_image_device(s, q->home)) != CL_SUCCESS)
      return err;
    err = real().clEnqueueFillImage(device_queue(q), s.dev_image[q->home], color.data(), o.data(),
                                    r.data(), 0, nullptr, nullptr);
    if (err == CL_SUCCESS) err = real().clFinish(device_queue(q));
    if (err == CL_SUCCESS) wrote_image_device(s, q->home);
    return err;
  });
}

cl_int clEnqueueCopyImage(cl_command_queue q, cl_mem src, cl_mem dst, const size_t* src_origin,
                          const size_t* dst_origin, const size_t* region, cl_uint n,
                          const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_image(q, src)) return err;
  if (cl_int err = check_image(q, dst)) return err;
  const ImageStore &ss = *src->image, &ds = *dst->image;
  if (ss.format.image_channel_order != ds.format.image_channel_order ||
      ss.format.image_channel_data_type != ds.format.image_channel_data_type)
    return CL_IMAGE_FORMAT_MISMATCH;
  if (cl_int err = check_region(src, src_origin, region)) return err;
  if (cl_int err = check_region(dst, dst_origin, region)) return err;
  if (src == dst) {
    bool overlap = true;
    for (unsigned i = 0; i < 3; ++i)
      overlap &= src_origin[i] < dst_origin[i] + region[i] && dst_origin[i] < src_origin[i] + region[i];
    if (overlap) return CL_MEM_COPY_OVERLAP;
  }
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(src);
  hold->add(dst);
  auto so = array3(src_origin), dso = array3(dst_origin), r = array3(region);
  return enqueue(q, CL_COMMAND_COPY_IMAGE, n, waits, ev, false, [=] {
    (void)hold;
    ImageStore &s = *src->image, &d = *dst->image;
    cl_int err = ensure_image_device(s, q->home);
    if (!err) err = ensure_image_device(d, q->home);
    if (!err)
      err = real().clEnqueueCopyImage(device_queue(q), s.dev_image[q->home], d.dev_image[q->home],
                                      so.data(), dso.data(), r.data(), 0, nullptr, nullptr);
    if (!err) err = real().clFinish(device_queue(q));
    if (!err) wrote_image_device(d, q->home);
    return err;
  });
}

cl_int clEnqueueCopyImageToBuffer(cl_command_queue q, cl_mem src, cl_mem dst, const size_t* src_origin,
                                  const size_t* region, size_t dst_offset, cl_uint n,
                                  const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (cl_int err = check_image(q, src)) return err;
  if (!is_buffer(dst)) return CL_INVALID_MEM_OBJECT;
  if (dst->context != q->context) return CL_INVALID_CONTEXT;
  if (cl_int err = check_region(src, src_origin, region)) return err;
  const uint64_t bytes = uint64_t(region[0]) * region[1] * region[2] * src->image->element_size;
  if (dst_offset > dst->size || bytes > dst->size - dst_offset) return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(src);
  hold->add(dst);
  auto so = array3(src_origin), r = array3(region);
  return enqueue(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, n, waits, ev, false, [=] {
    (void)hold;
    ImageStore& s = *src->image;
    const Range range = root_range(dst, dst_offset, bytes);
    cl_int err = ensure_image_device(s, q->home);
    if (err) return err;
    cl_mem buffer = device_buffer(*dst->store, q->home, &err);
    if (!buffer) return err;
    err = real().clEnqueueCopyImageToBuffer(device_queue(q), s.dev_image[q->home], buffer, so.data(),
                                            r.data(), range.begin, 0, nullptr, nullptr);
    if (!err) err = real().clFinish(device_queue(q));
    if (!err) wrote_device(*dst->store, q->home, range);
    return err;
  });
}

cl_int clEnqueueCopyBufferToImage(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                  const size_t* dst_origin, const size_t* region, cl_uint n,
                                  const cl_event* waits, cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!is_buffer(src)) return CL_INVALID_MEM_OBJECT;
  if (src->context != q->context) return CL_INVALID_CONTEXT;
  if (cl_int err = check_image(q, dst)) return err;
  if (cl_int err = check_region(dst, dst_origin, region)) return err;
  const uint64_t bytes = uint64_t(region[0]) * region[1] * region[2] * dst->image->element_size;
  if (src_offset > src->size || bytes > src->size - src_offset) return CL_INVALID_VALUE;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  auto hold = std::make_shared<Retained>();
  hold->add(src);
  hold->add(dst);
  auto dso = array3(dst_origin), r = array3(region);
  return enqueue(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, n, waits, ev, false, [=] {
    (void)hold;
    ImageStore& d = *dst->image;
    const Range range = root_range(src, src_offset, bytes);
    cl_int err = ensure_device(*src->store, q->home, range);
    if (err) return err;
    if (covers_whole(d, dso.data(), r.data()) ? !device_image(d, q->home, &err)
                                              : (err = ensure_image_device(d, q->home)) != CL_SUCCESS)
      return err;
    err = real().clEnqueueCopyBufferToImage(device_queue(q), src->store->dev_mem[q->home],
                                            d.dev_image[q->home], range.begin, dso.data(), r.data(), 0,
                                            nullptr, nullptr);
    if (!err) err = real().clFinish(device_queue(q));
    if (!err) wrote_image_device(d, q->home);
    return err;
  });
}

void* clEnqueueMapImage(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                        const size_t* origin, const size_t* region, size_t* row_pitch,
                        size_t* slice_pitch, cl_uint n, const cl_event* waits, cl_event* ev,
                        cl_int* errcode_ret) {
  auto fail = [&](cl_int e) -> void* {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(q)) return fail(CL_INVALID_COMMAND_QUEUE);
  if (cl_int err = check_image(q, m)) return fail(err);
  if (cl_int err = check_region(m, origin, region)) return fail(err);
  ImageStore& s = *m->image;
  if (!row_pitch) return fail(CL_INVALID_VALUE);
  if (s.transfer_slice_pitch() && !slice_pitch) return fail(CL_INVALID_VALUE);
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if ((flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return fail(CL_INVALID_VALUE);
  if ((flags & CL_MAP_READ) && !host_may_read(m)) return fail(CL_INVALID_OPERATION);
  if ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && !host_may_write(m))
    return fail(CL_INVALID_OPERATION);
  if (cl_int err = check_queue_and_waits(q, n, waits)) return fail(err);
  void* ptr = s.shadow + s.host_offset(origin);
  *row_pitch = s.row_pitch;
  if (slice_pitch) *slice_pitch = s.transfer_slice_pitch();
  {
    std::lock_guard lock(m->mutex);
    m->mappings.emplace(ptr, _cl_mem::Mapping{0, 0, flags});
  }
  ++m->map_count;
  auto hold = std::make_shared<Retained>();
  hold->add(m);
  // The whole host copy is made valid (the unmap of a write makes the host
  // copy the only valid one).
  cl_int err = enqueue(q, CL_COMMAND_MAP_IMAGE, n, waits, ev, blocking,
                       [=] { return (void)hold, ensure_image_host(*m->image); });
  if (errcode_ret) *errcode_ret = err;
  return err == CL_SUCCESS ? ptr : nullptr;
}

}  // namespace api
}  // namespace libsplit

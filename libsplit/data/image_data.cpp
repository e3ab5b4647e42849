#include "image_data.h"

#include "buffer_data.h"
#include "device_kernel_args.h"
#include "real_api.h"
#include "runtime.h"

#include <string>

namespace libsplit {

namespace {
void size_state(ImageStore& s) {
  const size_t n = runtime().devices.size();
  if (s.dev_image.size() < n) s.dev_image.resize(n, nullptr);
  if (s.dev_valid.size() < n) s.dev_valid.resize(n, 0);
}

const size_t kOrigin[3] = {0, 0, 0};
}  // namespace

ImageStore::~ImageStore() {
  for (cl_mem m : dev_image) release_device_mem(m);
}

namespace {
// The buffer bytes the image covers.
Range buffer_bytes(const ImageStore& s) {
  return root_range(s.buffer, 0, s.desc.image_type == CL_MEM_OBJECT_IMAGE2D ? s.row_pitch * s.region[1]
                                                                           : s.region[0] * s.element_size);
}
}  // namespace

size_t ImageStore::host_offset(const size_t* origin) const {
  // A 1D image array's second coordinate is the array index (one "slice").
  if (desc.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
    return origin[0] * element_size + origin[1] * slice_pitch;
  return origin[0] * element_size + origin[1] * row_pitch + origin[2] * slice_pitch;
}

size_t ImageStore::transfer_slice_pitch() const {
  switch (desc.image_type) {
    case CL_MEM_OBJECT_IMAGE3D:
    case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return slice_pitch;
    default: return 0;  // the spec requires 0 for 1D and 2D images
  }
}

cl_mem device_image(ImageStore& s, unsigned device, cl_int* err) {
  size_state(s);
  *err = CL_SUCCESS;
  if (!s.dev_image[device]) {
    Runtime& rt = runtime();
    cl_image_desc desc = s.desc;
    if (s.buffer) {
      // A view of the device's copy of the buffer, pitches as the app's.
      desc.mem_object = device_arg(s.buffer, device, err);
      if (!desc.mem_object) return nullptr;
      desc.image_row_pitch = s.desc.image_type == CL_MEM_OBJECT_IMAGE2D ? s.row_pitch : 0;
    }
    s.dev_image[device] = real().clCreateImage(rt.context(rt.devices[device].slot), s.device_flags,
                                               &s.format, &desc, nullptr, err);
  }
  return s.dev_image[device];
}

int image_valid_device(const ImageStore& s, unsigned preferred) {
  if (s.buffer) {
    const BufferStore& b = *s.buffer->store;
    auto whole_on = [&](unsigned d) {
      return d < b.dev_valid.size() && d < s.dev_image.size() && s.dev_image[d] &&
             b.dev_valid[d].covers(buffer_bytes(s));
    };
    if (whole_on(preferred)) return int(preferred);
    for (unsigned d = 0; d < b.dev_valid.size(); ++d)
      if (whole_on(d)) return int(d);
    return -1;
  }
  if (preferred < s.dev_valid.size() && s.dev_valid[preferred]) return int(preferred);
  for (unsigned d = 0; d < s.dev_valid.size(); ++d)
    if (s.dev_valid[d]) return int(d);
  return -1;
}

cl_int ensure_image_host(ImageStore& s) {
  if (s.buffer) return ensure_host(*s.buffer->store, buffer_bytes(s));
  if (s.host_valid) return CL_SUCCESS;
  const int d = image_valid_device(s, 0);
  if (d < 0) {
    s.host_valid = true;  // valid nowhere (never written): the host copy's contents
    return CL_SUCCESS;
  }
  cl_int err = real().clEnqueueReadImage(runtime().devices[unsigned(d)].queue, s.dev_image[unsigned(d)],
                                         CL_TRUE, kOrigin, s.region, s.row_pitch,
                                         s.transfer_slice_pitch(), s.shadow, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) return err;
  s.host_valid = true;
  log_line(2, "  image read back from dev" + std::to_string(d));
  return CL_SUCCESS;
}

cl_int ensure_image_device(ImageStore& s, unsigned device) {
  size_state(s);
  if (s.buffer) {
    cl_int err = CL_SUCCESS;
    if (!device_image(s, device, &err)) return err;
    return ensure_device(*s.buffer->store, device, buffer_bytes(s));
  }
  if (s.dev_valid[device]) return CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  cl_mem img = device_image(s, device, &err);
  if (!img) return err;
  if ((err = ensure_image_host(s))) return err;
  // Blocking: the host copy may be rewritten by the next host command.
  err = real().clEnqueueWriteImage(runtime().devices[device].queue, img, CL_TRUE, kOrigin, s.region,
                                   s.row_pitch, s.transfer_slice_pitch(), s.shadow, 0, nullptr,
                                   nullptr);
  if (err != CL_SUCCESS) return err;
  s.dev_valid[device] = 1;
  log_line(2, "  image written to dev" + std::to_string(device));
  return CL_SUCCESS;
}

void wrote_image_host(ImageStore& s) {
  if (s.buffer) return wrote_host(*s.buffer->store, buffer_bytes(s));
  s.host_valid = true;
  for (char& v : s.dev_valid) v = 0;
}

void wrote_image_device(ImageStore& s, unsigned device) {
  size_state(s);
  if (s.buffer) return wrote_device(*s.buffer->store, device, buffer_bytes(s));
  s.host_valid = false;
  for (unsigned d = 0; d < s.dev_valid.size(); ++d) s.dev_valid[d] = d == device;
}

}  // namespace libsplit

// The data of one app image: a host copy plus one real image per device,
// made lazily in that device's internal context, and where the contents are
// valid. Images move whole: valid where last written (the host copy or one
// device), copied to another place when it needs them (read where valid,
// written there; device to device through the host copy). An image over a
// buffer (CL_MEM_OBJECT_IMAGE1D_BUFFER, 2D images from buffers) has no data
// of its own: its copies are views of the buffer's (buffer_data.h), and
// validity is the buffer's. Called with the runtime's exec lock held.
#pragma once

#include "objects.h"

#include <CL/cl.h>

#include <map>
#include <memory>
#include <vector>

namespace libsplit {

struct ImageStore {
  cl_image_format format{};
  cl_image_desc desc{};            // the app's, without host pitches or buffer
  cl_mem_flags device_flags = 0;   // access flags of the device images
  size_t element_size = 0;
  size_t region[3] = {1, 1, 1};    // the whole image as an API region
  size_t row_pitch = 0, slice_pitch = 0;  // of the host copy
  uint8_t* shadow = nullptr;       // USE_HOST_PTR: the app's memory; over a buffer: its host copy
  cl_mem buffer = nullptr;         // the app buffer it is made over (the image's parent), or null
  std::unique_ptr<uint8_t[]> owned;
  bool host_valid = true;
  std::vector<cl_mem> dev_image;   // per runtime device
  std::vector<char> dev_valid;
  // What the native image answered to clGetImageInfo at creation.
  std::map<cl_uint, std::vector<uint8_t>> image_answers;
  ~ImageStore();

  // Byte offset of texel (x, y, z) of an API origin in the host copy.
  size_t host_offset(const size_t* origin) const;
  // The pitches a transfer of the whole host copy passes to the driver.
  size_t transfer_slice_pitch() const;
};

// The real image on `device` (created on first use; contents not moved).
cl_mem device_image(ImageStore& s, unsigned device, cl_int* err);
// Makes the host copy / the device's image valid (whole image).
cl_int ensure_image_host(ImageStore& s);
cl_int ensure_image_device(ImageStore& s, unsigned device);
// A runtime device holding valid contents, preferring `preferred`; -1: the host only.
int image_valid_device(const ImageStore& s, unsigned preferred);
// The image was written there: every other copy is stale.
void wrote_image_host(ImageStore& s);
void wrote_image_device(ImageStore& s, unsigned device);

}  // namespace libsplit

// Contexts, device info answered for the whole device set, extension lookup.
#include "api.h"
#include "clock.h"
#include "objects.h"
#include "pinned_staging.h"
#include "real_api.h"
#include "runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

namespace libsplit {

namespace {

cl_context wrap_context(cl_context real_ctx, const cl_context_properties* props) {
  auto* c = new _cl_context;
  c->real = real_ctx;
  cl_uint n = 0;
  real().clGetContextInfo(real_ctx, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, nullptr);
  c->devices.resize(n);
  real().clGetContextInfo(real_ctx, CL_CONTEXT_DEVICES, n * sizeof(cl_device_id), c->devices.data(),
                          nullptr);
  for (const cl_context_properties* p = props; p && *p; p += 2) {
    c->properties.push_back(p[0]);
    c->properties.push_back(p[1]);
  }
  if (props) c->properties.push_back(0);
  return c;
}

// The runtime's internal contexts are made with the app's first context,
// sharing it where the devices are the same (runtime.h). libsplit's own
// builds and transfers must not reach an app's error callback, and context
// properties other than the platform are the app's business: such contexts
// are not shared.
cl_context attach_and_wrap(cl_context r, const cl_context_properties* props, bool has_notify,
                           cl_ulong open_ns, cl_int* errcode_ret) {
  bool adoptable = !has_notify;
  for (const cl_context_properties* p = props; p && *p; p += 2)
    adoptable = adoptable && p[0] == CL_CONTEXT_PLATFORM;
  if (cl_int err = runtime().attach_contexts(r, adoptable, open_ns, pin_staging_beside)) {
    real().clReleaseContext(r);
    if (errcode_ret) *errcode_ret = err;
    return nullptr;
  }
  return wrap_context(r, props);
}

// Device-side enqueue (the one feature libsplit refuses while splitting: the
// UNSUP rows of cl_api_table.def) is not advertised, so that apps and test
// suites do not pick it. Images, samplers, pipes, SVM and native kernels are
// answered as the device itself answers: libsplit runs them on the device of
// the app's queue (README, "Device-bound features").
bool refused_feature_name(std::string_view name) {
  return name.find("device_enqueue") != std::string_view::npos;
}

// The answer for `param` with the refused features removed; nullopt for
// parameters that do not describe them.
std::optional<cl_int> answer_without_refused_features(cl_device_id device, cl_device_info param,
                                                      size_t size, void* value, size_t* size_ret) {
  auto native_size = [&](size_t* n) { return real().clGetDeviceInfo(device, param, 0, nullptr, n); };
  switch (param) {
    case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: {
      size_t n = 0;
      if (cl_int err = native_size(&n)) return err;
      return set_info_value(size, value, size_ret, cl_device_device_enqueue_capabilities{0});
    }
    case CL_DEVICE_EXTENSIONS: {
      size_t n = 0;
      if (cl_int err = native_size(&n)) return err;
      std::string all(n, '\0');
      real().clGetDeviceInfo(device, param, n, all.data(), nullptr);
      if (!refused_feature_name(all)) return std::nullopt;  // the native string, untouched
      std::string kept, word;
      std::istringstream words(all.c_str());
      while (words >> word)
        if (!refused_feature_name(word)) kept += (kept.empty() ? "" : " ") + word;
      return set_info(size, value, size_ret, kept.c_str(), kept.size() + 1);
    }
    case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    case CL_DEVICE_OPENCL_C_FEATURES: {
      size_t n = 0;
      if (cl_int err = native_size(&n)) return err;
      std::vector<cl_name_version> all(n / sizeof(cl_name_version)), kept;
      real().clGetDeviceInfo(device, param, all.size() * sizeof(cl_name_version), all.data(), nullptr);
      for (const cl_name_version& nv : all)
        if (!refused_feature_name(nv.name)) kept.push_back(nv);
      return set_info(size, value, size_ret, kept.data(), kept.size() * sizeof(cl_name_version));
    }
    default: return std::nullopt;
  }
}

}  // namespace

namespace api {

cl_context clCreateContext(const cl_context_properties* properties, cl_uint num_devices,
                           const cl_device_id* devices,
                           void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                           void* user_data, cl_int* errcode_ret) {
  // The native context validates the arguments and gives native errors.
  cl_int err = CL_SUCCESS;
  const cl_ulong t0 = now_ns();
  cl_context r = real().clCreateContext(properties, num_devices, devices, pfn_notify, user_data, &err);
  const cl_ulong open_ns = now_ns() - t0;
  if (errcode_ret) *errcode_ret = err;
  // A failed creation is no context, whatever pointer came with the error
  // (PoCL can hand back a half-made one that aborts when released).
  if (!r || err != CL_SUCCESS) return nullptr;
  return attach_and_wrap(r, properties, pfn_notify != nullptr, open_ns, errcode_ret);
}

cl_context clCreateContextFromType(const cl_context_properties* properties,
                                   cl_device_type device_type,
                                   void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t,
                                                                 void*),
                                   void* user_data, cl_int* errcode_ret) {
  cl_int err = CL_SUCCESS;
  const cl_ulong t0 = now_ns();
  cl_context r = real().clCreateContextFromType(properties, device_type, pfn_notify, user_data, &err);
  const cl_ulong open_ns = now_ns() - t0;
  if (errcode_ret) *errcode_ret = err;
  if (!r || err != CL_SUCCESS) return nullptr;
  return attach_and_wrap(r, properties, pfn_notify != nullptr, open_ns, errcode_ret);
}

cl_int clRetainContext(cl_context c) {
  if (!valid(c)) return CL_INVALID_CONTEXT;
  retain(c);
  return CL_SUCCESS;
}

cl_int clReleaseContext(cl_context c) {
  if (!valid(c)) return CL_INVALID_CONTEXT;
  release(c);
  return CL_SUCCESS;
}

cl_int clGetContextInfo(cl_context c, cl_context_info param, size_t size, void* value,
                        size_t* size_ret) {
  if (!valid(c)) return CL_INVALID_CONTEXT;
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(c));
    case CL_CONTEXT_NUM_DEVICES:
      return set_info_value(size, value, size_ret, static_cast<cl_uint>(c->devices.size()));
    case CL_CONTEXT_DEVICES:
      return set_info(size, value, size_ret, c->devices.data(),
                      c->devices.size() * sizeof(cl_device_id));
    case CL_CONTEXT_PROPERTIES:
      return set_info(size, value, size_ret, c->properties.data(),
                      c->properties.size() * sizeof(cl_context_properties));
    default: return real().clGetContextInfo(c->real, param, size, value, size_ret);
  }
}

cl_int clSetContextDestructorCallback(cl_context c, void(CL_CALLBACK* fn)(cl_context, void*),
                                      void* user) {
  if (!valid(c)) return CL_INVALID_CONTEXT;
  if (!fn) return CL_INVALID_VALUE;
  std::lock_guard lock(c->mutex);
  c->destructor_callbacks.emplace_back(fn, user);
  return CL_SUCCESS;
}

cl_int clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void* value,
                       size_t* size_ret) {
  Runtime& rt = runtime();
  if (rt.device_index(device) >= 0)
    if (auto answer = answer_without_refused_features(device, param, size, value, size_ret))
      return *answer;
  cl_int err = real().clGetDeviceInfo(device, param, size, value, size_ret);
  if (err != CL_SUCCESS || !value || rt.device_index(device) < 0) return err;
  // Sizing limits: the most every device of the set honours, so launches the
  // app sizes for "its" device fit every device.
  auto lower = [&](auto pick) {
    using T = decltype(pick(rt.devices[0]));
    if (size < sizeof(T)) return;
    T v;
    std::memcpy(&v, value, sizeof v);
    for (auto& d : rt.devices) v = std::min(v, pick(d));
    std::memcpy(value, &v, sizeof v);
  };
  switch (param) {
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: lower([](const Device& d) { return d.max_work_group_size; }); break;
    case CL_DEVICE_LOCAL_MEM_SIZE: lower([](const Device& d) { return d.local_mem; }); break;
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: lower([](const Device& d) { return d.max_alloc; }); break;
    case CL_DEVICE_GLOBAL_MEM_SIZE: lower([](const Device& d) { return d.global_mem; }); break;
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: lower([](const Device& d) { return d.max_constant; }); break;
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      size_t dims = std::min<size_t>(3, size / sizeof(size_t));
      auto* v = static_cast<size_t*>(value);
      for (size_t i = 0; i < dims; ++i)
        for (auto& d : rt.devices) v[i] = std::min(v[i], d.max_work_item_sizes[i]);
      break;
    }
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: {
      if (size < sizeof(cl_uint)) break;
      cl_uint v;
      std::memcpy(&v, value, sizeof v);
      for (auto& d : rt.devices) v = std::max(v, d.base_addr_align);
      std::memcpy(value, &v, sizeof v);
      break;
    }
    default: break;
  }
  return err;
}

// Our own exported entry point of that name (core or the table's); the ICD
// loader's own query (it takes no OpenCL object) from the loader; else null.
void* clGetExtensionFunctionAddress(const char* name) {
  if (!name) return nullptr;
  if (std::strcmp(name, "clGetICDLoaderInfoOCLICD") == 0)
    return real().clGetExtensionFunctionAddress(name);
  static const char* const ours[] = {
#define CL_API(kind, ret, fn, params, args) #fn,
#include "cl_api_table.def"
#undef CL_API
  };
  for (const char* o : ours)
    if (std::strcmp(o, name) == 0) return dlsym(RTLD_DEFAULT, name);
  return nullptr;
}

void* clGetExtensionFunctionAddressForPlatform(cl_platform_id, const char* name) {
  // A platform's functions: the loader's own query is not one of them.
  if (name && std::strcmp(name, "clGetICDLoaderInfoOCLICD") == 0) return nullptr;
  return api::clGetExtensionFunctionAddress(name);
}

}  // namespace api
}  // namespace libsplit

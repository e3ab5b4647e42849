// Programs and kernels. The app's program is built natively on the app's own
// context (errors, logs and binaries answer like native); the programs that
// execute are built per platform on libsplit's contexts at the first launch
// (program_prep.h).
#include "api.h"
#include "app_binaries.h"
#include "cc_client.h"
#include "objects.h"
#include "program_prep.h"
#include "program_source.h"
#include "real_api.h"
#include "runtime.h"

#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>

namespace libsplit {

namespace {

// Binaries of compiled objects, libraries and linked executables that the
// app obtained from libsplit in this process, by content: what they were
// compiled from, so that a program the app creates from one again (the
// serialize / reload pattern) can still be rebuilt on libsplit's devices.
struct KnownBinary {
  std::vector<CompileUnit> units;
  bool library = false;
};

std::mutex g_known_mutex;
std::map<std::pair<uint64_t, size_t>, KnownBinary>& known_binaries() {
  static auto* map = new std::map<std::pair<uint64_t, size_t>, KnownBinary>;
  return *map;
}

std::pair<uint64_t, size_t> binary_key(const unsigned char* data, size_t n) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return {h, n};
}

std::optional<KnownBinary> known_binary(const unsigned char* data, size_t n) {
  std::lock_guard lock(g_known_mutex);
  auto it = known_binaries().find(binary_key(data, n));
  if (it == known_binaries().end()) return std::nullopt;
  return it->second;
}

// After CL_PROGRAM_BINARIES answered into `ptrs` (`size` bytes of pointers):
// the compile units behind each binary, for this process (objects and
// libraries reloaded and linked; binary_origins.h keeps executables' sources
// across processes).
void remember_units_of_binaries(cl_program p, unsigned char** ptrs, size_t size) {
  if (!p->units_known || p->units.empty()) return;
  size_t count = size / sizeof(unsigned char*);
  std::vector<size_t> sizes(count, 0);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t),
                              sizes.data(), nullptr) != CL_SUCCESS)
    return;
  std::lock_guard lock(g_known_mutex);
  for (size_t i = 0; i < count; ++i)
    if (ptrs[i] && sizes[i])
      known_binaries()[binary_key(ptrs[i], sizes[i])] = KnownBinary{p->units, p->library};
}

void CL_CALLBACK ignore_release(cl_program, void*) {}

cl_program wrap_program(cl_context ctx, cl_program native) {
  auto* p = new _cl_program;
  p->context = ctx;
  retain(ctx);
  p->native = native;
  return p;
}

cl_kernel wrap_kernel(cl_program p, cl_kernel native) {
  auto* k = new _cl_kernel;
  k->program = p;
  retain(p);
  k->native = native;
  size_t n = 0;
  real().clGetKernelInfo(native, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &n);
  k->name.resize(n);
  real().clGetKernelInfo(native, CL_KERNEL_FUNCTION_NAME, n, k->name.data(), nullptr);
  while (!k->name.empty() && k->name.back() == '\0') k->name.pop_back();
  real().clGetKernelInfo(native, CL_KERNEL_NUM_ARGS, sizeof k->num_args, &k->num_args, nullptr);
  k->args.resize(k->num_args);
  k->address.resize(k->num_args, 0);
  k->const_pointee.resize(k->num_args, false);
  k->access.resize(k->num_args, CL_KERNEL_ARG_ACCESS_NONE);
  k->sampler_arg.resize(k->num_args, false);
  k->image_arg.resize(k->num_args, false);
  for (cl_uint i = 0; i < k->num_args; ++i) {
    cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
    if (real().clGetKernelArgInfo(native, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access,
                                  nullptr) == CL_SUCCESS)
      k->access[i] = access;
    size_t type_size = 0;
    if (real().clGetKernelArgInfo(native, i, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &type_size) == CL_SUCCESS) {
      std::string type(type_size, '\0');
      real().clGetKernelArgInfo(native, i, CL_KERNEL_ARG_TYPE_NAME, type_size, type.data(), nullptr);
      k->sampler_arg[i] = type.rfind("sampler_t", 0) == 0;
      k->image_arg[i] = type.find("image") != std::string::npos;
    }
    cl_kernel_arg_address_qualifier q = 0;
    if (real().clGetKernelArgInfo(native, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q,
                                  nullptr) == CL_SUCCESS)
      k->address[i] = q;
    cl_kernel_arg_type_qualifier tq = 0;
    if (real().clGetKernelArgInfo(native, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq,
                                  nullptr) == CL_SUCCESS)
      k->const_pointee[i] = (tq & CL_KERNEL_ARG_TYPE_CONST) || q == CL_KERNEL_ARG_ADDRESS_CONSTANT;
  }
  ++p->kernels_attached;
  return k;
}

}  // namespace

namespace api {

cl_program clCreateProgramWithSource(cl_context ctx, cl_uint count, const char** strings,
                                     const size_t* lengths, cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
  cl_program native = real().clCreateProgramWithSource(ctx->real, count, strings, lengths, errcode_ret);
  if (!native) return nullptr;
  cl_program p = wrap_program(ctx, native);
  p->from_source = true;
  for (cl_uint i = 0; i < count; ++i)
    p->app_source += (lengths && lengths[i]) ? std::string(strings[i], lengths[i]) : std::string(strings[i]);
  p->source = p->app_source;
  return p;
}

cl_program clCreateProgramWithBinary(cl_context ctx, cl_uint num_devices, const cl_device_id* devices,
                                     const size_t* lengths, const unsigned char** binaries,
                                     cl_int* binary_status, cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
  cl_program native = real().clCreateProgramWithBinary(ctx->real, num_devices, devices, lengths,
                                                       binaries, binary_status, errcode_ret);
  if (!native) return nullptr;
  cl_program p = wrap_program(ctx, native);
  for (cl_uint i = 0; i < num_devices; ++i) {
    p->binary_devices.push_back(devices[i]);
    p->binaries.emplace_back(binaries[i], binaries[i] + lengths[i]);
  }
  // An object or library libsplit handed out earlier in this process: its
  // units are known, so linking it can be rebuilt on libsplit's devices.
  for (auto& b : p->binaries)
    if (auto known = known_binary(b.data(), b.size())) {
      p->units = known->units;
      p->units_known = true;
      p->library = known->library;
      break;
    }
  return p;
}

cl_program clCreateProgramWithIL(cl_context ctx, const void* il, size_t length, cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
  cl_program native = real().clCreateProgramWithIL(ctx->real, il, length, errcode_ret);
  if (!native) return nullptr;
  cl_program p = wrap_program(ctx, native);
  p->il.assign(static_cast<const unsigned char*>(il), static_cast<const unsigned char*>(il) + length);
  return p;
}

cl_int clRetainProgram(cl_program p) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  retain(p);
  return CL_SUCCESS;
}

cl_int clReleaseProgram(cl_program p) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  release(p);
  return CL_SUCCESS;
}

cl_int clBuildProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                      const char* options, void(CL_CALLBACK* notify)(cl_program, void*),
                      void* user_data) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  if (!notify && user_data) return CL_INVALID_VALUE;
  cl_int err = real().clBuildProgram(p->native, num_devices, devices, options, nullptr, nullptr);
  if (err == CL_SUCCESS) {
    std::lock_guard exec(runtime().exec_mutex);
    p->options = options ? options : "";
    if (devices) p->built_devices.assign(devices, devices + num_devices);
    else p->built_devices = p->context->devices;
    // The -I directories exist now; they may not at the next rebuild.
    if (p->from_source) p->source = inline_includes(p->app_source, p->options, {});
    // libsplit-cc and the per-platform builds start now, off the app's path.
    start_preparation(p);
  }
  if (notify) notify(p, user_data);
  return err;
}

cl_int clSetProgramReleaseCallback(cl_program p, void(CL_CALLBACK* fn)(cl_program, void*), void* user) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  if (!fn) return CL_INVALID_VALUE;
  // Drivers without program-scope destructors refuse it (PoCL 3.1:
  // CL_INVALID_OPERATION, as the 3.0 spec says); answer as the driver does.
  if (cl_int err = real().clSetProgramReleaseCallback(p->native, ignore_release, nullptr)) return err;
  p->release_callbacks.emplace_back(fn, user);
  return CL_SUCCESS;
}

cl_int clGetProgramInfo(cl_program p, cl_program_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(p));
    case CL_PROGRAM_CONTEXT: return set_info_value(size, value, size_ret, p->context);
    case CL_PROGRAM_BINARIES: {
      cl_int err = real().clGetProgramInfo(p->native, param, size, value, size_ret);
      if (err == CL_SUCCESS && value) {
        remember_binaries(p, static_cast<const unsigned char* const*>(value), size / sizeof(void*));
        remember_units_of_binaries(p, static_cast<unsigned char**>(value), size);
      }
      return err;
    }
    default: return real().clGetProgramInfo(p->native, param, size, value, size_ret);
  }
}

cl_int clGetProgramBuildInfo(cl_program p, cl_device_id device, cl_program_build_info param,
                             size_t size, void* value, size_t* size_ret) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  return real().clGetProgramBuildInfo(p->native, device, param, size, value, size_ret);
}

cl_kernel clCreateKernel(cl_program p, const char* name, cl_int* errcode_ret) {
  if (!valid(p)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_PROGRAM;
    return nullptr;
  }
  cl_kernel native = real().clCreateKernel(p->native, name, errcode_ret);
  if (!native) return nullptr;
  return wrap_kernel(p, native);
}

cl_int clCreateKernelsInProgram(cl_program p, cl_uint num_kernels, cl_kernel* kernels,
                                cl_uint* num_ret) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  std::vector<cl_kernel> natives(kernels ? num_kernels : 0);
  cl_uint n = 0;
  cl_int err = real().clCreateKernelsInProgram(p->native, num_kernels,
                                               kernels ? natives.data() : nullptr, &n);
  if (err != CL_SUCCESS) return err;
  if (num_ret) *num_ret = n;
  if (kernels)
    for (cl_uint i = 0; i < n && i < num_kernels; ++i) kernels[i] = wrap_kernel(p, natives[i]);
  return CL_SUCCESS;
}

cl_kernel clCloneKernel(cl_kernel source, cl_int* errcode_ret) {
  if (!valid(source)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_KERNEL;
    return nullptr;
  }
  cl_kernel native = real().clCloneKernel(source->native, errcode_ret);
  if (!native) return nullptr;
  // The native clone carries the exec info (clSetKernelExecInfo forwards it).
  cl_kernel k = wrap_kernel(source->program, native);
  std::lock_guard lock(source->mutex);
  k->args = source->args;
  k->exec_info = source->exec_info;
  return k;
}

cl_int clRetainKernel(cl_kernel k) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  retain(k);
  return CL_SUCCESS;
}

cl_int clReleaseKernel(cl_kernel k) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  release(k);
  return CL_SUCCESS;
}

cl_int clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  if (index >= k->num_args) return CL_INVALID_ARG_INDEX;
  cl_kernel_arg_address_qualifier aq = k->address[index];
  bool buffer_arg = aq == CL_KERNEL_ARG_ADDRESS_GLOBAL || aq == CL_KERNEL_ARG_ADDRESS_CONSTANT;
  if (!aq && value && size == sizeof(cl_mem)) buffer_arg = is_live_mem(*static_cast<void* const*>(value));
  ArgValue a;
  // A sampler argument: by its type, or (no argument info) by its value.
  const bool sampler_arg = k->sampler_arg[index] ||
                           (!aq && value && size == sizeof(cl_sampler) &&
                            is_live_sampler(*static_cast<void* const*>(value)));
  if (sampler_arg && !buffer_arg) {
    if (size != sizeof(cl_sampler)) return CL_INVALID_ARG_SIZE;
    if (!value) return real().clSetKernelArg(k->native, index, size, nullptr);  // the native code
    cl_sampler sampler = *static_cast<const cl_sampler*>(value);
    if (!valid(sampler)) return CL_INVALID_SAMPLER;
    if (cl_int err = real().clSetKernelArg(k->native, index, size, &sampler->native)) return err;
    a.kind = ArgValue::Kind::Sampler;
    a.sampler = sampler;  // not retained, like buffers
  } else if (buffer_arg) {
    if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
    // A null value is a null buffer, but no image: the native code.
    if (!value && k->image_arg[index]) return real().clSetKernelArg(k->native, index, size, nullptr);
    cl_mem m = value ? *static_cast<const cl_mem*>(value) : nullptr;
    if (m && !valid(m)) return CL_INVALID_MEM_OBJECT;
    // The native kernel checks index and size with a null buffer, but an
    // image argument takes no null (NVIDIA: CL_INVALID_MEM_OBJECT, the CTS's
    // kernel_arg_changes): an image of ours is taken as the native kernel
    // takes any image, on an image argument or where the driver gives no
    // argument info (NVIDIA without -cl-kernel-arg-info); anything else
    // still gets the native check.
    cl_mem none = nullptr;
    const bool image_for_image = m && m->image && (k->image_arg[index] || !aq);
    if (!image_for_image)
      if (cl_int err = real().clSetKernelArg(k->native, index, size, &none)) return err;
    a.kind = ArgValue::Kind::Mem;
    a.mem = m;  // not retained (objects.h)
  } else {
    if (cl_int err = real().clSetKernelArg(k->native, index, size, value)) return err;
    if (!value) {
      a.kind = ArgValue::Kind::Local;
      a.local_size = size;
    } else {
      a.kind = ArgValue::Kind::Bytes;
      a.bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
    }
  }
  std::lock_guard lock(k->mutex);
  k->args[index] = std::move(a);
  return CL_SUCCESS;
}

cl_int clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info param, size_t size, const void* value) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  if (cl_int err = real().clSetKernelExecInfo(k->native, param, size, value)) return err;
  // Replayed on the device kernel of each launch (launch_whole.cpp).
  std::lock_guard lock(k->mutex);
  std::vector<uint8_t> bytes;
  if (value) bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
  for (auto& [p, b] : k->exec_info)
    if (p == param) {
      b = std::move(bytes);
      return CL_SUCCESS;
    }
  k->exec_info.emplace_back(param, std::move(bytes));
  return CL_SUCCESS;
}

cl_int clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  switch (param) {
    case CL_KERNEL_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(k));
    case CL_KERNEL_CONTEXT: return set_info_value(size, value, size_ret, k->program->context);
    case CL_KERNEL_PROGRAM: return set_info_value(size, value, size_ret, k->program);
    default: return real().clGetKernelInfo(k->native, param, size, value, size_ret);
  }
}

cl_int clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param, size_t size,
                          void* value, size_t* size_ret) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  return real().clGetKernelArgInfo(k->native, index, param, size, value, size_ret);
}

cl_int clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id device, cl_kernel_work_group_info param,
                                size_t size, void* value, size_t* size_ret) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  cl_int err = real().clGetKernelWorkGroupInfo(k->native, device, param, size, value, size_ret);
  if (err == CL_SUCCESS && value && param == CL_KERNEL_WORK_GROUP_SIZE && size >= sizeof(size_t)) {
    size_t v;
    std::memcpy(&v, value, sizeof v);
    v = std::min(v, runtime().min_max_work_group_size());
    std::memcpy(value, &v, sizeof v);
  }
  return err;
}

cl_int clGetKernelSubGroupInfo(cl_kernel k, cl_device_id device, cl_kernel_sub_group_info param,
                               size_t in_size, const void* in_value, size_t size, void* value,
                               size_t* size_ret) {
  if (!valid(k)) return CL_INVALID_KERNEL;
  return real().clGetKernelSubGroupInfo(k->native, device, param, in_size, in_value, size, value,
                                        size_ret);
}

}  // namespace api
}  // namespace libsplit

// ---- separate compilation ----
// The native compile and link give the app native results. For execution,
// each compile records a unit (its source with every header inlined, and its
// options); a link gathers the units of its inputs. advance_preparation builds a
// linked executable on libsplit's devices as one source (program_source.h)
// or, when that does not build, by compiling and linking the units there.
namespace libsplit {
namespace api {

cl_int clCompileProgram(cl_program p, cl_uint num_devices, const cl_device_id* devices,
                        const char* options, cl_uint num_headers, const cl_program* headers,
                        const char** header_names, void(CL_CALLBACK* notify)(cl_program, void*),
                        void* user_data) {
  if (!valid(p)) return CL_INVALID_PROGRAM;
  if (!notify && user_data) return CL_INVALID_VALUE;
  if ((num_headers == 0) != (headers == nullptr) || (num_headers && !header_names))
    return CL_INVALID_VALUE;
  std::vector<cl_program> native_headers;
  std::vector<EmbeddedHeader> named;
  for (cl_uint i = 0; i < num_headers; ++i) {
    if (!valid(headers[i])) return CL_INVALID_PROGRAM;
    native_headers.push_back(headers[i]->native);
    named.push_back({header_names[i] ? header_names[i] : "", headers[i]->app_source});
  }
  cl_int err = real().clCompileProgram(p->native, num_devices, devices, options, num_headers,
                                       num_headers ? native_headers.data() : nullptr,
                                       header_names, nullptr, nullptr);
  if (err == CL_SUCCESS) {
    std::string opts = options ? options : "";
    p->units = {CompileUnit{inline_includes(p->app_source, opts, named), opts}};
    p->units_known = p->from_source;
    p->library = false;
  }
  if (notify) notify(p, user_data);
  return err;
}

cl_program clLinkProgram(cl_context ctx, cl_uint num_devices, const cl_device_id* devices,
                         const char* options, cl_uint num_inputs, const cl_program* inputs,
                         void(CL_CALLBACK* notify)(cl_program, void*), void* user_data,
                         cl_int* errcode_ret) {
  auto fail = [&](cl_int e) -> cl_program {
    if (errcode_ret) *errcode_ret = e;
    return nullptr;
  };
  if (!valid(ctx)) return fail(CL_INVALID_CONTEXT);
  if (num_inputs == 0 || !inputs) return fail(CL_INVALID_VALUE);
  if (!notify && user_data) return fail(CL_INVALID_VALUE);
  std::vector<cl_program> natives;
  for (cl_uint i = 0; i < num_inputs; ++i) {
    if (!valid(inputs[i])) return fail(CL_INVALID_PROGRAM);
    natives.push_back(inputs[i]->native);
  }
  cl_int err = CL_SUCCESS;
  cl_program native = real().clLinkProgram(ctx->real, num_devices, devices, options, num_inputs,
                                           natives.data(), nullptr, nullptr, &err);
  if (errcode_ret) *errcode_ret = err;
  if (!native) return nullptr;
  cl_program p = wrap_program(ctx, native);
  p->link_options = options ? options : "";
  p->library = p->link_options.find("-create-library") != std::string::npos;
  p->units_known = true;
  for (cl_uint i = 0; i < num_inputs; ++i) {
    p->units_known &= inputs[i]->units_known;
    p->units.insert(p->units.end(), inputs[i]->units.begin(), inputs[i]->units.end());
  }
  if (!p->units_known) p->units.clear();
  if (err == CL_SUCCESS && !p->library) {
    std::lock_guard exec(runtime().exec_mutex);
    if (p->units_known) {
      p->options = link_options_for_build(p->link_options);
      p->source = single_source(p->units, &p->options);
      p->from_source = true;
    }
    start_preparation(p);
  }
  if (notify) notify(p, user_data);
  return p;
}

}  // namespace api
}  // namespace libsplit

// Samplers: made natively on the app's context (checks, error codes,
// queries, the native kernel's argument check) and, per internal context,
// when a launch needs one there.
#include "api.h"
#include "real_api.h"
#include "runtime.h"
#include "sampler_data.h"

namespace libsplit {

namespace {

cl_sampler wrap_sampler(cl_context ctx, cl_sampler native) {
  auto* s = new _cl_sampler;
  s->context = ctx;
  retain(ctx);
  s->native = native;
  register_sampler(s);
  return s;
}

}  // namespace

cl_sampler device_sampler(cl_sampler s, unsigned device, cl_int* err) {
  Runtime& rt = runtime();
  const unsigned slot = rt.devices[device].slot;
  if (s->per_slot.size() < rt.contexts.size()) s->per_slot.resize(rt.contexts.size(), nullptr);
  *err = CL_SUCCESS;
  if (!s->per_slot[slot]) {
    if (s->with_properties) {
      s->per_slot[slot] = real().clCreateSamplerWithProperties(
          rt.context(slot), s->properties.empty() ? nullptr : s->properties.data(), err);
    } else {
      cl_bool normalized = CL_FALSE;
      cl_addressing_mode addressing = 0;
      cl_filter_mode filter = 0;
      real().clGetSamplerInfo(s->native, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, nullptr);
      real().clGetSamplerInfo(s->native, CL_SAMPLER_ADDRESSING_MODE, sizeof addressing, &addressing, nullptr);
      real().clGetSamplerInfo(s->native, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, nullptr);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      s->per_slot[slot] = real().clCreateSampler(rt.context(slot), normalized, addressing, filter, err);
#pragma GCC diagnostic pop
    }
  }
  return s->per_slot[slot];
}

namespace api {

cl_sampler clCreateSampler(cl_context ctx, cl_bool normalized, cl_addressing_mode addressing,
                           cl_filter_mode filter, cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  cl_sampler native = real().clCreateSampler(ctx->real, normalized, addressing, filter, errcode_ret);
#pragma GCC diagnostic pop
  return native ? wrap_sampler(ctx, native) : nullptr;
}

cl_sampler clCreateSamplerWithProperties(cl_context ctx, const cl_sampler_properties* properties,
                                         cl_int* errcode_ret) {
  if (!valid(ctx)) {
    if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
    return nullptr;
  }
  cl_sampler native = real().clCreateSamplerWithProperties(ctx->real, properties, errcode_ret);
  if (!native) return nullptr;
  cl_sampler s = wrap_sampler(ctx, native);
  s->with_properties = true;
  for (const cl_sampler_properties* p = properties; p && *p; p += 2) {
    s->properties.push_back(p[0]);
    s->properties.push_back(p[1]);
  }
  if (properties) s->properties.push_back(0);
  return s;
}

cl_int clRetainSampler(cl_sampler s) {
  if (!valid(s)) return CL_INVALID_SAMPLER;
  retain(s);
  return CL_SUCCESS;
}

cl_int clReleaseSampler(cl_sampler s) {
  if (!valid(s)) return CL_INVALID_SAMPLER;
  release(s);
  return CL_SUCCESS;
}

cl_int clGetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size, void* value, size_t* size_ret) {
  if (!valid(s)) return CL_INVALID_SAMPLER;
  switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: return set_info_value(size, value, size_ret, ref_count(s));
    case CL_SAMPLER_CONTEXT: return set_info_value(size, value, size_ret, s->context);
    default: return real().clGetSamplerInfo(s->native, param, size, value, size_ret);
  }
}

}  // namespace api
}  // namespace libsplit

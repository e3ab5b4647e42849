#include "real_api.h"

#include <dlfcn.h>

namespace libsplit {

namespace {
RealApi load() {
  RealApi api;
#define CL_API(kind, ret, name, params, args) \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(RTLD_NEXT, #name));
#include "cl_api_table.def"
#undef CL_API
  // Without the app linking libOpenCL (e.g. a tool that dlopens us first),
  // RTLD_NEXT finds nothing: fall back to loading the loader ourselves.
  if (!api.clGetPlatformIDs) {
    if (void* h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL)) {
#define CL_API(kind, ret, name, params, args) \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(h, #name));
#include "cl_api_table.def"
#undef CL_API
    }
  }
  return api;
}
}  // namespace

const RealApi& real() {
  static const RealApi api = load();
  return api;
}

cl_int native_status(cl_event e, cl_int unknown) {
  cl_int status = unknown;
  real().clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
  return status;
}

}  // namespace libsplit

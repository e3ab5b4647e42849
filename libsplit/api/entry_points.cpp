// The exported OpenCL entry points, all generated from cl_api_table.def:
//   PASS  rows forward to the loader;
//   OWN   rows forward when not splitting, else call libsplit::api::<name>;
//   UNSUP rows forward when not splitting, else fail with CL_INVALID_OPERATION.
#include "api.h"
#include "real_api.h"
#include "runtime.h"

#include <type_traits>

namespace libsplit {
namespace {

// The failure of an unsupported entry point: CL_INVALID_OPERATION as the
// return value or through the trailing errcode_ret, null handles.
template <class R>
struct Unsupported {
  const char* name;
  template <class... A>
  R operator()(A... args) const {
    log_line(1, std::string(name) + " is not supported while splitting (CL_INVALID_OPERATION)");
    if constexpr (std::is_same_v<R, cl_int>) {
      ((void)args, ...);
      return CL_INVALID_OPERATION;
    } else {
      cl_int* errcode = nullptr;
      ((set_errcode(&errcode, args)), ...);
      if (errcode) *errcode = CL_INVALID_OPERATION;
      if constexpr (!std::is_void_v<R>) return R{};
    }
  }
  template <class T>
  static void set_errcode(cl_int** out, T v) {
    if constexpr (std::is_same_v<T, cl_int*>) *out = v;
  }
};

}  // namespace
}  // namespace libsplit

#define LIBSPLIT_EXPORT __attribute__((visibility("default")))

extern "C" {
#define CL_API(kind, ret, name, params, args) LIBSPLIT_WRAP_##kind(ret, name, params, args)
#define LIBSPLIT_WRAP_PASS(ret, name, params, args) \
  LIBSPLIT_EXPORT ret CL_API_CALL name params { return libsplit::real().name args; }
#define LIBSPLIT_WRAP_OWN(ret, name, params, args)                \
  LIBSPLIT_EXPORT ret CL_API_CALL name params {                   \
    if (!libsplit::splitting()) return libsplit::real().name args; \
    return libsplit::api::name args;                              \
  }
#define LIBSPLIT_WRAP_UNSUP(ret, name, params, args)              \
  LIBSPLIT_EXPORT ret CL_API_CALL name params {                   \
    if (!libsplit::splitting()) return libsplit::real().name args; \
    return libsplit::Unsupported<ret>{#name} args;                \
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "cl_api_table.def"
#pragma GCC diagnostic pop
#undef CL_API
}

// libsplit's implementations of the OWN rows of cl_api_table.def, called by
// the exported wrappers (entry_points.cpp) while splitting.
#pragma once

#include <CL/cl.h>

namespace libsplit::api {
#define CL_API(kind, ret, name, params, args) LIBSPLIT_DECLARE_##kind(ret, name, params)
#define LIBSPLIT_DECLARE_OWN(ret, name, params) ret name params;
#define LIBSPLIT_DECLARE_PASS(ret, name, params)
#define LIBSPLIT_DECLARE_UNSUP(ret, name, params)
#include "cl_api_table.def"
#undef CL_API
#undef LIBSPLIT_DECLARE_OWN
#undef LIBSPLIT_DECLARE_PASS
#undef LIBSPLIT_DECLARE_UNSUP
}  // namespace libsplit::api

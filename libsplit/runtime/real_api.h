// The real OpenCL entry points (the ICD loader's), looked up with
// dlsym(RTLD_NEXT) from the same table that generates our exported wrappers.
#pragma once

#include <CL/cl.h>

namespace libsplit {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct RealApi {
#define CL_API(kind, ret, name, params, args) ret(CL_API_CALL* name) params = nullptr;
#include "cl_api_table.def"
#undef CL_API
};
#pragma GCC diagnostic pop

// Resolved once, on first use. Missing entries stay null (old loaders).
const RealApi& real();

// Nanoseconds this thread has spent in driver calls; counted only at
// LIBSPLIT_LOG=3 (the entry points are then timed), else stays 0.
cl_ulong& driver_call_ns();

// A driver event's execution status (CL_QUEUED .. CL_COMPLETE, or its
// negative error); `unknown` where the query itself fails.
cl_int native_status(cl_event e, cl_int unknown = CL_COMPLETE);

}  // namespace libsplit

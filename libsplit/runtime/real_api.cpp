#include "real_api.h"

#include "clock.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

namespace libsplit {

namespace {

// ---- Injected driver failures (testing only) --------------------------------
// LIBSPLIT_INJECT_FAULTS entries fail=NAME@N:CODE (and fail=NAME@N+:CODE, that
// call and every later one) replace the table's pointer for NAME with a
// wrapper that counts the calls and fails the chosen ones, so that every call
// libsplit makes to the driver (the app's forwarded calls and libsplit's own:
// sub-launches, staging, internal contexts, builds) can be made to fail.
// count_real_calls wraps every entry point and prints the counts at exit (the
// fault-injection test learns from it which calls a run makes). Entry points
// not named keep the driver's pointer: nothing is paid when the control is
// unset, read once when the table is resolved.

enum EntryPoint : unsigned {
#define CL_API(kind, ret, name, params, args) entry_##name,
#include "cl_api_table.def"
#undef CL_API
  entry_point_count
};

constexpr const char* kEntryNames[] = {
#define CL_API(kind, ret, name, params, args) #name,
#include "cl_api_table.def"
#undef CL_API
};

struct FaultPlan {
  std::atomic<unsigned long> calls{0};
  unsigned long first_failing = 0;  // 0: none fails (only counted)
  bool and_later = false;
  cl_int code = CL_SUCCESS;
};

FaultPlan fault_plans[entry_point_count];
RealApi driver_api;  // the driver's entry points behind the fault wrappers

// Counts this call of `entry`; true when it is to fail.
bool call_fails(EntryPoint entry) {
  FaultPlan& plan = fault_plans[entry];
  const unsigned long call = plan.calls.fetch_add(1, std::memory_order_relaxed) + 1;
  if (plan.first_failing == 0 || call < plan.first_failing || (call > plan.first_failing && !plan.and_later))
    return false;
  fprintf(stderr, "libsplit: injected fault: %s call %lu returns %d\n", kEntryNames[entry], call, plan.code);
  return true;
}

template <class F>
struct ReturnOf;
template <class R, class... A>
struct ReturnOf<R(CL_API_CALL*)(A...)> {
  using type = R;
};

// A failed driver call: the code as the return value, or a null handle with
// the code in the trailing errcode_ret (create-style calls and maps).
template <class R>
struct FailedCall {
  cl_int code;
  template <class... A>
  R operator()(A... args) const {
    if constexpr (std::is_same_v<R, cl_int>) {
      ((void)args, ...);
      return code;
    } else {
      cl_int* errcode = nullptr;
      ((set_errcode(&errcode, args)), ...);
      if (errcode) *errcode = code;
      if constexpr (!std::is_void_v<R>) return R{};
    }
  }
  template <class T>
  static void set_errcode(cl_int** out, T v) {
    if constexpr (std::is_same_v<T, cl_int*>) *out = v;
  }
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// Entry points returning nothing (clSVMFree) cannot report a failure: only
// counted.
#define CL_API(kind, ret, name, params, args)                                                 \
  ret CL_API_CALL failing_##name params {                                                     \
    using Result = ReturnOf<decltype(RealApi::name)>::type;                                   \
    if constexpr (std::is_void_v<Result>) {                                                   \
      fault_plans[entry_##name].calls.fetch_add(1, std::memory_order_relaxed);                \
    } else if (call_fails(entry_##name)) {                                                    \
      return FailedCall<Result>{fault_plans[entry_##name].code} args;                         \
    }                                                                                         \
    return driver_api.name args;                                                              \
  }
#include "cl_api_table.def"
#undef CL_API

void print_real_call_counts() {
  std::string line = "libsplit: real calls:";
  for (unsigned e = 0; e < entry_point_count; ++e)
    if (unsigned long n = fault_plans[e].calls.load()) line += " " + std::string(kEntryNames[e]) + "=" + std::to_string(n);
  fprintf(stderr, "%s\n", line.c_str());
}

// Parses "NAME@N:CODE" or "NAME@N+:CODE" into its plan; false if malformed.
bool plan_failure(std::string_view spec) {
  const size_t at = spec.find('@'), colon = spec.find(':');
  if (at == std::string_view::npos || colon == std::string_view::npos || colon < at) return false;
  const std::string_view name = spec.substr(0, at);
  std::string call(spec.substr(at + 1, colon - at - 1));
  const bool and_later = !call.empty() && call.back() == '+';
  if (and_later) call.pop_back();
  const std::string code(spec.substr(colon + 1));
  char* end = nullptr;
  const unsigned long n = strtoul(call.c_str(), &end, 10);
  if (n == 0 || *end) return false;
  const long c = strtol(code.c_str(), &end, 10);
  if (code.empty() || *end) return false;
  for (unsigned e = 0; e < entry_point_count; ++e) {
    if (name != kEntryNames[e]) continue;
    fault_plans[e].first_failing = n;
    fault_plans[e].and_later = and_later;
    fault_plans[e].code = cl_int(c);
    return true;
  }
  return false;
}

// Reads LIBSPLIT_INJECT_FAULTS and puts the fault wrappers in front of the
// entry points it names (all of them for count_real_calls).
void install_fault_wrappers(RealApi& api) {
  const char* env = getenv("LIBSPLIT_INJECT_FAULTS");
  if (!env || !*env) return;
  bool wrap[entry_point_count] = {};
  bool any = false;
  bool count_all = false;
  std::string_view list = env;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view entry = list.substr(0, comma);
    if (entry == "count_real_calls") {
      count_all = any = true;
    } else if (entry.substr(0, 5) == "fail=") {
      if (!plan_failure(entry.substr(5))) {
        fprintf(stderr, "libsplit: LIBSPLIT_INJECT_FAULTS: ignoring malformed %.*s\n", int(entry.size()),
                entry.data());
      } else {
        any = true;
        for (unsigned e = 0; e < entry_point_count; ++e) wrap[e] = wrap[e] || fault_plans[e].first_failing != 0;
      }
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  if (!any) return;
  driver_api = api;
#define CL_API(kind, ret, name, params, args) \
  if ((count_all || wrap[entry_##name]) && api.name) api.name = failing_##name;
#include "cl_api_table.def"
#undef CL_API
  if (count_all) atexit(print_real_call_counts);
}
#pragma GCC diagnostic pop

// ---- Driver time per thread (LIBSPLIT_LOG=3) ---------------------------------
// Every entry point timed into the calling thread's driver_call_ns(), so that
// LOG=3 can tell a launch's host time in the drivers from libsplit's own.
RealApi timed_next;  // what the timing wrappers call

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define CL_API(kind, ret, name, params, args)                  \
  ret CL_API_CALL timed_##name params {                        \
    const cl_ulong start = now_ns();                         \
    struct Add {                                               \
      cl_ulong start;                                          \
      ~Add() { driver_call_ns() += now_ns() - start; }       \
    } add{start};                                              \
    return timed_next.name args;                               \
  }
#include "cl_api_table.def"
#undef CL_API

void install_timing_wrappers(RealApi& api) {
  const char* log = getenv("LIBSPLIT_LOG");
  if (!log || atoi(log) < 3) return;
  timed_next = api;
#define CL_API(kind, ret, name, params, args) \
  if (api.name) api.name = timed_##name;
#include "cl_api_table.def"
#undef CL_API
}
#pragma GCC diagnostic pop

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
  install_fault_wrappers(api);
  install_timing_wrappers(api);
  return api;
}
}  // namespace

cl_ulong& driver_call_ns() {
  thread_local cl_ulong spent = 0;
  return spent;
}

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

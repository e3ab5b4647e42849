#include "build_client.h"

#include "child_process.h"
#include "device_binaries.h"
#include "device_binary_file.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>

namespace libsplit {

namespace {

// How long a helper waits before building under LIBSPLIT_INJECT_FAULTS=
// slow_build (a build still running when the app exits).
constexpr int kSlowBuildMs = 30000;

// Index of x in what `list` fills in (clGetDeviceIDs), -1 when absent: the
// helper, loading the same driver, sees the same order.
template <typename T, typename List>
long index_in(T x, List list) {
  cl_uint n = 0;
  if (list(0, nullptr, &n) != CL_SUCCESS || n == 0) return -1;
  std::vector<T> all(n);
  if (list(n, all.data(), nullptr) != CL_SUCCESS) return -1;
  auto it = std::find(all.begin(), all.end(), x);
  return it == all.end() ? -1 : long(it - all.begin());
}

}  // namespace

HelperBuild build_in_helper(unsigned slot, const std::vector<cl_device_id>& ids, const std::string& source,
                            const std::string& options) {
  Runtime& rt = runtime();
  HelperBuild out;
  if (!rt.controls.helper_builds) return out;
  // Only drivers that compile on the host's cores (PoCL: LLVM inside the app's
  // process, seconds for a large program; the exit crash was there). A GPU
  // driver builds in process: on 4 H100, NVIDIA built a partition-ready
  // program in 34-70 ms there, while a helper, starting its own driver on
  // every GPU, was still running after 1.2 s, killed at each short run's
  // exit so its binaries never reached the cache.
  for (const Device& d : rt.devices)
    if (d.slot == slot && d.is_gpu) return out;
  static const std::string helper = find_helper("libsplit-build");
  if (helper.empty()) return out;
  cl_platform_id platform = rt.platforms[slot];
  const std::string driver = driver_library(platform);
  if (driver.empty()) return out;
  std::vector<std::string> words = {helper, "--driver", driver};
  for (cl_device_id id : ids) {
    const long d = index_in<cl_device_id>(id, [&](cl_uint n, cl_device_id* v, cl_uint* got) {
      return real().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, v, got);
    });
    if (d < 0) return out;
    words.push_back("--device");
    words.push_back(std::to_string(d));
  }
  HelperDir dir("libsplit-build");
  if (!dir.ok() || !dir.write("input.cl", source)) return out;
  words.insert(words.end(), {"--dir", device_binaries_dir(), "--options", options});
  if (fault_injected("slow_build")) words.insert(words.end(), {"--delay-ms", std::to_string(kSlowBuildMs)});
  words.push_back(dir.file("input.cl"));
  // The driver is named by its library, loaded for sure through
  // OCL_ICD_FILENAMES: an ICD loader on the GPU node cut the app's
  // OCL_ICD_FILENAMES at its first ':' in place, so a helper given the app's
  // environment as it is saw PoCL only.
  const ChildExit done = run_helper(std::move(words), dir.file("build.log"), {"OCL_ICD_FILENAMES=" + driver});
  if (done.exited && done.status == 0) out.result = HelperBuild::Stored;
  else if (done.exited && done.status == 3) out.result = HelperBuild::Failed;
  out.log = dir.read("build.log").value_or("");
  if (out.result == HelperBuild::Unavailable && !out.log.empty())
    log_line(2, "preparation: libsplit-build did not store binaries (" +
                    out.log.substr(0, rt.controls.log >= 3 ? 4000 : 300) + ")");
  return out;
}

}  // namespace libsplit

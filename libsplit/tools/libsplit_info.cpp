// libsplit-info: the devices libsplit would split over and why, and (with
// --controls) the environment controls.
#include "controls.h"
#include "device_set.h"
#include "discovery.h"
#include "scheduler.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
const char* env(const char* n) { return std::getenv(n); }

// What the shim asks its scheduler at start (runtime.cpp), on the same facts.
bool scheduler_may_use_several(const libsplit::Controls& c,
                               const std::vector<libsplit::DiscoveredDevice>& found,
                               const std::vector<unsigned>& chosen) {
  std::vector<libsplit::sched::DeviceInfo> infos;
  for (unsigned i : chosen) {
    libsplit::sched::DeviceInfo info;
    info.name = found[i].desc.name;
    info.is_gpu = found[i].desc.gpu;
    info.on_host_cores = found[i].place == libsplit::DevicePlace::host_cores;
    info.remote = found[i].place == libsplit::DevicePlace::remote;
    infos.push_back(info);
  }
  auto scheduler = libsplit::sched::make_scheduler(c.scheduler, infos);
  return !scheduler || scheduler->may_use_several_devices();
}
}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--controls")) {
      fputs(libsplit::controls_documentation().c_str(), stdout);
      return 0;
    }
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      puts("usage: libsplit-info [--controls]\n"
           "  Lists the OpenCL devices and whether libsplit (with the current LIBSPLIT_*\n"
           "  environment) would split kernels over them; --controls documents the variables.");
      return 0;
    }
  }
  std::string warnings;
  libsplit::Controls c = libsplit::read_controls(env, &warnings);
  fputs(warnings.c_str(), stderr);
  auto found = libsplit::discover_devices({clGetPlatformIDs, clGetDeviceIDs, clGetDeviceInfo});
  std::vector<libsplit::DeviceDesc> descs;
  for (auto& f : found) descs.push_back(f.desc);
  auto sel = libsplit::select_devices(c.devices, descs);
  printf("LIBSPLIT_DEVICES=%s\n", c.devices.empty() ? "(unset: every device)" : c.devices.c_str());
  for (size_t i = 0; i < descs.size(); ++i)
    printf("  %u:%u  %-50s %s (%s)\n", descs[i].platform, descs[i].index, descs[i].name.c_str(),
           sel.reasons[i].c_str(), libsplit::place_name(found[i].place));
  if (!sel.error.empty()) printf("error: %s\n", sel.error.c_str());
  if (c.disable)
    puts("libsplit is disabled (LIBSPLIT_DISABLE=1): every call is forwarded.");
  else if (sel.chosen.size() < 2)
    puts("fewer than 2 devices chosen: libsplit forwards every call (pass-through).");
  else if (!scheduler_may_use_several(c, found, sel.chosen))
    puts("every chosen device runs on the host's cores, which they share: the default scheduler "
         "would only ever use the app's device, so libsplit forwards every call (pass-through; "
         "LIBSPLIT_HOST_DEVICES=all counts them as separate hardware).");
  else
    printf("libsplit splits launches over %zu devices.\n", sel.chosen.size());
  return 0;
}

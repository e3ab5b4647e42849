#include "executables.h"

#include "lazy_slots.h"
#include "program_prep.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>

namespace libsplit {

using Mode = _cl_program::Mode;

bool program_launchable(cl_program p, unsigned home) {
  advance_preparation(p, home);
  return p->mode != Mode::Failed;
}

namespace {

// The kernel of k on runtime device `device`, created on first use: on the
// original source's program of its slot (`original`), else on the adopted
// one, a lazy slot's built (or waited for) when missing.
cl_kernel kernel_of(cl_kernel k, unsigned device, bool original, cl_int* err) {
  Runtime& rt = runtime();
  std::vector<cl_kernel>& kernels = original ? k->per_device_original : k->per_device;
  const std::vector<cl_program>& programs = original ? k->program->originals : k->program->per_platform;
  if (kernels.size() < rt.devices.size()) kernels.resize(rt.devices.size(), nullptr);
  if (!kernels[device]) {
    unsigned slot = rt.devices[device].slot;
    cl_program p = slot < programs.size() ? programs[slot] : nullptr;
    if (!p && !original) p = take_lazy_slot(k->program, slot, /*wait=*/true);
    if (!p) {
      *err = CL_INVALID_PROGRAM_EXECUTABLE;
      return nullptr;
    }
    kernels[device] = real().clCreateKernel(p, k->name.c_str(), err);
    if (!kernels[device]) return nullptr;
  }
  *err = CL_SUCCESS;
  return kernels[device];
}

}  // namespace

bool device_ready(cl_kernel k, unsigned device) {
  if (!runtime().device_open(device)) return false;
  cl_program p = k->program;
  const unsigned slot = runtime().devices[device].slot;
  if (p->mode == Mode::Preparing) return false;
  if (slot < p->per_platform.size() && p->per_platform[slot]) return true;
  return take_lazy_slot(p, slot, /*wait=*/false) != nullptr;
}

bool devices_ready(cl_kernel k, const std::vector<unsigned>& devices) {
  cl_program p = k->program;
  bool ready = p->mode != Mode::Preparing;
  Runtime& rt = runtime();
  for (unsigned d : devices) {
    if (!rt.device_open(d)) {
      if (!rt.controls.sync_prepare) return false;  // its context is still opening
      rt.wait_open();
      if (!rt.device_open(d)) return false;
    }
    const unsigned slot = rt.devices[d].slot;
    if (slot < p->per_platform.size() && p->per_platform[slot]) continue;
    // Not waited for (unless preparation is synchronous): the 4-H100 node
    // stalled 0.7-1.2 s at the first split of most apps, building PoCL's
    // program for a CPU the split did not even use.
    if (!take_lazy_slot(p, slot, /*wait=*/rt.controls.sync_prepare, /*wanted=*/true)) ready = false;
  }
  return ready;
}

void build_where_opening(cl_kernel k, unsigned device) {
  Runtime& rt = runtime();
  const unsigned slot = rt.devices[device].slot;
  if (rt.controls.sync_prepare || rt.opening_slot.load() != int(slot) || k->program->mode == Mode::Preparing) return;
  build_once_open(k->program, slot);
}

cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err) {
  return kernel_of(k, device, k->program->mode == Mode::Preparing, err);
}

cl_kernel whole_kernel(cl_kernel k, unsigned device, cl_int* err, bool* original) {
  cl_program p = k->program;
  const unsigned slot = runtime().devices[device].slot;
  bool have_original;
  {
    std::lock_guard lock(p->prep_mutex);
    have_original = slot < p->originals.size() && p->originals[slot];
  }
  *original = have_original;
  if (have_original) {
    if (cl_kernel dk = kernel_of(k, device, true, err)) return dk;
    *original = false;
  }
  return device_kernel(k, device, err);
}

cl_int check_executable(cl_kernel k, unsigned device) {
  Runtime& rt = runtime();
  cl_program p = k->program;
  if (p->mode == Mode::Unprepared || p->mode == Mode::Preparing) {
    std::lock_guard exec(rt.exec_mutex);
    advance_preparation(p, device);
  }
  unsigned slot = rt.devices[device].slot;
  // Still preparing: advance_preparation returned because the original source
  // is built for this device's platform.
  if (p->mode == Mode::Preparing) return CL_SUCCESS;
  cl_program built = p->mode != Mode::Failed && slot < p->per_platform.size() ? p->per_platform[slot] : nullptr;
  bool has_device = built != nullptr;
  if (built && p->mode == Mode::Whole) {
    // Programs from binaries exist only for the devices that had one.
    cl_uint n = 0;
    real().clGetProgramInfo(built, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr);
    std::vector<cl_device_id> ids(n);
    real().clGetProgramInfo(built, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), ids.data(), nullptr);
    has_device = std::find(ids.begin(), ids.end(), rt.devices[device].id) != ids.end();
  }
  if (has_device) return CL_SUCCESS;
  log_line(1, "launch of " + k->name + " refused (CL_INVALID_PROGRAM_EXECUTABLE): no executable on " +
                  rt.devices[device].name + (p->mode_reason.empty() ? "" : ": " + p->mode_reason));
  return CL_INVALID_PROGRAM_EXECUTABLE;
}

}  // namespace libsplit

#include "slot_builds.h"

#include "background_jobs.h"
#include "build_client.h"
#include "device_binaries.h"
#include "program_source.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>

namespace libsplit {

// The partition-ready kernels are created on the app's thread at their first
// launch. On 2 H100 the first warm run of 6 of 23 bench apps stalled one
// iteration for 1.0-1.5 s at the launch that adopted the partition-ready
// program, and no later run did (NVIDIA finishing the program's load, then
// cached by its compute cache). Creating the kernels once here, in the
// background, is meant to move that work off the app's path.
void load_kernels(cl_program prog) {
  cl_uint n = 0;
  if (real().clCreateKernelsInProgram(prog, 0, nullptr, &n) != CL_SUCCESS || n == 0) return;
  std::vector<cl_kernel> kernels(n);
  if (real().clCreateKernelsInProgram(prog, n, kernels.data(), nullptr) != CL_SUCCESS) return;
  for (cl_kernel k : kernels) real().clReleaseKernel(k);
}

namespace {

std::string build_log(cl_program prog, cl_device_id id) {
  size_t n = 0;
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log.substr(0, 300);
}

// The platform slots, those holding the app's own devices first (a program
// still preparing runs there).
std::vector<unsigned> slot_order(cl_program p) {
  Runtime& rt = runtime();
  std::vector<unsigned> order;
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0 &&
        std::find(order.begin(), order.end(), rt.devices[d].slot) == order.end())
      order.push_back(rt.devices[d].slot);
  for (unsigned s = 0; s < rt.platforms.size(); ++s)
    if (std::find(order.begin(), order.end(), s) == order.end()) order.push_back(s);
  return order;
}

bool slot_has_device_on(unsigned s, DevicePlace place) {
  const Runtime& rt = runtime();
  for (const auto& d : rt.devices)
    if (d.slot == s && d.place == place) return true;
  return false;
}

// Whether the app's own source, built on slot `s`, is worth storing as
// device binaries. Reading a CPU driver's binaries makes it compile every
// kernel of the program for every device (PoCL: 6-43 s for each of
// ViennaCL's programs on 2 cores with a cold PoCL cache, where the app,
// natively, compiled only the kernels it launched: 5 s in all), and the
// app's first launches wait for its originals. The driver's own cache makes
// the next run's build of that source quick. Partition-ready programs are
// stored everywhere: a helper's binaries are how the app's process receives
// its build, and the next run's split wants them at once.
bool store_app_source(unsigned s) { return !slot_has_device_on(s, DevicePlace::host_cores); }

}  // namespace

std::vector<cl_device_id> slot_devices(unsigned slot) {
  std::vector<cl_device_id> ids;
  for (auto& d : runtime().devices)
    if (d.slot == slot) ids.push_back(d.id);
  return ids;
}

bool built_for(cl_program p, const std::vector<cl_device_id>& ids) {
  for (cl_device_id id : ids)
    if (std::find(p->built_devices.begin(), p->built_devices.end(), id) == p->built_devices.end())
      return false;
  return !ids.empty();
}

std::vector<bool> app_slots(cl_program p) {
  Runtime& rt = runtime();
  std::vector<bool> app(rt.platforms.size(), false);
  for (cl_device_id id : p->context->devices)
    if (int d = rt.device_index(id); d >= 0) app[rt.devices[d].slot] = true;
  return app;
}


cl_program build_slot(cl_program p, unsigned s, const std::string* source, const std::string& options,
                      const Binaries* binaries, std::string* why, bool app_source) {
  Runtime& rt = runtime();
  std::vector<cl_device_id> ids = slot_devices(s);
  cl_int err = CL_SUCCESS;
  cl_program prog = nullptr;
  std::string key;
  const cl_ulong slot_start = now_ns();
  if (source) {
    key = device_binary_key(*source, options, ids);
    if (cl_program cached = program_from_device_binaries(s, ids, key, options)) {
      log_line(2, "preparation: platform slot " + std::to_string(s) + " from cached binaries in " +
                      std::to_string((now_ns() - slot_start) / 1000000) + " ms");
      return cached;
    }
    // Not for PoCL-Remote devices: killing a helper at the app's exit in the
    // middle of its build crashed the server (pocld v6.0 in
    // BuildOrLinkProgram), and its own connection costs more than the build.
    if (in_background_build() && !slot_has_device_on(s, DevicePlace::remote)) {
      const HelperBuild helper = build_in_helper(s, ids, *source, options);
      if (helper.result == HelperBuild::Failed) {
        const int d = rt.device_index(ids[0]);
        *why = "build failed on " + (d >= 0 ? rt.devices[d].name : std::string("a device")) + ": " + helper.log;
        return nullptr;
      }
      if (helper.result == HelperBuild::Stored)
        if (cl_program built = program_from_device_binaries(s, ids, key, options)) {
          log_line(2, "preparation: platform slot " + std::to_string(s) + " built in " +
                          std::to_string((now_ns() - slot_start) / 1000000) + " ms (libsplit-build)");
          return built;
        }
      // The app ended meanwhile: no driver build starts now.
      if (app_exiting()) {
        *why = "the app ended";
        return nullptr;
      }
    }
    const char* text = source->c_str();
    prog = real().clCreateProgramWithSource(rt.context(s), 1, &text, nullptr, &err);
  } else if (binaries) {
    // Binaries only exist for the devices they were made for.
    std::vector<cl_device_id> have;
    std::vector<size_t> lengths;
    std::vector<const unsigned char*> bins;
    for (size_t i = 0; i < binaries->devices.size(); ++i)
      for (cl_device_id id : ids)
        if (id == binaries->devices[i]) {
          have.push_back(id);
          lengths.push_back(binaries->data[i].size());
          bins.push_back(binaries->data[i].data());
        }
    ids = have;
    if (!ids.empty())
      prog = real().clCreateProgramWithBinary(rt.context(s), static_cast<cl_uint>(ids.size()),
                                              ids.data(), lengths.data(), bins.data(), nullptr, &err);
  } else if (!p->il.empty()) {
    prog = real().clCreateProgramWithIL(rt.context(s), p->il.data(), p->il.size(), &err);
  }
  if (!prog) return nullptr;
  err = real().clBuildProgram(prog, static_cast<cl_uint>(ids.size()), ids.data(), options.c_str(),
                              nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const int d = rt.device_index(ids[0]);
    *why = "build failed on " + (d >= 0 ? rt.devices[d].name : std::string("a device")) + ": " +
           build_log(prog, ids[0]);
    real().clReleaseProgram(prog);
    return nullptr;
  }
  log_line(2, "preparation: platform slot " + std::to_string(s) + " built in " +
                  std::to_string((now_ns() - slot_start) / 1000000) + " ms");
  if (source && (!app_source || store_app_source(s))) store_device_binaries(key, prog, ids.size());
  return prog;
}

Built build_per_slot(cl_program p, const std::string* source, const std::string& options,
                     const Binaries* binaries, const std::function<bool(unsigned, cl_program)>& built,
                     const std::vector<cl_program>* ready, bool app_slots_only, bool app_source) {
  Runtime& rt = runtime();
  Built out;
  out.programs.assign(rt.platforms.size(), nullptr);
  std::vector<bool> app_slot = app_slots(p);
  for (unsigned s : slot_order(p)) {
    if (app_slots_only && !app_slot[s]) continue;
    if (app_exiting()) {
      out.all = false;
      out.why = "the app ended";
      break;
    }
    // A ready build the driver refuses to retain is built again.
    if (ready && s < ready->size() && (*ready)[s] && real().clRetainProgram((*ready)[s]) == CL_SUCCESS) {
      out.programs[s] = (*ready)[s];
      continue;
    }
    out.programs[s] = build_slot(p, s, source, options, binaries, &out.why, app_source);
    if (!out.programs[s]) {
      out.all = false;
      continue;
    }
    if (built && built(s, out.programs[s])) out.programs[s] = nullptr;
  }
  return out;
}

Built link_per_slot(cl_program p) {
  Runtime& rt = runtime();
  Built out;
  out.programs.assign(rt.platforms.size(), nullptr);
  const std::string link_options = link_options_for_build(p->link_options);
  for (unsigned s = 0; s < rt.platforms.size(); ++s) {
    std::vector<cl_device_id> ids = slot_devices(s);
    std::vector<cl_program> objects;
    bool ok = true;
    for (const CompileUnit& unit : p->units) {
      cl_int err = CL_SUCCESS;
      const char* text = unit.source.c_str();
      cl_program obj = real().clCreateProgramWithSource(rt.context(s), 1, &text, nullptr, &err);
      if (!obj) {
        ok = false;
        break;
      }
      objects.push_back(obj);
      err = real().clCompileProgram(obj, static_cast<cl_uint>(ids.size()), ids.data(),
                                    unit.options.c_str(), 0, nullptr, nullptr, nullptr, nullptr);
      if (err != CL_SUCCESS) {
        out.why = "compile failed on " + rt.devices[0].name + ": " + build_log(obj, ids[0]);
        ok = false;
        break;
      }
    }
    cl_program linked = nullptr;
    if (ok) {
      cl_int err = CL_SUCCESS;
      linked = real().clLinkProgram(rt.context(s), static_cast<cl_uint>(ids.size()), ids.data(),
                                    link_options.c_str(), static_cast<cl_uint>(objects.size()),
                                    objects.data(), nullptr, nullptr, &err);
      if (linked && err != CL_SUCCESS) {
        out.why = "link failed: " + build_log(linked, ids[0]);
        real().clReleaseProgram(linked);
        linked = nullptr;
      } else if (!linked) {
        out.why = "link failed (" + std::to_string(err) + ")";
      }
    }
    for (cl_program obj : objects) real().clReleaseProgram(obj);
    if (!linked) {
      out.all = false;
      continue;
    }
    out.programs[s] = linked;
  }
  return out;
}

void release_all(std::vector<cl_program>& programs) {
  for (cl_program pp : programs)
    if (pp) real().clReleaseProgram(pp);
  programs.clear();
}

}  // namespace libsplit

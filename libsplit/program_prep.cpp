#include "program_prep.h"

#include "cc_client.h"
#include "program_source.h"
#include "real_api.h"
#include "runtime.h"

#include <algorithm>

namespace libsplit {

namespace {

using Mode = _cl_program::Mode;

std::string build_log(cl_program prog, cl_device_id id) {
  size_t n = 0;
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  real().clGetProgramBuildInfo(prog, id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log.substr(0, 300);
}

// Builds `source` (or the binaries / IL) on every platform slot; false when a
// slot fails.
bool build_everywhere(cl_program p, const std::string* source, std::string* why) {
  Runtime& rt = runtime();
  p->per_platform.assign(rt.platforms.size(), nullptr);
  bool all = true;
  for (unsigned s = 0; s < rt.platforms.size(); ++s) {
    std::vector<cl_device_id> ids;
    for (auto& d : rt.devices)
      if (d.slot == s) ids.push_back(d.id);
    cl_int err = CL_SUCCESS;
    cl_program prog = nullptr;
    if (source) {
      const char* text = source->c_str();
      prog = real().clCreateProgramWithSource(rt.contexts[s], 1, &text, nullptr, &err);
    } else if (!p->il.empty()) {
      prog = real().clCreateProgramWithIL(rt.contexts[s], p->il.data(), p->il.size(), &err);
    } else {
      // Binaries only exist for the devices the app gave them for.
      std::vector<cl_device_id> have;
      std::vector<size_t> lengths;
      std::vector<const unsigned char*> bins;
      for (size_t i = 0; i < p->binary_devices.size(); ++i)
        for (cl_device_id id : ids)
          if (id == p->binary_devices[i]) {
            have.push_back(id);
            lengths.push_back(p->binaries[i].size());
            bins.push_back(p->binaries[i].data());
          }
      ids = have;
      if (!ids.empty())
        prog = real().clCreateProgramWithBinary(rt.contexts[s], static_cast<cl_uint>(ids.size()),
                                                ids.data(), lengths.data(), bins.data(), nullptr,
                                                &err);
    }
    if (!prog) {
      all = false;
      continue;
    }
    err = real().clBuildProgram(prog, static_cast<cl_uint>(ids.size()), ids.data(),
                                p->options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      *why = "build failed on " + rt.devices[0].name + ": " + build_log(prog, ids[0]);
      real().clReleaseProgram(prog);
      all = false;
      continue;
    }
    p->per_platform[s] = prog;
  }
  return all;
}

void drop_programs(cl_program p) {
  for (cl_program pp : p->per_platform)
    if (pp) real().clReleaseProgram(pp);
  p->per_platform.clear();
}

bool any_built(cl_program p) {
  for (cl_program pp : p->per_platform)
    if (pp) return true;
  return false;
}

// A linked program whose units are known: each unit compiled and all of them
// linked on every platform slot, as the app did on its own devices. False
// when a slot fails.
bool link_everywhere(cl_program p, std::string* why) {
  Runtime& rt = runtime();
  p->per_platform.assign(rt.platforms.size(), nullptr);
  const std::string link_options = link_options_for_build(p->link_options);
  bool all = true;
  for (unsigned s = 0; s < rt.platforms.size(); ++s) {
    std::vector<cl_device_id> ids;
    for (auto& d : rt.devices)
      if (d.slot == s) ids.push_back(d.id);
    std::vector<cl_program> objects;
    bool ok = true;
    for (const CompileUnit& unit : p->units) {
      cl_int err = CL_SUCCESS;
      const char* text = unit.source.c_str();
      cl_program obj = real().clCreateProgramWithSource(rt.contexts[s], 1, &text, nullptr, &err);
      if (!obj) {
        ok = false;
        break;
      }
      objects.push_back(obj);
      err = real().clCompileProgram(obj, static_cast<cl_uint>(ids.size()), ids.data(),
                                    unit.options.c_str(), 0, nullptr, nullptr, nullptr, nullptr);
      if (err != CL_SUCCESS) {
        *why = "compile failed on " + rt.devices[0].name + ": " + build_log(obj, ids[0]);
        ok = false;
        break;
      }
    }
    cl_program linked = nullptr;
    if (ok) {
      cl_int err = CL_SUCCESS;
      linked = real().clLinkProgram(rt.contexts[s], static_cast<cl_uint>(ids.size()), ids.data(),
                                    link_options.c_str(), static_cast<cl_uint>(objects.size()),
                                    objects.data(), nullptr, nullptr, &err);
      if (linked && err != CL_SUCCESS) {
        *why = "link failed: " + build_log(linked, ids[0]);
        real().clReleaseProgram(linked);
        linked = nullptr;
      } else if (!linked) {
        *why = "link failed (" + std::to_string(err) + ")";
      }
    }
    for (cl_program obj : objects) real().clReleaseProgram(obj);
    if (!linked) {
      all = false;
      continue;
    }
    p->per_platform[s] = linked;
  }
  return all;
}

// The executable the app's own build made, as binaries for the app's devices
// (the last resort: those devices run the program whole).
void take_native_binaries(cl_program p) {
  cl_uint n = 0;
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, nullptr) != CL_SUCCESS || !n)
    return;
  std::vector<cl_device_id> ids(n);
  std::vector<size_t> sizes(n, 0);
  real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, n * sizeof(cl_device_id), ids.data(), nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, n * sizeof(size_t), sizes.data(),
                              nullptr) != CL_SUCCESS)
    return;
  std::vector<std::vector<unsigned char>> bins(n);
  std::vector<unsigned char*> ptrs(n);
  for (cl_uint i = 0; i < n; ++i) bins[i].resize(sizes[i]), ptrs[i] = bins[i].data();
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARIES, n * sizeof(unsigned char*), ptrs.data(),
                              nullptr) != CL_SUCCESS)
    return;
  for (cl_uint i = 0; i < n; ++i)
    if (sizes[i]) p->binary_devices.push_back(ids[i]), p->binaries.push_back(std::move(bins[i]));
}

}  // namespace

bool plain_split_safe(std::string_view source) {
  for (const char* word : {"get_group_id", "get_num_groups", "get_global_size", "get_global_offset",
                           "get_global_linear_id", "get_enqueued", "atomic", "atom_", "image",
                           "pipe", "sampler", "enqueue_kernel", "__builtin"})
    if (source.find(word) != std::string_view::npos) return false;
  return true;
}

void prepare_program(cl_program p) {
  if (p->mode != Mode::Unprepared) return;
  Runtime& rt = runtime();
  std::string why;
  if (p->from_source) {
    std::string cc = find_cc(rt.controls.cc);
    if (cc.empty()) {
      why = "libsplit-cc not found";
    } else {
      CcResult r = run_cc(cc, p->source, p->options);
      if (!r.ok) {
        why = r.error;
      } else {
        std::string perr;
        auto summary = parse_summary(r.summary_json, &perr);
        if (!summary) {
          why = "unreadable summary: " + perr;
        } else if (build_everywhere(p, &r.partition_ready, &why)) {
          p->summary = std::move(summary);
          p->mode = Mode::Compiled;
          return;
        } else {
          drop_programs(p);
          if (why.empty()) why = "partition-ready program did not build";
        }
      }
    }
    bool plain = rt.controls.plain_split && plain_split_safe(p->source);
    if (build_everywhere(p, &p->source, &why)) {
      p->mode = plain ? Mode::Plain : Mode::Whole;
      p->mode_reason = why;
      log_line(1, "program not partition-ready (" + why + "); kernels " +
                      (plain ? "split without rewrite (plain, whole-buffer merge)" : "run unsplit"));
      return;
    }
    drop_programs(p);
  }
  if (p->units_known && !p->units.empty()) {
    // A linked program: its units compiled and linked on libsplit's devices.
    bool plain = rt.controls.plain_split;
    for (const CompileUnit& u : p->units) plain &= plain_split_safe(u.source);
    if (link_everywhere(p, &why)) {
      p->mode = plain ? Mode::Plain : Mode::Whole;
      p->mode_reason = "linked from separately compiled units";
      log_line(1, "program linked from " + std::to_string(p->units.size()) +
                      " units; kernels " + (plain ? "split without rewrite (plain)" : "run unsplit"));
      return;
    }
    drop_programs(p);
  }
  // Binaries or IL: the app's, else those of the app's own build (its
  // devices then run the kernels whole).
  if (p->binaries.empty() && p->il.empty()) take_native_binaries(p);
  if (!p->binaries.empty() || !p->il.empty()) {
    std::string bin_why;
    build_everywhere(p, nullptr, &bin_why);
    if (any_built(p)) {
      p->mode = Mode::Whole;
      p->mode_reason = p->from_source || p->units_known
                           ? "source did not build on libsplit's devices (" + why + "); the app's binaries run whole"
                           : "program from binary or IL, or linked from objects of unknown source";
      log_line(1, "program not partition-ready: " + p->mode_reason);
      return;
    }
    if (why.empty()) why = bin_why;
    drop_programs(p);
  }
  p->mode = Mode::Failed;
  p->mode_reason = why;
  log_line(1, "cannot build the program on libsplit's devices: " + why);
}

cl_kernel device_kernel(cl_kernel k, unsigned device, cl_int* err) {
  Runtime& rt = runtime();
  if (k->per_device.size() < rt.devices.size()) k->per_device.resize(rt.devices.size(), nullptr);
  if (!k->per_device[device]) {
    unsigned slot = rt.devices[device].slot;
    cl_program p = slot < k->program->per_platform.size() ? k->program->per_platform[slot] : nullptr;
    if (!p) {
      *err = CL_INVALID_PROGRAM_EXECUTABLE;
      return nullptr;
    }
    k->per_device[device] = real().clCreateKernel(p, k->name.c_str(), err);
    if (!k->per_device[device]) return nullptr;
  }
  *err = CL_SUCCESS;
  return k->per_device[device];
}

cl_int check_executable(cl_kernel k, unsigned device) {
  Runtime& rt = runtime();
  cl_program p = k->program;
  if (p->mode == Mode::Unprepared) {
    std::lock_guard exec(rt.exec_mutex);
    prepare_program(p);
  }
  unsigned slot = rt.devices[device].slot;
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

bool non_uniform_allowed(cl_device_id device, cl_program p) {
  std::string options = p->options + " " + p->link_options;
  for (const CompileUnit& u : p->units) options += " " + u.options;
  if (options.find("-cl-uniform-work-group-size") != std::string::npos) return false;
  if (options.find("-cl-std=CL2") == std::string::npos && options.find("-cl-std=CL3") == std::string::npos)
    return false;
  cl_bool support = CL_FALSE;
  if (real().clGetDeviceInfo(device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof support,
                             &support, nullptr) == CL_SUCCESS)
    return support == CL_TRUE;
  char version[64] = {};
  real().clGetDeviceInfo(device, CL_DEVICE_VERSION, sizeof version - 1, version, nullptr);
  return std::string_view(version).rfind("OpenCL 2.", 0) == 0;
}

}  // namespace libsplit

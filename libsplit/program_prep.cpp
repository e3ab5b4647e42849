#include "program_prep.h"

#include "binary_origins.h"
#include "cc_client.h"
#include "device_macros.h"
#include "real_api.h"
#include "runtime.h"

namespace libsplit {

namespace {

using Mode = _cl_program::Mode;

// Builds `source` (or the binaries / IL) on every platform slot; false when a
// slot fails.
bool build_everywhere(cl_program p, const std::string* source, const std::string& options,
                      std::string* why) {
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
                                options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      size_t n = 0;
      real().clGetProgramBuildInfo(prog, ids[0], CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      real().clGetProgramBuildInfo(prog, ids[0], CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      *why = "build failed on " + rt.devices[0].name + ": " + log.substr(0, 300);
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
  // A program from a binary libsplit handed out earlier gets its source and
  // build options back (binary_origins.h); for the rest of its life it is a
  // program from source for libsplit's own builds.
  bool from_source = p->from_source;
  std::string source = p->source, options = p->options;
  if (!from_source && p->il.empty()) {
    std::string dir = binary_origins_dir(rt.controls.cache_dir);
    if (auto origin = find_binary_origin(dir, p->binaries, &why)) {
      from_source = true;
      source = std::move(origin->source);
      options = std::move(origin->options);
      log_line(1, "program from a binary libsplit handed out: source and options restored");
    }
  }
  if (from_source) {
    std::string cc = find_cc(rt.controls.cc);
    if (cc.empty()) {
      why = "libsplit-cc not found";
    } else {
      std::vector<cl_device_id> ids;
      for (const auto& d : rt.devices) ids.push_back(d.id);
      std::vector<std::string> sets = device_macro_sets(ids, options);
      std::string listed;
      for (const auto& set : sets) listed += (listed.empty() ? "" : " | ") + set;
      log_line(2, "libsplit-cc device macro sets (options '" + options + "'): " + listed);
      CcResult r = run_cc(cc, source, options, sets);
      if (!r.ok) {
        why = r.error;
      } else {
        std::string perr;
        auto summary = parse_summary(r.summary_json, &perr);
        if (!summary) {
          why = "unreadable summary: " + perr;
        } else if (build_everywhere(p, &r.partition_ready, options, &why)) {
          p->summary = std::move(summary);
          p->mode = Mode::Compiled;
          return;
        } else {
          drop_programs(p);
          if (why.empty()) why = "partition-ready program did not build";
        }
      }
    }
    bool plain = rt.controls.plain_split && plain_split_safe(source);
    if (build_everywhere(p, &source, options, &why)) {
      p->mode = plain ? Mode::Plain : Mode::Whole;
      p->mode_reason = why;
      log_line(1, "program not partition-ready (" + why + "); kernels " +
                      (plain ? "split without rewrite (plain, whole-buffer merge)" : "run unsplit"));
      return;
    }
  } else {
    if (!p->il.empty()) why = "a program from IL (no OpenCL C source)";
    if (build_everywhere(p, nullptr, options, &why) || !p->per_platform.empty()) {
      p->mode = Mode::Whole;
      p->mode_reason = why;
      log_line(1, "program not partition-ready (" + why + "); kernels run unsplit");
      return;
    }
  }
  p->mode = Mode::Failed;
  p->mode_reason = why;
  log_line(1, "cannot build the program on libsplit's devices: " + why);
}

void remember_binaries(cl_program p, const unsigned char* const* binaries, size_t count) {
  std::string source = p->source, options = p->options;
  if (!p->from_source) {
    // A program restored from a binary hands out binaries of the same source.
    std::string why;
    auto origin = find_binary_origin(binary_origins_dir(runtime().controls.cache_dir), p->binaries, &why);
    if (!origin) return;
    source = std::move(origin->source);
    options = std::move(origin->options);
  }
  std::vector<size_t> sizes(count, 0);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t),
                              sizes.data(), nullptr) != CL_SUCCESS)
    return;
  // Only executables: a compiled object or library binary was made with
  // clCompileProgram's options, not the ones recorded here.
  std::vector<cl_device_id> devices(count, nullptr);
  if (real().clGetProgramInfo(p->native, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id),
                              devices.data(), nullptr) != CL_SUCCESS)
    return;
  std::string dir = binary_origins_dir(runtime().controls.cache_dir);
  for (size_t i = 0; i < count; ++i) {
    if (!binaries[i] || !sizes[i] || !devices[i]) continue;
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    if (real().clGetProgramBuildInfo(p->native, devices[i], CL_PROGRAM_BINARY_TYPE, sizeof type, &type,
                                     nullptr) != CL_SUCCESS ||
        type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
      continue;
    std::string why;
    if (!record_binary_origin(dir, binaries[i], sizes[i], {source, options}, &why))
      log_line(1, "binary handed out but not recorded: " + why);
  }
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
  }
  *err = CL_SUCCESS;
  return k->per_device[device];
}

}  // namespace libsplit

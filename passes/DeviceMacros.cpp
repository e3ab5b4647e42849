#include "DeviceMacros.h"

#include <algorithm>

namespace libsplit::cc {

namespace {

// Macros Clang 16 (spir64, -finclude-default-header, any -cl-std) may
// predefine on its own that say something about the device: undefined in
// the device header unless the device's set has them. Language-mode macros
// of OpenCL C 2.0 (`__opencl_c_*` that Clang derives from the version) are
// only reset in OpenCL C 3.0 mode, where the device lists its features.
constexpr std::string_view kClangDeviceMacros[] = {
    "__IMAGE_SUPPORT__", "__ENDIAN_LITTLE__", "__EMBEDDED_PROFILE__", "__OPENCL_VERSION__",
    "FP_FAST_FMA", "FP_FAST_FMAF", "FP_FAST_FMA_HALF",
    "__cl_clang_bitfields", "__cl_clang_function_pointers",
    "__cl_clang_non_portable_kernel_param_types", "__cl_clang_variadic_functions",
    "__opencl_subgroup_builtins",
    "cl_amd_media_ops", "cl_amd_media_ops2", "cl_clang_storage_class_specifiers",
    "cl_ext_float_atomics", "cl_intel_device_side_avc_motion_estimation", "cl_intel_subgroups",
    "cl_intel_subgroups_short", "cl_khr_3d_image_writes", "cl_khr_byte_addressable_store",
    "cl_khr_depth_images", "cl_khr_extended_bit_ops", "cl_khr_fp16", "cl_khr_fp64",
    "cl_khr_gl_msaa_sharing", "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics", "cl_khr_integer_dot_product",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
    "cl_khr_mipmap_image", "cl_khr_mipmap_image_writes", "cl_khr_srgb_image_writes",
    "cl_khr_subgroup_ballot", "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_extended_types", "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_rotate", "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative", "cl_khr_subgroups",
};

// OpenCL C 3.0 feature macros Clang or its header may define.
constexpr std::string_view kClangFeatureMacros[] = {
    "__opencl_c_3d_image_writes", "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_all_devices",
    "__opencl_c_atomic_scope_device", "__opencl_c_device_enqueue",
    "__opencl_c_ext_fp16_global_atomic_add", "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_min_max", "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_load_store", "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_add", "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_add", "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_add", "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_add", "__opencl_c_ext_fp64_local_atomic_min_max",
    "__opencl_c_fp64", "__opencl_c_generic_address_space", "__opencl_c_images",
    "__opencl_c_int64", "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed", "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables", "__opencl_c_read_write_images",
    "__opencl_c_subgroups", "__opencl_c_work_group_collective_functions",
};

bool validName(std::string_view n) {
  if (n.empty() || (n[0] >= '0' && n[0] <= '9')) return false;
  for (char c : n)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::string DeviceMacroSet::canonical() const {
  std::string out;
  for (const auto& [name, value] : macros) out += (out.empty() ? "" : ",") + name + "=" + value;
  return out;
}

std::optional<DeviceMacroSet> parseDeviceMacros(std::string_view spec, std::string* error) {
  DeviceMacroSet set;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string item = trim(spec.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string name = trim(item.substr(0, eq));
    std::string value = eq == std::string::npos ? "1" : trim(item.substr(eq + 1));
    if (!validName(name) || value.find('\n') != std::string::npos) {
      if (error) *error = "bad device macro '" + item + "'";
      return std::nullopt;
    }
    set.macros.emplace_back(std::move(name), std::move(value));
  }
  std::stable_sort(set.macros.begin(), set.macros.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // The last definition of a name wins, as with repeated -D.
  std::vector<std::pair<std::string, std::string>> unique;
  for (auto& m : set.macros) {
    if (!unique.empty() && unique.back().first == m.first) unique.back() = std::move(m);
    else unique.push_back(std::move(m));
  }
  set.macros = std::move(unique);
  return set;
}

DeviceMacroSetup deviceMacroSetup(const DeviceMacroSet& set, const std::vector<std::string>& appOptions) {
  DeviceMacroSetup out;
  std::string version;
  for (const auto& [name, value] : set.macros)
    if (name == "__OPENCL_C_VERSION__") version = value;
  bool appStd = false;
  for (const auto& o : appOptions) appStd |= o.rfind("-cl-std=", 0) == 0;
  if (!appStd && !version.empty()) {
    static const std::pair<const char*, const char*> kStd[] = {
        {"100", "CL1.0"}, {"110", "CL1.1"}, {"120", "CL1.2"}, {"200", "CL2.0"}, {"300", "CL3.0"}};
    for (const auto& [v, s] : kStd)
      if (version == v) out.clangArgs.push_back(std::string("-cl-std=") + s);
  }
  // Language features follow the device's extensions and features (types
  // such as half/double and the builtins declared for them).
  std::string ext = "-cl-ext=-all";
  for (const auto& [name, value] : set.macros)
    if (name.rfind("cl_", 0) == 0 || name.rfind("__opencl_c_", 0) == 0) ext += ",+" + name;
  out.clangArgs.push_back(ext);

  bool version3 = version == "300" || (version.empty() && [&] {
    for (const auto& o : appOptions)
      if (o == "-cl-std=CL3.0" || o == "-cl-std=cl3.0") return true;
    return false;
  }());
  std::string& h = out.header;
  h += "/* libsplit: the device's predefined macros */\n";
  for (std::string_view n : kClangDeviceMacros) h += "#undef " + std::string(n) + "\n";
  if (version3)
    for (std::string_view n : kClangFeatureMacros) h += "#undef " + std::string(n) + "\n";
  for (const auto& [name, value] : set.macros) {
    if (name.rfind("__opencl_c_", 0) == 0 && !version3) continue;  // Clang's, for the version
    h += "#undef " + name + "\n#define " + name + " " + value + "\n";
  }
  return out;
}

}  // namespace libsplit::cc

#include "device_macros.h"

#include "cc_client.h"
#include "real_api.h"

#include <CL/cl_ext.h>  // CL_DEVICE_HALF_FP_CONFIG (cl_khr_fp16)

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

namespace libsplit {

namespace {

std::string info_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (real().clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  if (real().clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return "";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T info_value(cl_device_id d, cl_device_info what, T fallback) {
  T v{};
  return real().clGetDeviceInfo(d, what, sizeof v, &v, nullptr) == CL_SUCCESS ? v : fallback;
}

std::vector<cl_name_version> info_names(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (real().clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n < sizeof(cl_name_version))
    return {};
  std::vector<cl_name_version> v(n / sizeof(cl_name_version));
  if (real().clGetDeviceInfo(d, what, v.size() * sizeof(cl_name_version), v.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  return v;
}

// "OpenCL 3.0 ..." / "OpenCL C 1.2 ..." -> 300 / 120; 0 when unreadable.
int version_of(const std::string& text, const char* prefix) {
  int major = 0, minor = 0;
  std::string fmt = std::string(prefix) + " %d.%d";
  return std::sscanf(text.c_str(), fmt.c_str(), &major, &minor) == 2 ? major * 100 + minor * 10 : 0;
}

int version_of(cl_version v) { return int(CL_VERSION_MAJOR(v)) * 100 + int(CL_VERSION_MINOR(v)) * 10; }

// The OpenCL C versions the device may compile the program as.
std::vector<int> language_versions(cl_device_id d, const std::string& build_options, bool* cplusplus) {
  *cplusplus = false;
  for (const std::string& w : split_options(build_options)) {
    if (w.rfind("-cl-std=", 0) != 0) continue;
    std::string v = w.substr(8);
    for (char& c : v) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (v.rfind("CLC++", 0) == 0) {
      *cplusplus = true;
      return {};
    }
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str(), "CL%d.%d", &major, &minor) == 2) return {major * 100 + minor * 10};
  }
  // No -cl-std: the spec says the highest 1.x the device supports; some
  // drivers use their newest. Both are analysed.
  int highest1x = 0, newest = 0;
  for (const cl_name_version& nv : info_names(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS)) {
    int v = version_of(nv.version);
    if (v < 200) highest1x = std::max(highest1x, v);
    newest = std::max(newest, v);
  }
  int reported = version_of(info_string(d, CL_DEVICE_OPENCL_C_VERSION), "OpenCL C");
  if (reported < 200) highest1x = std::max(highest1x, reported);
  newest = std::max(newest, reported);
  std::vector<int> out;
  if (highest1x) out.push_back(highest1x);
  if (newest && newest != highest1x) out.push_back(newest);
  return out;
}

void add(std::vector<std::string>& set, const std::string& name, const std::string& value = "1") {
  set.push_back(name + "=" + value);
}

std::string join(std::vector<std::string> set) {
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  std::string out;
  for (const auto& m : set) out += (out.empty() ? "" : ",") + m;
  return out;
}

}  // namespace

std::vector<std::string> device_macro_sets(cl_device_id d, const std::string& build_options) {
  std::vector<std::string> base;
  if (int v = version_of(info_string(d, CL_DEVICE_VERSION), "OpenCL")) add(base, "__OPENCL_VERSION__", std::to_string(v));
  std::istringstream exts(info_string(d, CL_DEVICE_EXTENSIONS));
  for (std::string e; exts >> e;) add(base, e);
  if (info_value<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT, CL_FALSE)) add(base, "__IMAGE_SUPPORT__");
  if (info_value<cl_bool>(d, CL_DEVICE_ENDIAN_LITTLE, CL_TRUE)) add(base, "__ENDIAN_LITTLE__");
  if (info_string(d, CL_DEVICE_PROFILE) == "EMBEDDED_PROFILE") add(base, "__EMBEDDED_PROFILE__");

  std::vector<std::string> fma;  // defined in the "fast FMA" choice
  if (info_value<cl_device_fp_config>(d, CL_DEVICE_SINGLE_FP_CONFIG, 0) & CL_FP_FMA) add(fma, "FP_FAST_FMAF");
  if (info_value<cl_device_fp_config>(d, CL_DEVICE_DOUBLE_FP_CONFIG, 0) & CL_FP_FMA) add(fma, "FP_FAST_FMA");
  if (info_value<cl_device_fp_config>(d, CL_DEVICE_HALF_FP_CONFIG, 0) & CL_FP_FMA) add(fma, "FP_FAST_FMA_HALF");

  std::vector<std::string> features;
  for (const cl_name_version& nv : info_names(d, CL_DEVICE_OPENCL_C_FEATURES)) add(features, nv.name);

  bool cplusplus = false;
  std::vector<int> versions = language_versions(d, build_options, &cplusplus);
  std::vector<std::string> out;
  auto emit = [&](std::vector<std::string> set) {
    out.push_back(join(set));
    if (!fma.empty()) {
      set.insert(set.end(), fma.begin(), fma.end());
      out.push_back(join(set));
    }
  };
  if (versions.empty()) {
    emit(base);
  } else {
    for (int v : versions) {
      std::vector<std::string> set = base;
      add(set, "__OPENCL_C_VERSION__", std::to_string(v));
      if (v >= 300) set.insert(set.end(), features.begin(), features.end());
      emit(set);
    }
  }
  return out;
}

std::vector<std::string> device_macro_sets(const std::vector<cl_device_id>& devices,
                                           const std::string& build_options) {
  std::set<std::string> all;
  for (cl_device_id d : devices)
    for (auto& s : device_macro_sets(d, build_options)) all.insert(std::move(s));
  return {all.begin(), all.end()};
}

}  // namespace libsplit

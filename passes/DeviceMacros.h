// The macros a device predefines, as libsplit-cc's analysis must see them.
//
// Clang's spir64 target predefines its own set (every extension it knows,
// no __OPENCL_VERSION__, ...), which is not what an OpenCL driver predefines
// for its device; a kernel whose accesses sit under `#ifdef cl_khr_fp16` or
// `#if __OPENCL_VERSION__ >= 200` would be analysed as the wrong program.
// The shim derives each device's set from clGetDeviceInfo and passes it as
// `--device-macros SPEC`; this file turns a SPEC into Clang arguments plus a
// header included right after Clang's default header that leaves exactly the
// device's macros defined.
//
// SPEC: comma-separated `NAME` or `NAME=VALUE` (VALUE without commas).
// `__OPENCL_C_VERSION__` in a set also selects Clang's language mode when
// the app gave no -cl-std.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libsplit::cc {

struct DeviceMacroSet {
  std::vector<std::pair<std::string, std::string>> macros;  // sorted by name, unique
  // The SPEC text in canonical form (sorted, `NAME=VALUE`): cache keys, messages.
  std::string canonical() const;
};

// nullopt (reason in *error) for a malformed SPEC.
std::optional<DeviceMacroSet> parseDeviceMacros(std::string_view spec, std::string* error);

struct DeviceMacroSetup {
  std::vector<std::string> clangArgs;  // cc1 arguments: -cl-ext=..., -cl-std=...
  std::string header;                  // #undef / #define lines, included after the default header
};

// appOptions: the app's filtered Clang options (a -cl-std there wins).
DeviceMacroSetup deviceMacroSetup(const DeviceMacroSet& set, const std::vector<std::string>& appOptions);

// The virtual file name under which the header is included.
inline constexpr const char* kDeviceMacroHeaderName = "/libsplit/device-macros.h";

}  // namespace libsplit::cc

#include "device_binary_file.h"

#include "binary_origins.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>

namespace libsplit {

namespace {

constexpr const char* kMagic = "libsplit-device-binaries 1";
constexpr size_t kLongestCachedKernelName = 128;

}  // namespace

std::string driver_library(cl_platform_id p) {
  if (!p) return "";
  auto* const* table = *reinterpret_cast<void* const* const*>(p);
  Dl_info info{};
  if (!table || !dladdr(table[1], &info) || !info.dli_fname) return "";
  std::string path = info.dli_fname;
  if (char* resolved = realpath(path.c_str(), nullptr)) {
    path = resolved;
    std::free(resolved);
  }
  return path;
}

DeviceIdentity device_identity(cl_device_id d, GetDeviceInfoFn device_info, GetPlatformInfoFn platform_info) {
  // The full answers, terminating NUL included (as the key always had them).
  auto device_text = [&](cl_device_info what) {
    size_t n = 0;
    device_info(d, what, 0, nullptr, &n);
    std::string s(n, '\0');
    device_info(d, what, n, s.data(), nullptr);
    return s;
  };
  cl_platform_id platform = nullptr;
  device_info(d, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
  size_t n = 0;
  platform_info(platform, CL_PLATFORM_VERSION, 0, nullptr, &n);
  std::string version(n, '\0');
  platform_info(platform, CL_PLATFORM_VERSION, n, version.data(), nullptr);
  return {device_text(CL_DEVICE_NAME), device_text(CL_DRIVER_VERSION), version};
}

std::string device_binary_key(const std::string& source, const std::string& options,
                              const std::vector<DeviceIdentity>& devices) {
  std::string text = std::string(kMagic) + "\n" + options + "\n";
  for (const DeviceIdentity& d : devices) text += d.name + "|" + d.driver + "|" + d.platform_version + "\n";
  text += source;
  return sha256_hex(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

std::string encode_device_binaries(const std::string& key, const DeviceBinaries& binaries) {
  std::ostringstream text;
  text << kMagic << "\n" << key << "\n" << binaries.size();
  for (const auto& b : binaries) text << " " << b.size();
  text << "\n";
  for (const auto& b : binaries) text.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  return text.str();
}

std::optional<DeviceBinaries> decode_device_binaries(const std::string& bytes, const std::string& key,
                                                     size_t devices) {
  std::istringstream in(bytes);
  std::string magic, stored_key;
  size_t count = 0;
  if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, stored_key) || stored_key != key ||
      !(in >> count) || count != devices)
    return std::nullopt;
  std::vector<size_t> sizes(count);
  for (size_t& s : sizes)
    if (!(in >> s)) return std::nullopt;
  in.get();  // the newline before the bytes
  DeviceBinaries out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i].resize(sizes[i]);
    if (!in.read(reinterpret_cast<char*>(out[i].data()), std::streamsize(sizes[i]))) return std::nullopt;
  }
  if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;
  return out;
}

std::optional<DeviceBinaries> program_binaries(cl_program built, size_t devices, GetProgramInfoFn program_info) {
  size_t n = 0;
  if (program_info(built, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n) != CL_SUCCESS) return std::nullopt;
  std::string names(n, '\0');
  if (program_info(built, CL_PROGRAM_KERNEL_NAMES, n, names.data(), nullptr) != CL_SUCCESS ||
      has_uncacheable_kernel_name(names))
    return std::nullopt;
  std::vector<size_t> sizes(devices, 0);
  if (program_info(built, CL_PROGRAM_BINARY_SIZES, devices * sizeof(size_t), sizes.data(), nullptr) != CL_SUCCESS)
    return std::nullopt;
  DeviceBinaries bins(devices);
  std::vector<unsigned char*> ptrs(devices);
  for (size_t i = 0; i < devices; ++i) {
    if (!sizes[i]) return std::nullopt;
    bins[i].resize(sizes[i]);
    ptrs[i] = bins[i].data();
  }
  if (program_info(built, CL_PROGRAM_BINARIES, devices * sizeof(unsigned char*), ptrs.data(), nullptr) !=
      CL_SUCCESS)
    return std::nullopt;
  return bins;
}

bool has_uncacheable_kernel_name(std::string_view names) {
  names = names.substr(0, names.find('\0'));
  while (!names.empty()) {
    const size_t semi = names.find(';');
    if (names.substr(0, semi).size() > kLongestCachedKernelName) return true;
    if (semi == std::string_view::npos) break;
    names.remove_prefix(semi + 1);
  }
  return false;
}

}  // namespace libsplit

#include "device_binaries.h"

#include "binary_origins.h"
#include "libsplit/cache_dir.h"
#include "real_api.h"
#include "runtime.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace libsplit {

namespace {

constexpr const char* kMagic = "libsplit-device-binaries 1";

std::string directory() { return cache_dir(runtime().controls.cache_dir) + "/device-binaries"; }

std::string device_text(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  real().clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  real().clGetDeviceInfo(d, what, n, s.data(), nullptr);
  return s;
}

// PoCL (3.1) builds the binaries of a program on demand, naming a file after
// each kernel; past the file-name limit its final link fails and the process
// aborts (CTS test_compiler kernel_name_size, 256 characters). Natively nobody
// asks, so the shim must not either: programs with a kernel name this long are
// not cached (they are rare; the cost is one more build in a later run).
constexpr size_t kLongestCachedKernelName = 128;

bool has_long_kernel_name(cl_program built) {
  size_t n = 0;
  if (real().clGetProgramInfo(built, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n) != CL_SUCCESS) return true;
  std::string names(n, '\0');
  if (real().clGetProgramInfo(built, CL_PROGRAM_KERNEL_NAMES, n, names.data(), nullptr) != CL_SUCCESS)
    return true;
  names.resize(names.find('\0') == std::string::npos ? names.size() : names.find('\0'));
  std::istringstream list(names);
  std::string name;
  while (std::getline(list, name, ';'))
    if (name.size() > kLongestCachedKernelName) return true;
  return false;
}

}  // namespace

std::string device_binary_key(const std::string& source, const std::string& options,
                              const std::vector<cl_device_id>& devices) {
  std::string text = std::string(kMagic) + "\n" + options + "\n";
  for (cl_device_id d : devices) {
    cl_platform_id platform = nullptr;
    real().clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    size_t n = 0;
    real().clGetPlatformInfo(platform, CL_PLATFORM_VERSION, 0, nullptr, &n);
    std::string version(n, '\0');
    real().clGetPlatformInfo(platform, CL_PLATFORM_VERSION, n, version.data(), nullptr);
    text += device_text(d, CL_DEVICE_NAME) + "|" + device_text(d, CL_DRIVER_VERSION) + "|" + version + "\n";
  }
  text += source;
  return sha256_hex(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

bool has_device_binaries(const std::string& key) {
  return std::ifstream(directory() + "/" + key).good();
}

std::optional<std::vector<std::vector<unsigned char>>> load_device_binaries(const std::string& key,
                                                                            size_t devices) {
  std::ifstream in(directory() + "/" + key, std::ios::binary);
  if (!in) return std::nullopt;
  std::string magic, stored_key;
  size_t count = 0;
  if (!std::getline(in, magic) || magic != kMagic || !std::getline(in, stored_key) ||
      stored_key != key || !(in >> count) || count != devices)
    return std::nullopt;
  std::vector<size_t> sizes(count);
  for (size_t& s : sizes)
    if (!(in >> s)) return std::nullopt;
  in.get();  // the newline before the bytes
  std::vector<std::vector<unsigned char>> out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i].resize(sizes[i]);
    if (!in.read(reinterpret_cast<char*>(out[i].data()), std::streamsize(sizes[i]))) return std::nullopt;
  }
  if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;
  return out;
}

void store_device_binaries(const std::string& key, cl_program built, size_t devices) {
  if (has_long_kernel_name(built)) {
    log_line(2, "device binaries not cached: a kernel name is longer than " +
                    std::to_string(kLongestCachedKernelName) + " characters");
    return;
  }
  std::vector<size_t> sizes(devices, 0);
  if (real().clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, devices * sizeof(size_t), sizes.data(),
                              nullptr) != CL_SUCCESS)
    return;
  std::vector<std::vector<unsigned char>> bins(devices);
  std::vector<unsigned char*> ptrs(devices);
  for (size_t i = 0; i < devices; ++i) {
    if (!sizes[i]) return;
    bins[i].resize(sizes[i]);
    ptrs[i] = bins[i].data();
  }
  if (real().clGetProgramInfo(built, CL_PROGRAM_BINARIES, devices * sizeof(unsigned char*), ptrs.data(),
                              nullptr) != CL_SUCCESS)
    return;
  std::ostringstream text;
  text << kMagic << "\n" << key << "\n" << devices;
  for (size_t s : sizes) text << " " << s;
  text << "\n";
  for (auto& b : bins) text.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  std::string why;
  if (!write_private_file(directory(), key, text.str(), &why))
    log_line(1, "device binaries not cached: " + why);
}

}  // namespace libsplit

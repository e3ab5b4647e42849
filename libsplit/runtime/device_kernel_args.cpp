#include "device_kernel_args.h"

#include "real_api.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace libsplit {

namespace {

struct SetValue {
  enum class Kind : uint8_t { Unknown, Bytes, Local, Svm } kind = Kind::Unknown;
  std::vector<uint8_t> bytes;  // Bytes: the value; Local: empty (size below); Svm: the pointer
  size_t size = 0;
};

std::mutex g_mutex;
std::unordered_map<cl_kernel, std::vector<SetValue>> g_set;

bool same(const SetValue& v, SetValue::Kind kind, size_t size, const void* value) {
  if (v.kind != kind || v.size != size) return false;
  return kind == SetValue::Kind::Local || std::memcmp(v.bytes.data(), value, size) == 0;
}

void remember(cl_kernel dk, cl_uint index, SetValue::Kind kind, size_t size, const void* value) {
  std::vector<SetValue>& set = g_set[dk];
  if (set.size() <= index) set.resize(index + 1);
  SetValue& v = set[index];
  v.kind = kind;
  v.size = size;
  if (kind == SetValue::Kind::Local)
    v.bytes.clear();
  else
    v.bytes.assign(static_cast<const uint8_t*>(value), static_cast<const uint8_t*>(value) + size);
}

bool known(cl_kernel dk, cl_uint index, SetValue::Kind kind, size_t size, const void* value) {
  auto it = g_set.find(dk);
  return it != g_set.end() && index < it->second.size() && same(it->second[index], kind, size, value);
}

}  // namespace

cl_int set_kernel_arg_cached(cl_kernel dk, cl_uint index, size_t size, const void* value) {
  const auto kind = value ? SetValue::Kind::Bytes : SetValue::Kind::Local;
  std::lock_guard lock(g_mutex);
  if (known(dk, index, kind, size, value)) return CL_SUCCESS;
  cl_int err = real().clSetKernelArg(dk, index, size, value);
  if (err == CL_SUCCESS)
    remember(dk, index, kind, size, value);
  else if (auto it = g_set.find(dk); it != g_set.end() && index < it->second.size())
    it->second[index] = {};  // what the driver holds now is not known
  return err;
}

cl_int set_kernel_arg_svm_cached(cl_kernel dk, cl_uint index, const void* pointer) {
  std::lock_guard lock(g_mutex);
  if (known(dk, index, SetValue::Kind::Svm, sizeof pointer, &pointer)) return CL_SUCCESS;
  cl_int err = real().clSetKernelArgSVMPointer(dk, index, pointer);
  if (err == CL_SUCCESS)
    remember(dk, index, SetValue::Kind::Svm, sizeof pointer, &pointer);
  else if (auto it = g_set.find(dk); it != g_set.end() && index < it->second.size())
    it->second[index] = {};
  return err;
}

void forget_kernel_args(cl_kernel dk) {
  std::lock_guard lock(g_mutex);
  g_set.erase(dk);
}

void forget_kernel_arg_object(const void* handle) {
  std::lock_guard lock(g_mutex);
  for (auto& [dk, set] : g_set)
    for (SetValue& v : set)
      if (v.kind == SetValue::Kind::Bytes && v.size == sizeof handle &&
          std::memcmp(v.bytes.data(), &handle, sizeof handle) == 0)
        v = {};
}

void release_device_mem(cl_mem m) {
  if (!m) return;
  forget_kernel_arg_object(m);
  real().clReleaseMemObject(m);
}

}  // namespace libsplit

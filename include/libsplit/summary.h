// The kernel summary: what libsplit-cc tells the runtime about every kernel of
// a program. Written as JSON by the compiler, read by the shim. Plain values,
// no LLVM.
#pragma once

#include "libsplit/region.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsplit {

enum class AddressSpace : uint8_t { Private, Global, Constant, Local };

struct ArgSummary {
  unsigned index = 0;
  std::string name;
  std::string type;               // as written, e.g. "float*", "uint", "float4"
  AddressSpace address_space = AddressSpace::Private;  // of the pointee for pointers
  bool is_pointer = false;        // a buffer (global/constant) or local pointer
  bool is_image = false;          // images/samplers/pipes: the kernel is not split
  uint64_t size = 0;              // bytes of the argument value (scalars, vectors, structs)
  bool is_const = false;
  bool is_restrict = false;
  bool reads = false;             // as seen in LLVM IR (pointers only)
  bool writes = false;
  bool atomics = false;
  AccessRegion read_region;       // filled by the region analysis (known=false until then)
  AccessRegion write_region;
};

struct KernelSummary {
  std::string name;
  std::vector<ArgSummary> args;   // the user's arguments, in order
  uint64_t reqd_work_group_size[3] = {0, 0, 0};
  uint64_t work_group_size_hint[3] = {0, 0, 0};
  bool uses_barrier = false;
  bool uses_local_memory = false;
  bool uses_images = false;
  bool uses_global_atomics = false;
  // Hidden arguments appended after the user's, in order. libsplit-cc adds one:
  // "__libsplit_ctx" of type ulong4 = (split_dim, first_group,
  // full_num_groups_in_split_dim, full_global_offset_in_split_dim).
  struct Hidden {
    std::string name, type, meaning;
  };
  std::vector<Hidden> hidden_args;
  bool splittable = true;
  std::string not_splittable_reason;
};

struct ProgramSummary {
  int version = 1;
  std::string tool;               // producer name and version
  std::vector<KernelSummary> kernels;
  const KernelSummary* find(std::string_view kernel) const;
};

std::string to_json(const ProgramSummary& s);
std::optional<ProgramSummary> parse_summary(std::string_view json, std::string* error = nullptr);

}  // namespace libsplit

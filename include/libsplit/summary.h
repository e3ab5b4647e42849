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

// How the global atomics of a "reduction buffer" combine. A buffer argument is
// one when every global atomic on it is this commutative, associative update
// with its returned value unused, and the kernel neither loads nor stores it
// otherwise: slices may then update private copies that are combined after
// the launch. sub, inc and dec are recorded as Add (they add -v, +1, -1:
// copies started at 0 combine by wrapping addition). Min/Max are signed,
// UMin/UMax unsigned.
enum class ReductionOp : uint8_t { None, Add, Min, Max, UMin, UMax, And, Or, Xor };

// "add", "min", ... ("" for None); parse_reduction_op gives nullopt for an
// unknown name.
const char* reduction_op_name(ReductionOp op);
std::optional<ReductionOp> parse_reduction_op(std::string_view name);

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
  // The widest unit in bytes (a power of two, at most 128) that every store
  // of the kernel through this pointer writes whole and aligned: 4 for float
  // or int stores, 8 for double or long, 1 where bytes are stored or the
  // analysis lost the pointer; 0 when unknown (older summaries) or no write.
  // Device copies of a buffer several devices wrote are merged in these
  // units, so a merge never mixes the bytes of two writers.
  unsigned store_unit = 0;
  // A reduction buffer (see ReductionOp): the operation and the width in bits
  // (32 or 64) of the integers it updates; None/0 otherwise.
  ReductionOp reduction = ReductionOp::None;
  unsigned reduction_bits = 0;
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
  // Any atomic on memory that may be global. The kernel stays splittable
  // only when all of them are on reduction buffers (ArgSummary::reduction).
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

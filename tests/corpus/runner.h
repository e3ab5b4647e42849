// Host runner for the shared kernel corpus (tests/corpus/*.cl).
//
// Every corpus kernel file carries its own launch spec in `//` comment lines
// (see README.md). This library parses the spec, makes deterministic initial
// buffer contents, and runs a program on OpenCL either as the full launch or
// as a list of slices of a partition-ready program (hidden `ulong4
// __libsplit_ctx` argument + global offset/size per the libsplit contract),
// returning every buffer as bytes. No LLVM; links OpenCL only.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsplit::corpus {

using Bytes = std::vector<uint8_t>;

// Element type of a buffer or scalar argument: a scalar OpenCL type or one of
// its vectors ("float", "uint4", "double2", "char16", ...).
struct ElemType {
  std::string name;        // as written
  std::string scalar;      // "float", "uint", ...
  unsigned components = 1; // 1, 2, 3, 4, 8, 16
  unsigned scalar_size = 4;
  bool is_float = false;
  bool is_signed = false;
  // Bytes of one element (3-component vectors take the room of 4).
  uint64_t size() const { return uint64_t(scalar_size) * (components == 3 ? 4 : components); }
};
std::optional<ElemType> parse_elem_type(std::string_view name);

enum class Init { Random, Zero, Iota };

struct ArgSpec {
  enum class Kind { Buffer, Scalar, Local };
  std::string name;
  Kind kind = Kind::Buffer;
  ElemType type;
  uint64_t count = 0;          // Buffer / Local: number of elements
  Init init = Init::Random;    // Buffer only
  bool read_only = false;      // Buffer: created CL_MEM_READ_ONLY ("ro" flag)
  Bytes scalar_value;          // Scalar: the bytes passed to clSetKernelArg
  uint64_t bytes() const { return type.size() * count; }
};

struct KernelSpec {
  std::string file;            // path the spec was read from (may be empty)
  std::string source;          // the whole OpenCL C file
  std::string kernel;
  unsigned dims = 1;
  uint64_t global[3] = {1, 1, 1};
  uint64_t local[3] = {1, 1, 1};
  uint64_t offset[3] = {0, 0, 0};
  std::string build_options;   // BUILD lines joined with spaces
  std::vector<ArgSpec> args;   // in kernel-argument order
  std::vector<std::string> tags;  // TAGS line: free-form words for test filters
  uint64_t groups(unsigned d) const { return global[d] / local[d]; }
  bool has_tag(std::string_view t) const;
};

// Parses the spec lines of a corpus file. nullopt + *error on a bad spec.
std::optional<KernelSpec> parse_spec(std::string_view source, std::string* error = nullptr);
std::optional<KernelSpec> load_spec(const std::string& path, std::string* error = nullptr);
// Every *.cl file of a folder, sorted by name.
std::vector<std::string> list_kernel_files(const std::string& dir);

// Initial contents of every argument: the bytes of each Buffer argument,
// empty for the others. Deterministic in (spec, seed). Random values are
// small integers (floats: multiples of 1/8 in [-16, 16)) so that sums and
// products stay exact and results do not depend on evaluation order.
std::vector<Bytes> initial_buffers(const KernelSpec& spec, uint64_t seed = 1);

// One sub-launch: whole work-groups [first_group, first_group + group_count)
// of dimension dim, run on device `device` of the runner.
struct SliceRun {
  unsigned dim = 0;
  uint64_t first_group = 0;
  uint64_t group_count = 0;
  size_t device = 0;
};

// n slices of nearly equal group counts along dim (n clamped to the groups).
std::vector<SliceRun> even_slices(const KernelSpec& spec, unsigned dim, unsigned n,
                                  size_t device_count = 1);
// Random uneven cut of dim into up to max_parts non-empty slices, devices
// assigned at random; deterministic in seed.
std::vector<SliceRun> random_slices(const KernelSpec& spec, unsigned dim, unsigned max_parts,
                                    uint64_t seed, size_t device_count = 1);

enum class SliceMerge {
  // Slices run one after the other; each starts from the buffer contents the
  // previous slices left (copied through the host between devices).
  Sequential,
  // Every slice starts from the initial contents on its device; the result
  // takes, for each slice, the bytes it changed (what a multi-device runtime
  // without shared memory does).
  ChangedBytes,
};

struct RunResult {
  bool ok = false;
  std::string error;              // OpenCL error / build log when !ok
  std::vector<Bytes> buffers;     // per argument, like initial_buffers
};

// Owns an OpenCL context over some devices of one platform, and caches built
// programs by (source, options).
class Runner {
 public:
  // All devices of the first platform that has any (POCL_DEVICES picks them).
  static std::optional<Runner> create(std::string* error = nullptr);
  Runner(Runner&&) noexcept;
  Runner& operator=(Runner&&) noexcept;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner();

  size_t device_count() const { return devices_.size(); }
  std::string device_name(size_t i) const;

  // Builds source for all devices; nullptr + *error (with the build log) on failure.
  cl_program build(const std::string& source, const std::string& options, std::string* error);
  // The same for one device only (what the runs use: no compile for devices
  // a run does not touch).
  cl_program build_for(const std::string& source, const std::string& options, size_t device,
                       std::string* error);

  // The full NDRange of spec, one launch of `source` (spec.source when empty).
  RunResult run_full(const KernelSpec& spec, const std::vector<Bytes>& initial,
                     const std::string& source = {}, size_t device = 0);
  // The slices of a partition-ready program, each with the hidden ctx argument.
  RunResult run_slices(const KernelSpec& spec, const std::string& partition_ready_source,
                       const std::vector<Bytes>& initial, const std::vector<SliceRun>& slices,
                       SliceMerge merge = SliceMerge::Sequential);

 private:
  Runner() = default;
  struct Built {
    std::string key;
    size_t device = 0;  // SIZE_MAX: built for every device
    cl_program program = nullptr;
  };
  cl_program build_devices(const std::string& source, const std::string& options, size_t device,
                           std::string* error);
  // Runs one launch on `device` with buffers initialised from `in`; fills out.
  bool launch(const KernelSpec& spec, cl_program program, size_t device,
              const std::vector<Bytes>& in, const SliceRun* slice, std::vector<Bytes>& out,
              std::string* error);
  void release();

  cl_platform_id platform_ = nullptr;
  std::vector<cl_device_id> devices_;
  cl_context context_ = nullptr;
  std::vector<cl_command_queue> queues_;
  std::vector<Built> programs_;
};

// Name of an OpenCL error code ("CL_INVALID_VALUE"), for messages.
const char* cl_error_name(cl_int code);

}  // namespace libsplit::corpus

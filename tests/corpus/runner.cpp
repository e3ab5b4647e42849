#include "runner.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace libsplit::corpus {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view part = trim(s.substr(start, end - start));
    if (!part.empty()) out.emplace_back(part);
    start = end + 1;
  }
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool parse_u64(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_dims(std::string_view s, uint64_t out[3], unsigned& dims) {
  auto parts = split(s, ',');
  if (parts.empty() || parts.size() > 3) return false;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!parse_u64(parts[i], out[i])) return false;
  dims = unsigned(parts.size());
  return true;
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Writes one scalar component of type t holding the value v (integers) or f
// (floating types) at p.
void store_scalar(const ElemType& t, uint8_t* p, int64_t v, double f) {
  if (t.is_float) {
    if (t.scalar_size == 4) {
      float x = float(f);
      std::memcpy(p, &x, 4);
    } else {
      std::memcpy(p, &f, 8);
    }
    return;
  }
  // Little-endian truncation of the two's complement value.
  for (unsigned b = 0; b < t.scalar_size; ++b) p[b] = uint8_t(uint64_t(v) >> (8 * b));
}

bool parse_scalar_value(const ElemType& t, std::string_view text, Bytes& out, std::string* err) {
  auto parts = split(text, ',');
  unsigned n = t.components;
  if (parts.size() != 1 && parts.size() != n) {
    if (err) *err = "scalar value '" + std::string(text) + "' needs 1 or " + std::to_string(n) + " components";
    return false;
  }
  out.assign(t.size(), 0);
  for (unsigned c = 0; c < n; ++c) {
    const std::string& s = parts.size() == 1 ? parts[0] : parts[c];
    try {
      size_t used = 0;
      if (t.is_float) {
        double f = std::stod(s, &used);
        if (used != s.size()) throw std::invalid_argument(s);
        store_scalar(t, out.data() + c * t.scalar_size, 0, f);
      } else {
        long long v = std::stoll(s, &used, 0);
        if (used != s.size()) throw std::invalid_argument(s);
        store_scalar(t, out.data() + c * t.scalar_size, v, 0);
      }
    } catch (const std::exception&) {
      if (err) *err = "bad scalar value '" + s + "' for type " + t.name;
      return false;
    }
  }
  return true;
}

bool fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

#define CL_TRY(call)                                                         \
  do {                                                                       \
    cl_int err_ = (call);                                                    \
    if (err_ != CL_SUCCESS)                                                  \
      return fail(error, std::string(#call) + ": " + cl_error_name(err_));   \
  } while (0)

}  // namespace

std::optional<ElemType> parse_elem_type(std::string_view name) {
  struct Scalar {
    const char* name;
    unsigned size;
    bool is_float, is_signed;
  };
  static const Scalar scalars[] = {
      {"char", 1, false, true},   {"uchar", 1, false, false}, {"short", 2, false, true},
      {"ushort", 2, false, false}, {"int", 4, false, true},   {"uint", 4, false, false},
      {"long", 8, false, true},   {"ulong", 8, false, false}, {"float", 4, true, true},
      {"double", 8, true, true},
  };
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  std::string_view base = name.substr(0, digits);
  unsigned comps = 1;
  if (digits != name.size()) {
    uint64_t c = 0;
    if (!parse_u64(name.substr(digits), c)) return std::nullopt;
    if (c != 2 && c != 3 && c != 4 && c != 8 && c != 16) return std::nullopt;
    comps = unsigned(c);
  }
  for (const auto& s : scalars)
    if (base == s.name)
      return ElemType{std::string(name), s.name, comps, s.size, s.is_float, s.is_signed};
  return std::nullopt;
}

bool KernelSpec::has_tag(std::string_view t) const {
  return std::find(tags.begin(), tags.end(), t) != tags.end();
}

std::optional<KernelSpec> parse_spec(std::string_view source, std::string* error) {
  KernelSpec spec;
  spec.source = std::string(source);
  bool have_launch = false;
  bool have_local = false;
  unsigned line_no = 0;
  std::istringstream in{std::string(source)};
  for (std::string raw; std::getline(in, raw);) {
    ++line_no;
    std::string_view line = trim(raw);
    if (line.substr(0, 2) != "//") continue;
    line = trim(line.substr(2));
    auto w = words(line);
    if (w.empty()) continue;
    auto bad = [&](const std::string& why) {
      fail(error, "line " + std::to_string(line_no) + ": " + why);
      return std::nullopt;
    };
    if (w[0] == "LAUNCH") {
      if (have_launch) return bad("more than one LAUNCH line");
      have_launch = true;
      bool have_global = false;
      for (size_t i = 1; i < w.size(); ++i) {
        auto eq = w[i].find('=');
        if (eq == std::string::npos) return bad("expected key=value, got '" + w[i] + "'");
        std::string key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
        unsigned dims = 0;
        if (key == "kernel") {
          spec.kernel = value;
        } else if (key == "global") {
          if (!parse_dims(value, spec.global, spec.dims)) return bad("bad global '" + value + "'");
          have_global = true;
        } else if (key == "local") {
          if (!parse_dims(value, spec.local, dims)) return bad("bad local '" + value + "'");
          have_local = true;
        } else if (key == "offset") {
          if (!parse_dims(value, spec.offset, dims)) return bad("bad offset '" + value + "'");
        } else {
          return bad("unknown LAUNCH key '" + key + "'");
        }
      }
      if (spec.kernel.empty() || !have_global) return bad("LAUNCH needs kernel= and global=");
    } else if (w[0] == "BUILD") {
      std::string_view opts = trim(line.substr(5));
      if (!spec.build_options.empty()) spec.build_options += ' ';
      spec.build_options += opts;
    } else if (w[0] == "TAGS") {
      spec.tags.insert(spec.tags.end(), w.begin() + 1, w.end());
    } else if (w[0] == "ARG") {
      if (w.size() < 4) return bad("ARG needs: name kind type ...");
      ArgSpec a;
      a.name = w[1];
      auto t = parse_elem_type(w[3]);
      if (!t) return bad("unknown type '" + w[3] + "'");
      a.type = *t;
      if (w[2] == "buffer" || w[2] == "local") {
        a.kind = w[2] == "buffer" ? ArgSpec::Kind::Buffer : ArgSpec::Kind::Local;
        if (w.size() < 5 || !parse_u64(w[4], a.count) || a.count == 0)
          return bad("ARG " + a.name + ": bad element count");
        size_t next = 5;
        if (a.kind == ArgSpec::Kind::Buffer) {
          if (w.size() > 5) {
            if (w[5] == "random") a.init = Init::Random;
            else if (w[5] == "zero") a.init = Init::Zero;
            else if (w[5] == "iota") a.init = Init::Iota;
            else return bad("ARG " + a.name + ": unknown init '" + w[5] + "'");
            next = 6;
          }
          for (; next < w.size(); ++next) {
            if (w[next] == "ro") a.read_only = true;
            else return bad("ARG " + a.name + ": unknown flag '" + w[next] + "'");
          }
        } else if (w.size() > 5) {
          return bad("ARG " + a.name + ": trailing words");
        }
      } else if (w[2] == "scalar") {
        a.kind = ArgSpec::Kind::Scalar;
        if (w.size() != 5) return bad("ARG " + a.name + ": scalar needs exactly one value");
        std::string err;
        if (!parse_scalar_value(a.type, w[4], a.scalar_value, &err)) return bad(err);
      } else {
        return bad("unknown ARG kind '" + w[2] + "'");
      }
      spec.args.push_back(std::move(a));
    }
  }
  if (!have_launch) {
    fail(error, "no LAUNCH line");
    return std::nullopt;
  }
  if (!have_local) {
    fail(error, "LAUNCH needs local= (slices are whole work-groups)");
    return std::nullopt;
  }
  for (unsigned d = 0; d < spec.dims; ++d)
    if (spec.local[d] == 0 || spec.global[d] % spec.local[d] != 0) {
      fail(error, "global must be a multiple of local in every dimension");
      return std::nullopt;
    }
  return spec;
}

std::optional<KernelSpec> load_spec(const std::string& path, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    fail(error, "cannot read " + path);
    return std::nullopt;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::string err;
  auto spec = parse_spec(ss.str(), &err);
  if (!spec) {
    fail(error, path + ": " + err);
    return std::nullopt;
  }
  spec->file = path;
  // BUILD lines may name the kernel's own folder as $DIR (for -I).
  std::string dir = std::filesystem::path(path).parent_path().string();
  for (size_t p = 0; (p = spec->build_options.find("$DIR", p)) != std::string::npos;) {
    spec->build_options.replace(p, 4, dir);
    p += dir.size();
  }
  return spec;
}

std::vector<std::string> list_kernel_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".cl") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Bytes> initial_buffers(const KernelSpec& spec, uint64_t seed) {
  std::vector<Bytes> out(spec.args.size());
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& a = spec.args[i];
    if (a.kind != ArgSpec::Kind::Buffer) continue;
    Bytes& b = out[i];
    b.assign(a.bytes(), 0);
    if (a.init == Init::Zero) continue;
    uint64_t state = seed * 0x100000001b3ULL + i * 0x9e3779b97f4a7c15ULL;
    const ElemType& t = a.type;
    for (uint64_t e = 0; e < a.count; ++e)
      for (unsigned c = 0; c < t.components; ++c) {
        uint8_t* p = b.data() + e * t.size() + c * t.scalar_size;
        uint64_t flat = e * t.components + c;
        if (a.init == Init::Iota) {
          store_scalar(t, p, int64_t(flat), double(flat));
          continue;
        }
        uint64_t r = splitmix64(state);
        int64_t v = t.scalar_size == 1 ? int64_t(r % 100) : int64_t(r % 1000);
        double f = double(int64_t(r % 256) - 128) / 8.0;
        store_scalar(t, p, v, f);
      }
  }
  return out;
}

std::vector<SliceRun> even_slices(const KernelSpec& spec, unsigned dim, unsigned n,
                                  size_t device_count) {
  std::vector<SliceRun> out;
  uint64_t groups = spec.groups(dim);
  n = unsigned(std::clamp<uint64_t>(n, 1, groups));
  uint64_t first = 0;
  for (unsigned i = 0; i < n; ++i) {
    uint64_t count = groups / n + (i < groups % n ? 1 : 0);
    out.push_back({dim, first, count, device_count ? i % device_count : 0});
    first += count;
  }
  return out;
}

std::vector<SliceRun> random_slices(const KernelSpec& spec, unsigned dim, unsigned max_parts,
                                    uint64_t seed, size_t device_count) {
  uint64_t state = seed ^ 0x5bd1e995ULL;
  uint64_t groups = spec.groups(dim);
  uint64_t parts = 1 + splitmix64(state) % std::max<uint64_t>(1, std::min<uint64_t>(max_parts, groups));
  // Choose parts-1 distinct cut points in [1, groups).
  std::vector<uint64_t> cuts;
  while (cuts.size() + 1 < parts) {
    uint64_t c = 1 + splitmix64(state) % (groups - 1);
    if (std::find(cuts.begin(), cuts.end(), c) == cuts.end()) cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(groups);
  std::vector<SliceRun> out;
  uint64_t first = 0;
  for (uint64_t c : cuts) {
    size_t dev = device_count ? splitmix64(state) % device_count : 0;
    out.push_back({dim, first, c - first, dev});
    first = c;
  }
  return out;
}

std::optional<Runner> Runner::create(std::string* error) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) {
    fail(error, "no OpenCL platform");
    return std::nullopt;
  }
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    Runner r;
    r.platform_ = p;
    r.devices_.resize(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, r.devices_.data(), nullptr);
    cl_int err = CL_SUCCESS;
    r.context_ = clCreateContext(nullptr, nd, r.devices_.data(), nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      fail(error, std::string("clCreateContext: ") + cl_error_name(err));
      return std::nullopt;
    }
    for (cl_device_id d : r.devices_) {
      cl_command_queue q = clCreateCommandQueueWithProperties(r.context_, d, nullptr, &err);
      if (err != CL_SUCCESS) {
        fail(error, std::string("clCreateCommandQueue: ") + cl_error_name(err));
        return std::nullopt;
      }
      r.queues_.push_back(q);
    }
    return r;
  }
  fail(error, "no OpenCL device");
  return std::nullopt;
}

Runner::Runner(Runner&& o) noexcept { *this = std::move(o); }

Runner& Runner::operator=(Runner&& o) noexcept {
  if (this != &o) {
    release();
    platform_ = o.platform_;
    devices_ = std::move(o.devices_);
    context_ = std::exchange(o.context_, nullptr);
    queues_ = std::move(o.queues_);
    programs_ = std::move(o.programs_);
    o.queues_.clear();
    o.programs_.clear();
  }
  return *this;
}

Runner::~Runner() { release(); }

void Runner::release() {
  for (auto& b : programs_) clReleaseProgram(b.program);
  programs_.clear();
  for (auto q : queues_) clReleaseCommandQueue(q);
  queues_.clear();
  if (context_) clReleaseContext(context_);
  context_ = nullptr;
}

std::string Runner::device_name(size_t i) const {
  char name[256] = {};
  clGetDeviceInfo(devices_.at(i), CL_DEVICE_NAME, sizeof(name) - 1, name, nullptr);
  return name;
}

cl_program Runner::build(const std::string& source, const std::string& options,
                         std::string* error) {
  return build_devices(source, options, SIZE_MAX, error);
}

cl_program Runner::build_for(const std::string& source, const std::string& options,
                             size_t device, std::string* error) {
  if (device >= devices_.size()) {
    fail(error, "no device " + std::to_string(device));
    return nullptr;
  }
  return build_devices(source, options, device, error);
}

cl_program Runner::build_devices(const std::string& source, const std::string& options,
                                 size_t device, std::string* error) {
  std::string key = options + '\0' + source;
  for (const auto& b : programs_)
    if (b.key == key && (b.device == device || b.device == SIZE_MAX)) return b.program;
  std::vector<cl_device_id> targets = devices_;
  if (device != SIZE_MAX) targets = {devices_[device]};
  const char* text = source.c_str();
  size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(context_, 1, &text, &len, &err);
  if (err != CL_SUCCESS) {
    fail(error, std::string("clCreateProgramWithSource: ") + cl_error_name(err));
    return nullptr;
  }
  err = clBuildProgram(p, cl_uint(targets.size()), targets.data(), options.c_str(), nullptr,
                       nullptr);
  if (err != CL_SUCCESS) {
    std::string log;
    for (cl_device_id d : targets) {
      size_t n = 0;
      clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string l(n, '\0');
      clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, l.data(), nullptr);
      log += l;
    }
    clReleaseProgram(p);
    fail(error, std::string("clBuildProgram: ") + cl_error_name(err) + "\n" + log);
    return nullptr;
  }
  programs_.push_back({std::move(key), device, p});
  return p;
}

bool Runner::launch(const KernelSpec& spec, cl_program program, size_t device,
                    const std::vector<Bytes>& in, const SliceRun* slice,
                    std::vector<Bytes>& out, std::string* error) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, spec.kernel.c_str(), &err);
  if (err != CL_SUCCESS)
    return fail(error, "clCreateKernel(" + spec.kernel + "): " + cl_error_name(err));
  std::vector<cl_mem> mems(spec.args.size(), nullptr);
  auto cleanup = [&] {
    for (cl_mem m : mems)
      if (m) clReleaseMemObject(m);
    clReleaseKernel(k);
  };
  bool ok = [&]() -> bool {
    for (size_t i = 0; i < spec.args.size(); ++i) {
      const ArgSpec& a = spec.args[i];
      cl_uint idx = cl_uint(i);
      switch (a.kind) {
        case ArgSpec::Kind::Buffer: {
          cl_mem_flags flags = (a.read_only ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE) |
                               CL_MEM_COPY_HOST_PTR;
          mems[i] = clCreateBuffer(context_, flags, in[i].size(),
                                   const_cast<uint8_t*>(in[i].data()), &err);
          CL_TRY(err);
          CL_TRY(clSetKernelArg(k, idx, sizeof(cl_mem), &mems[i]));
          break;
        }
        case ArgSpec::Kind::Scalar:
          CL_TRY(clSetKernelArg(k, idx, a.scalar_value.size(), a.scalar_value.data()));
          break;
        case ArgSpec::Kind::Local:
          CL_TRY(clSetKernelArg(k, idx, a.bytes(), nullptr));
          break;
      }
    }
    size_t global[3], local[3], offset[3];
    for (unsigned d = 0; d < 3; ++d) {
      global[d] = spec.global[d];
      local[d] = spec.local[d];
      offset[d] = spec.offset[d];
    }
    if (slice) {
      unsigned d = slice->dim;
      if (d >= spec.dims) return fail(error, "slice dimension out of range");
      offset[d] = spec.offset[d] + slice->first_group * spec.local[d];
      global[d] = slice->group_count * spec.local[d];
      cl_ulong4 ctx;
      ctx.s[0] = d;
      ctx.s[1] = slice->first_group;
      ctx.s[2] = spec.groups(d);
      ctx.s[3] = spec.offset[d];
      CL_TRY(clSetKernelArg(k, cl_uint(spec.args.size()), sizeof(ctx), &ctx));
    }
    cl_command_queue q = queues_.at(device);
    CL_TRY(clEnqueueNDRangeKernel(q, k, spec.dims, offset, global, local, 0, nullptr, nullptr));
    out.assign(spec.args.size(), {});
    for (size_t i = 0; i < spec.args.size(); ++i) {
      if (!mems[i]) continue;
      out[i].resize(in[i].size());
      CL_TRY(clEnqueueReadBuffer(q, mems[i], CL_TRUE, 0, out[i].size(), out[i].data(), 0,
                                 nullptr, nullptr));
    }
    CL_TRY(clFinish(q));
    return true;
  }();
  cleanup();
  return ok;
}

RunResult Runner::run_full(const KernelSpec& spec, const std::vector<Bytes>& initial,
                           const std::string& source, size_t device) {
  RunResult r;
  cl_program p =
      build_for(source.empty() ? spec.source : source, spec.build_options, device, &r.error);
  if (!p) return r;
  r.ok = launch(spec, p, device, initial, nullptr, r.buffers, &r.error);
  return r;
}

RunResult Runner::run_slices(const KernelSpec& spec, const std::string& partition_ready_source,
                             const std::vector<Bytes>& initial,
                             const std::vector<SliceRun>& slices, SliceMerge merge) {
  RunResult r;
  std::vector<Bytes> state = initial;
  for (const SliceRun& s : slices) {
    cl_program p = build_for(partition_ready_source, spec.build_options, s.device, &r.error);
    if (!p) return r;
    std::vector<Bytes> out;
    const std::vector<Bytes>& in = merge == SliceMerge::Sequential ? state : initial;
    if (!launch(spec, p, s.device, in, &s, out, &r.error)) return r;
    if (merge == SliceMerge::Sequential) {
      state = std::move(out);
      continue;
    }
    for (size_t i = 0; i < out.size(); ++i)
      for (size_t b = 0; b < out[i].size(); ++b)
        if (out[i][b] != initial[i][b]) state[i][b] = out[i][b];
  }
  r.buffers = std::move(state);
  r.ok = true;
  return r;
}

const char* cl_error_name(cl_int code) {
  switch (code) {
#define E(x) \
  case x:    \
    return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
    E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_BUILD_OPTIONS)
#undef E
    default:
      return "CL_ERROR(unknown)";
  }
}

}  // namespace libsplit::corpus

#include "indirect_regions.h"

#include "buffer_data.h"
#include "index_hull.h"
#include "runtime.h"

#include <map>
#include <tuple>

namespace libsplit {

namespace {

// Block hulls of one store's contents read as one integer type at one
// alignment phase. Process-wide, used under the exec lock only.
struct CachedHulls {
  uint64_t version = 0;
  BlockHulls hulls;
};
using CacheKey = std::tuple<const BufferStore*, unsigned, bool, uint64_t>;  // store, bits, signed, phase

std::map<CacheKey, CachedHulls>& cache() {
  static std::map<CacheKey, CachedHulls> c;
  return c;
}

// Exact answers by (store, version, type, phase, first, last): a launch
// sliced like the previous one asks the same questions, whose partial
// blocks would otherwise be scanned again.
using AnswerKey = std::tuple<const BufferStore*, uint64_t, unsigned, bool, uint64_t, uint64_t>;
std::map<AnswerKey, Interval>& answers() {
  static std::map<AnswerKey, Interval> a;
  return a;
}

// A read-back costs at least this (pageable memory on the GPU node: 6-9
// GB/s measured), used to refuse one that cannot fit the time limit.
constexpr double kReadBackBytesPerNs = 4.0;
constexpr uint64_t kReadAhead = uint64_t(4) << 20;

// Why argument `arg`'s elements from `first` to `last` (byte offsets, each
// `size` bytes) cannot be read as the kernel will see them; "" when they can.
std::string why_unreadable(const Launch& L, unsigned arg, uint64_t size, int64_t first, int64_t last) {
  if (arg >= L.args.size() || L.args[arg].kind != ArgValue::Kind::Mem || !L.args[arg].mem ||
      !L.args[arg].mem->store)
    return "not a buffer";
  cl_mem m = L.args[arg].mem;
  const BufferStore& s = *m->store;
  // The values read now are the kernel's only if nothing writes them during
  // the launch: not this argument (any device's summary) nor another one
  // over the same store.
  if (!L.summary || arg >= L.summary->args.size() || L.summary->args[arg].writes || L.summary->args[arg].atomics)
    return "written by the kernel";
  for (const BufferArg& b : L.buffers)
    if (b.writes && b.mem->store.get() == &s)
      return "its memory is written by argument " + std::to_string(b.index);
  if (first < 0 || last < first || uint64_t(last) + size > m->size) return "offsets outside the buffer";
  return "";
}

// Brings bytes r of s (missing from its host copy) to the host for a scan,
// reading ahead up to the end of the slice's indices (slice_end) where the
// launch's time limit and LIBSPLIT_INDIRECT_READ_MAX_MB allow; false with
// *why set where it may not.
bool read_for_scan(BufferStore& s, const Range& r, uint64_t slice_end, uint64_t size, double spent,
                   double limit_ns, uint64_t read_max, uint64_t* bytes_read_back, std::string* why) {
  // Only the slice asked for, within the per-launch allowance, but in
  // reads of up to kReadAhead bytes: the hull asks for one block of
  // 1024 elements at a time, and a blocking read of 4 KB cost ~25 us on
  // the GPU node (spmv large: 64 MB of indices in 16 K reads, 0.4 s a
  // launch, where one read moves them in ~10 ms).
  auto missing_in = [&](const Range& x) {
    uint64_t n = 0;
    for (const Range& m : s.host_valid.missing(x)) n += m.size();
    return n;
  };
  const uint64_t missing = missing_in(r);
  if (*bytes_read_back + missing > read_max) {
    *why = "read-back above LIBSPLIT_INDIRECT_READ_MAX_MB";
    return false;
  }
  if (spent + double(missing) / kReadBackBytesPerNs > limit_ns) {
    *why = "index reads would cost more than the split can gain";
    return false;
  }
  Range ahead{r.begin, std::max(r.end, std::min(slice_end, r.begin + kReadAhead))};
  ahead.end = ahead.begin + (ahead.end - ahead.begin) / size * size;
  const uint64_t more = missing_in(ahead);
  if (!s.undefined.present(ahead).empty() || *bytes_read_back + more > read_max ||
      spent + double(more) / kReadBackBytesPerNs > limit_ns)
    ahead = r;
  TransferStats moved;
  if (ensure_host(s, ahead, &moved) != CL_SUCCESS) {
    *why = "read-back failed";
    return false;
  }
  *bytes_read_back += moved.bytes_to_host;
  return true;
}

}  // namespace

bool uses_index_buffers(const Launch& L) {
  for (const BufferArg& b : L.buffers)
    if (b.reads_through_index || b.writes_through_index) return true;
  return false;
}

bool writes_through_index(const Launch& L) {
  for (const BufferArg& b : L.buffers)
    if (b.writes && b.writes_through_index) return true;
  return false;
}

std::shared_ptr<const LoadedValues> make_index_reader(const Launch& L) {
  if (!runtime().controls.indirect || !uses_index_buffers(L)) return nullptr;
  return std::make_shared<IndexReader>(L);
}

IndexReader::IndexReader(const Launch& L) : L(L) {}

void limit_index_reads(const Launch& L, double seconds) {
  if (auto* reader = dynamic_cast<const IndexReader*>(L.indexes.get()))
    reader->limit_seconds(seconds);
}

IndexReader::~IndexReader() {
  if (!stats_.queries) return;
  Runtime& rt = runtime();
  if (rt.tracer->enabled() && stats_.ns > 1000)
    rt.tracer->span("index regions " + L.kernel->name, "host", 0, stats_.first_ns, stats_.first_ns + stats_.ns);
  if (rt.controls.log >= 1)
    log_line(1, "index regions of launch " + std::to_string(L.id) + " " + L.kernel->name + ": " +
                    std::to_string(stats_.queries) + " reads of index buffers (" + std::to_string(stats_.failed) +
                    " unresolved), " + std::to_string(stats_.elements_scanned) + " elements scanned, " +
                    std::to_string(stats_.bytes_read_back) + " B read back, " + std::to_string(stats_.ns / 1000) +
                    " us" + (stats_.first_failure.empty() ? "" : "; first unresolved: " + stats_.first_failure));
}

std::optional<Interval> IndexReader::load_hull(unsigned arg, unsigned bits, bool is_signed, int64_t first,
                                               int64_t last) const {
  const cl_ulong t0 = now_ns();
  if (!stats_.queries) stats_.first_ns = t0;
  ++stats_.queries;
  auto fail = [&](const std::string& why) -> std::optional<Interval> {
    ++stats_.failed;
    if (stats_.first_failure.empty()) stats_.first_failure = "arg " + std::to_string(arg) + ": " + why;
    stats_.ns += now_ns() - t0;
    return std::nullopt;
  };
  Runtime& rt = runtime();
  const uint64_t size = bits / 8;
  if (std::string why = why_unreadable(L, arg, size, first, last); !why.empty()) return fail(why);
  cl_mem m = L.args[arg].mem;
  BufferStore& s = *m->store;
  const uint64_t phase = m->origin % size;
  const uint64_t root_first = m->origin + uint64_t(first), root_last = m->origin + uint64_t(last);
  const AnswerKey answer_key{&s, s.version, bits, is_signed, root_first, root_last};
  if (auto it = answers().find(answer_key); it != answers().end()) {
    stats_.ns += now_ns() - t0;
    return it->second;
  }
  CachedHulls& entry = cache()
                           .try_emplace(CacheKey{&s, bits, is_signed, phase},
                                        CachedHulls{s.version, BlockHulls(bits, is_signed, (s.size - phase) / size)})
                           .first->second;
  if (entry.version != s.version) entry = CachedHulls{s.version, BlockHulls(bits, is_signed, (s.size - phase) / size)};
  std::string why;
  const uint64_t read_max = uint64_t(std::max(rt.controls.indirect_read_max_mb, 0)) << 20;
  BlockHulls::Fetch fetch = [&](uint64_t e, uint64_t count) -> const uint8_t* {
    Range r{phase + e * size, phase + (e + count) * size};
    const double spent = double(stats_.ns + (now_ns() - t0));
    if (spent > limit_ns_) {
      why = "index reads would cost more than the split can gain";
      return nullptr;
    }
    if (!s.undefined.present(r).empty()) {
      why = "bytes never written";
      return nullptr;
    }
    if (!s.host_valid.covers(r) &&
        !read_for_scan(s, r, root_last + size, size, spent, limit_ns_, read_max, &stats_.bytes_read_back, &why))
      return nullptr;
    return s.shadow + r.begin;
  };
  std::optional<Interval> h =
      entry.hulls.hull((root_first - phase) / size, (root_last - phase) / size, fetch, &stats_.elements_scanned);
  if (!h) return fail(why.empty() ? "a value does not fit int64" : why);
  if (answers().size() > 4096) answers().clear();
  answers().emplace(answer_key, *h);
  // Bounded cache: a process that makes many index buffers drops them all.
  if (cache().size() > 256) {
    CachedHulls keep = std::move(entry);
    cache().clear();
    cache().emplace(CacheKey{&s, bits, is_signed, phase}, std::move(keep));
  }
  stats_.ns += now_ns() - t0;
  return h;
}

}  // namespace libsplit

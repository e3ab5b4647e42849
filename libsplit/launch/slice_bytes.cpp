#include "slice_bytes.h"

#include <array>
#include <mutex>

namespace libsplit {

std::pair<bool, bool> through_index(cl_kernel k, const KernelSummary& ks, unsigned i) {
  std::lock_guard lock(k->mutex);
  if (k->through_index_of != &ks) {
    k->through_index.clear();
    for (const ArgSummary& a : ks.args)
      k->through_index.push_back({region_mentions_load(a.read_region), region_mentions_load(a.write_region)});
    k->through_index_of = &ks;
  }
  return {k->through_index[i][0], k->through_index[i][1]};
}

namespace {

constexpr size_t kMaxMemoSlices = 1024;  // chunk schedulers' packages vary: bounded

// The memo's entry for a slice, after making the memo hold the launch's
// shape (under the kernel's mutex).
std::optional<std::vector<ByteRange>>* memo_entry(const Launch& L, const std::array<uint64_t, 5>& key) {
  _cl_kernel::SliceMemo& m = L.kernel->slice_memo;
  if (!m.shape.is(L.summary, L.scalars, L.nd, L.sizes) || m.slices.size() >= kMaxMemoSlices) {
    m.shape = {L.summary, L.scalars, L.nd, L.sizes};
    m.slices.clear();
  }
  auto it = m.slices.find(key);
  return it == m.slices.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<IntervalSet> Launch::slice_bytes(const BufferArg& b, const sched::Chunk& c,
                                               bool write) const {
  if (!b.summary) return std::nullopt;
  const Range whole = root_range(b.mem, 0, b.mem->size);
  auto root_bytes = [&](const std::optional<std::vector<ByteRange>>& ranges) -> std::optional<IntervalSet> {
    if (!ranges) return std::nullopt;
    IntervalSet set;
    for (const ByteRange& br : *ranges) set.add({whole.begin + br.begin, whole.begin + br.end});
    return set;
  };
  // Regions read through an index follow its contents: evaluated every time.
  const bool memo = !(write ? b.writes_through_index : b.reads_through_index);
  const std::array<uint64_t, 5> key{b.index, write, dim, c.first_group, c.group_count};
  if (memo) {
    std::lock_guard lock(kernel->mutex);
    if (auto* known = memo_entry(*this, key)) return root_bytes(*known);
  }
  Slice s{dim, c.first_group, c.group_count};
  EvalEnv env = slice_env(nd, s, scalars);
  env.memory = indexes.get();
  auto ranges = evaluate_region(write ? b.summary->write_region : b.summary->read_region, env, b.mem->size);
  if (memo) {
    std::lock_guard lock(kernel->mutex);
    if (!memo_entry(*this, key)) kernel->slice_memo.slices.emplace(key, ranges);
  }
  return root_bytes(ranges);
}

}  // namespace libsplit

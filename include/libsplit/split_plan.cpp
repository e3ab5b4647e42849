#include "libsplit/split_plan.h"

#include <algorithm>

namespace libsplit {

bool slices_disjoint(const std::vector<std::optional<std::vector<ByteRange>>>& per_slice) {
  for (size_t i = 0; i < per_slice.size(); ++i) {
    // An unknown list is the whole buffer: it overlaps any other slice that
    // touches the buffer at all.
    for (size_t j = i + 1; j < per_slice.size(); ++j) {
      const auto& a = per_slice[i];
      const auto& b = per_slice[j];
      if (!a || !b) {
        const auto& other = a ? a : b;
        if (!other || !other->empty()) return false;
        continue;
      }
      if (!ranges_disjoint(*a, *b)) return false;
    }
  }
  return true;
}

std::vector<Slice> even_slices(const NDRange& nd, unsigned dim, unsigned parts) {
  std::vector<Slice> out;
  uint64_t groups = dim < nd.dims && nd.local[dim] ? nd.groups(dim) : 1;
  if (parts == 0) parts = 1;
  uint64_t n = std::min<uint64_t>(parts, std::max<uint64_t>(groups, 1));
  uint64_t first = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t count = groups / n + (i < groups % n ? 1 : 0);
    out.push_back(Slice{dim, first, count});
    first += count;
  }
  return out;
}

namespace {

bool isBuffer(const ArgSummary& a) {
  return a.is_pointer &&
         (a.address_space == AddressSpace::Global || a.address_space == AddressSpace::Constant);
}

uint64_t bytesOf(const std::optional<std::vector<ByteRange>>& r, uint64_t whole) {
  if (!r) return whole;
  uint64_t n = 0;
  for (const auto& b : *r) n += b.end - b.begin;
  return n;
}

}  // namespace

WriteCheck check_slices(const KernelSummary& k, const std::vector<std::optional<int64_t>>& args,
                        const NDRange& nd, const std::vector<uint64_t>& buffer_sizes,
                        const std::vector<Slice>& slices, bool count_reads, const LoadedValues* memory) {
  WriteCheck out;
  std::vector<EvalEnv> envs;
  envs.reserve(slices.size());
  for (const Slice& s : slices) {
    envs.push_back(slice_env(nd, s, args));
    envs.back().memory = memory;
  }
  for (const ArgSummary& a : k.args) {
    if (!isBuffer(a)) continue;
    uint64_t size = a.index < buffer_sizes.size() ? buffer_sizes[a.index] : 0;
    if (a.reduction != ReductionOp::None) {
      // Every slice updates a private copy of the whole buffer (combined
      // after the launch): never a merge, the bytes go both ways.
      out.moved_bytes += 2 * size * envs.size();
      continue;
    }
    if (count_reads)
      for (const EvalEnv& env : envs) out.moved_bytes += bytesOf(evaluate_region(a.read_region, env, size), size);
    bool written = a.writes || a.atomics || !a.write_region.known || !a.write_region.parts.empty();
    if (!written) continue;
    std::vector<std::optional<std::vector<ByteRange>>> per;
    per.reserve(envs.size());
    for (const EvalEnv& env : envs) {
      per.push_back(evaluate_region(a.write_region, env, size));
      out.moved_bytes += bytesOf(per.back(), size);
    }
    if (slices_disjoint(per)) continue;
    out.needs_merge = true;
    out.merge_args.push_back(a.index);
    if (a.atomics && !out.atomic_overlap) {
      out.atomic_overlap = true;
      out.reason = "argument " + std::to_string(a.index) + (a.name.empty() ? "" : " (" + a.name + ")") +
                   ": atomic updates of bytes other slices also update (a merge would lose some)";
    }
    if (out.reason.empty()) {
      std::string who = "argument " + std::to_string(a.index) + (a.name.empty() ? "" : " (" + a.name + ")");
      if (!a.write_region.known)
        out.reason = who + ": written region unknown: " + a.write_region.unknown_reason;
      else if (std::any_of(per.begin(), per.end(), [](const auto& p) { return !p; }))
        out.reason = who + ": written region cannot be evaluated for these arguments";
      else
        out.reason = who + ": slices along dimension " +
                     std::to_string(slices.empty() ? 0 : slices[0].dim) + " write overlapping bytes";
    }
  }
  return out;
}

SplitChoice choose_split_dim(const KernelSummary& k, const std::vector<std::optional<int64_t>>& args,
                             const NDRange& nd, const std::vector<uint64_t>& buffer_sizes,
                             unsigned parts, const LoadedValues* memory) {
  SplitChoice best;
  if (!k.splittable) {
    best.splittable = false;
    best.reason = "kernel not splittable: " + k.not_splittable_reason;
    return best;
  }
  bool found = false;
  uint64_t bestMoved = 0, bestGroups = 0;
  bool bestAtomicOverlap = false;
  for (unsigned d = 0; d < nd.dims && d < 3; ++d) {
    if (nd.local[d] == 0) continue;
    uint64_t groups = nd.groups(d);
    if (groups < 2) continue;
    WriteCheck c = check_slices(k, args, nd, buffer_sizes, even_slices(nd, d, std::max(parts, 2u)), true, memory);
    if (!c.needs_merge && groups > 2) {
      // Neighbouring single groups: catches halos an even split might hide.
      WriteCheck n = check_slices(k, args, nd, buffer_sizes,
                                  {Slice{d, 0, 1}, Slice{d, 1, 1}, Slice{d, 2, groups - 2}},
                                  /*count_reads=*/false, memory);
      if (n.needs_merge) {
        c.needs_merge = true;
        c.merge_args = n.merge_args;
        c.reason = n.reason;
        c.atomic_overlap = n.atomic_overlap;
      }
    }
    // Rank: disjoint writes < merge needed < atomic overlap (no split).
    int rank = c.atomic_overlap ? 2 : c.needs_merge ? 1 : 0;
    int bestRank = bestAtomicOverlap ? 2 : best.needs_merge ? 1 : 0;
    bool better = !found || rank < bestRank ||
                  (rank == bestRank &&
                   (c.moved_bytes < bestMoved || (c.moved_bytes == bestMoved && groups > bestGroups)));
    if (better) {
      found = true;
      best.dim = d;
      best.needs_merge = c.needs_merge;
      best.merge_args = c.merge_args;
      best.reason = c.needs_merge ? c.reason
                                  : "dimension " + std::to_string(d) + ": written regions of slices are disjoint";
      bestMoved = c.moved_bytes;
      bestGroups = groups;
      bestAtomicOverlap = c.atomic_overlap;
    }
  }
  if (found && bestAtomicOverlap) {
    best.splittable = false;
    best.needs_merge = false;
    return best;
  }
  if (!found) {
    best.splittable = false;
    best.reason = "fewer than two work-groups in every dimension";
  }
  return best;
}

}  // namespace libsplit

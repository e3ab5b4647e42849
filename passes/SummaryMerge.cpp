#include "SummaryMerge.h"

#include "libsplit/region.h"

namespace libsplit::cc {

namespace {

// Each part once: the sets mostly agree, and every copy of a part was one
// more evaluation per slice of every split launch (ep's regions held one
// per device macro set).
AccessRegion unionRegion(const AccessRegion& a, const AccessRegion& b) {
  if (!a.known) return a;
  if (!b.known) return b;
  AccessRegion out = a;
  out.parts.insert(out.parts.end(), b.parts.begin(), b.parts.end());
  drop_repeated_parts(out);
  return out;
}

bool sameSignature(const KernelSummary& a, const KernelSummary& b) {
  if (a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const ArgSummary &x = a.args[i], &y = b.args[i];
    if (x.type != y.type || x.size != y.size || x.is_pointer != y.is_pointer ||
        x.address_space != y.address_space || x.is_image != y.is_image)
      return false;
  }
  for (int d = 0; d < 3; ++d)
    if (a.reqd_work_group_size[d] != b.reqd_work_group_size[d]) return false;
  return a.hidden_args.size() == b.hidden_args.size();
}

void notSplittable(KernelSummary& k, const std::string& why) {
  if (!k.splittable) return;
  k.splittable = false;
  k.not_splittable_reason = why;
}

void mergeInto(KernelSummary& k, const KernelSummary& other) {
  if (!sameSignature(k, other)) {
    notSplittable(k, "its signature differs between the devices' predefined macros");
    return;
  }
  for (size_t i = 0; i < k.args.size(); ++i) {
    ArgSummary& a = k.args[i];
    const ArgSummary& b = other.args[i];
    a.reads |= b.reads;
    a.writes |= b.writes;
    a.atomics |= b.atomics;
    if (a.reduction != b.reduction || a.reduction_bits != b.reduction_bits) {
      // A reduction buffer under one macro set only: no reduction, and its
      // atomics keep the kernel whole.
      a.reduction = ReductionOp::None;
      a.reduction_bits = 0;
      notSplittable(k, "global atomics (argument '" + a.name +
                           "'): its atomics differ between the devices' predefined macros");
    }
    a.read_region = unionRegion(a.read_region, b.read_region);
    a.write_region = unionRegion(a.write_region, b.write_region);
  }
  k.uses_barrier |= other.uses_barrier;
  k.uses_local_memory |= other.uses_local_memory;
  k.uses_images |= other.uses_images;
  k.uses_global_atomics |= other.uses_global_atomics;
  if (!other.splittable) notSplittable(k, other.not_splittable_reason);
}

}  // namespace

ProgramSummary mergeSummaries(const std::vector<ProgramSummary>& parts) {
  ProgramSummary out = parts.front();
  for (size_t p = 1; p < parts.size(); ++p) {
    const ProgramSummary& other = parts[p];
    for (KernelSummary& k : out.kernels) {
      if (const KernelSummary* o = other.find(k.name)) mergeInto(k, *o);
      else notSplittable(k, "defined for some devices' predefined macros only");
    }
    for (const KernelSummary& o : other.kernels)
      if (!out.find(o.name)) {
        out.kernels.push_back(o);
        notSplittable(out.kernels.back(), "defined for some devices' predefined macros only");
      }
  }
  return out;
}

}  // namespace libsplit::cc

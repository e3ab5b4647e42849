// print_region_report only: plain C++ (no LLVM/Clang), so that a driver
// without LLVM can link it. print_traced_program lives in TraceRewriter.cpp.
#include "TraceReport.h"

#include "SimplifyRegions.h"

namespace libsplit::trace {

void print_region_report(const ProgramSummary& summary, std::ostream& out) {
  unsigned buffers = 0, known = 0, indirect = 0;
  for (const KernelSummary& k : summary.kernels) {
    out << "kernel " << k.name << "\n";
    for (const ArgSummary& a : k.args) {
      if (!a.is_pointer || a.address_space == AddressSpace::Local || a.address_space == AddressSpace::Private)
        continue;
      ++buffers;
      known += a.read_region.known && a.write_region.known;
      indirect += region_mentions_load(a.read_region) || region_mentions_load(a.write_region);
      std::string who = "  arg " + std::to_string(a.index) + (a.name.empty() ? "" : " " + a.name);
      out << who << " read:  " << print_readable_region(a.read_region) << "\n";
      out << who << " write: " << print_readable_region(a.write_region) << "\n";
    }
  }
  out << "known regions: " << known << " of " << buffers << " buffer arguments";
  if (indirect) out << " (" << indirect << " resolved at launch from index buffers)";
  out << "\n";
}

}  // namespace libsplit::trace

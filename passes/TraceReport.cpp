#include "TraceReport.h"

#include "TraceRewriter.h"

namespace libsplit::trace {

void print_region_report(const ProgramSummary& summary, std::ostream& out) {
  unsigned buffers = 0, known = 0;
  for (const KernelSummary& k : summary.kernels) {
    out << "kernel " << k.name << "\n";
    for (const ArgSummary& a : k.args) {
      if (!a.is_pointer || a.address_space == AddressSpace::Local || a.address_space == AddressSpace::Private)
        continue;
      ++buffers;
      known += a.read_region.known && a.write_region.known;
      std::string who = "  arg " + std::to_string(a.index) + (a.name.empty() ? "" : " " + a.name);
      out << who << " read:  " << print_region(a.read_region) << "\n";
      out << who << " write: " << print_region(a.write_region) << "\n";
    }
  }
  out << "known regions: " << known << " of " << buffers << " buffer arguments\n";
}

bool print_traced_program(const std::string& source, const std::vector<std::string>& build_options,
                          const std::string& resource_dir, std::ostream& out, std::ostream& err) {
  TraceResult r = resource_dir.empty() ? instrument_for_tracing(source, build_options)
                                       : instrument_for_tracing(source, build_options, resource_dir);
  if (!r.ok) {
    err << r.error << "\n";
    return false;
  }
  for (const TracedKernel& k : r.kernels) {
    if (!k.instrumented) {
      out << "// UNTRACED " << k.name << "\n";
    } else {
      out << "// TRACED " << k.name << " ";
      for (size_t p = 0; p < k.traced_params.size(); ++p) out << (p ? "," : "") << k.traced_params[p];
      out << "\n";
    }
    for (const std::string& n : k.notes) out << "// NOTE " << k.name << ": " << n << "\n";
  }
  out << r.source;
  return true;
}

}  // namespace libsplit::trace

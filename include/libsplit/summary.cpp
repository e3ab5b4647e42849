#include "libsplit/summary.h"

namespace libsplit {

const KernelSummary* ProgramSummary::find(std::string_view kernel) const {
  for (const auto& k : kernels)
    if (k.name == kernel) return &k;
  return nullptr;
}

}  // namespace libsplit

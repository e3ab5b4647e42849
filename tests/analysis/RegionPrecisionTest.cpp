// Precision of the region analysis over the whole corpus (tests/corpus and
// tests/analysis/kernels): prints the share of buffer arguments whose read
// and write regions are both known, and checks that the written buffers of
// the regular kernels split along some dimension without a merge.
#include "ClToIR.h"
#include "HostBuffers.h"
#include "RegionAnnotator.h"
#include "runner.h"

#include "libsplit/split_plan.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <set>

using namespace libsplit;
using namespace libsplit::corpus;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files = list_kernel_files(LIBSPLIT_CORPUS_DIR);
  for (auto& f : list_kernel_files(LIBSPLIT_REGION_KERNELS_DIR)) files.push_back(f);
  return files;
}

std::vector<std::optional<int64_t>> scalarValues(const KernelSpec& spec) {
  std::vector<std::optional<int64_t>> out;
  for (const ArgSpec& a : spec.args) {
    if (a.kind != ArgSpec::Kind::Scalar || a.type.is_float || a.type.components != 1) {
      out.push_back(std::nullopt);
      continue;
    }
    unsigned n = a.type.scalar_size;
    uint64_t raw = 0;
    std::memcpy(&raw, a.scalar_value.data(), std::min<size_t>(n, 8));
    if (n < 8) {
      uint64_t sign = uint64_t(1) << (8 * n - 1);
      raw &= (sign << 1) - 1;
      raw = (raw ^ sign) - sign;
    }
    out.push_back(int64_t(raw));
  }
  return out;
}

}  // namespace

TEST(RegionPrecision, CorpusShareOfKnownRegions) {
  // Kernels whose every written buffer must split without a merge.
  const std::set<std::string> regular = {"matmul", "matmul_tiled", "stencil2d", "stencil3d", "nbody", "vadd",
                                         "rowsum", "transpose", "interior", "blur1d", "vec4scale", "triangle",
                                         "group_sum", "histo", "grid_reduce", "advance_particles"};
  int buffers = 0, exact = 0, evaluated = 0, regularSeen = 0, indirect = 0, indirectResolved = 0;
  for (const std::string& file : corpusFiles()) {
    std::string err;
    auto spec = load_spec(file, &err);
    ASSERT_TRUE(spec) << file << ": " << err;
    llvm::LLVMContext ctx;
    auto M = test::compileCL(spec->source, spec->build_options, ctx, &err);
    ASSERT_TRUE(M) << file << ": " << err;
    ProgramSummary s = regionSummary(*M);
    const KernelSummary* K = s.find(spec->kernel);
    ASSERT_TRUE(K) << file;
    NDRange launch;
    launch.dims = spec->dims;
    for (unsigned d = 0; d < 3; ++d)
      launch.global[d] = spec->global[d], launch.local[d] = spec->local[d], launch.offset[d] = spec->offset[d];
    test::HostBuffers initial(initial_buffers(*spec));
    for (const ArgSummary& a : K->args) {
      if (!a.is_pointer || a.address_space == AddressSpace::Local) continue;
      ++buffers;
      bool known = a.read_region.known && a.write_region.known;
      exact += known;
      // Known is not enough if a run-time check fails at the real launch:
      // count the regions that evaluate for every slice of an even split.
      bool evaluable = known;
      uint64_t size = spec->args[a.index].bytes();
      for (unsigned d = 0; d < spec->dims && evaluable; ++d)
        for (const Slice& sl : even_slices(launch, d, 2)) {
          EvalEnv env = slice_env(launch, sl, scalarValues(*spec));
          env.memory = &initial;
          evaluable &= evaluate_region(a.read_region, env, size).has_value() &&
                       evaluate_region(a.write_region, env, size).has_value();
        }
      evaluated += evaluable;
      const bool loads = region_mentions_load(a.read_region) || region_mentions_load(a.write_region);
      indirect += loads;
      indirectResolved += loads && evaluable;
      if (loads)
        std::printf("  %s arg %u: index-dependent, %s at the corpus launch\n", K->name.c_str(), a.index,
                    evaluable ? "resolved from the index buffer" : "NOT resolved (whole buffer)");
      if (known && !evaluable)
        std::printf("  %s arg %u: known but not evaluable at the corpus launch\n", K->name.c_str(), a.index);
      if (!known)
        std::printf("  %s arg %u: %s\n", K->name.c_str(), a.index,
                    (!a.read_region.known ? a.read_region : a.write_region).unknown_reason.c_str());
    }
    {
      NDRange nd;
      nd.dims = spec->dims;
      for (unsigned d = 0; d < 3; ++d)
        nd.global[d] = spec->global[d], nd.local[d] = spec->local[d], nd.offset[d] = spec->offset[d];
      std::vector<uint64_t> sizes;
      for (const ArgSpec& a : spec->args) sizes.push_back(a.kind == ArgSpec::Kind::Buffer ? a.bytes() : 0);
      SplitChoice c = choose_split_dim(*K, scalarValues(*spec), nd, sizes, 2, &initial);
      if (regular.count(K->name)) {
        ++regularSeen;
        EXPECT_TRUE(c.splittable) << K->name << ": " << c.reason;
        EXPECT_FALSE(c.needs_merge) << K->name << ": " << c.reason;
      }
      std::printf("  %-14s %s: %s\n", K->name.c_str(),
                  !c.splittable ? "NO SPLIT" : ("split dim " + std::to_string(c.dim) + (c.needs_merge ? " MERGE" : "")).c_str(),
                  c.reason.c_str());
    }
  }
  double share = buffers ? 100.0 * exact / buffers : 0;
  std::printf("region precision: %d of %d buffer arguments exact (%.1f %%); %d evaluable at the corpus launch "
              "(%.1f %%)\n",
              exact, buffers, share, evaluated, buffers ? 100.0 * evaluated / buffers : 0.0);
  std::printf("indirect arguments: %d index-dependent, %d resolved at run time from the index buffers\n", indirect,
              indirectResolved);
  EXPECT_GE(regularSeen, 12);
  EXPECT_GE(indirect, 1);  // gather_index.cl
  EXPECT_GE(share, 85.0);  // the corpus has deliberate indirections; target 95 on regular code
}

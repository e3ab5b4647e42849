// For every corpus kernel: the partition-ready program run as slices of the
// NDRange (every dimension, even and random uneven cuts in whole work-groups,
// on one device and spread over two) leaves every buffer byte-identical to
// the original program run as one full launch.
//
// The compiler runs as the libsplit-cc tool, out of process, as the runtime
// uses it: PoCL links its own (older) LLVM, which cannot share a process
// with LLVM 16.
#include "runner.h"
#include "test_util.h"

#include "libsplit/summary.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace libsplit;
using namespace libsplit::corpus;

namespace {

Runner& runner() {
  static Runner r = [] {
    std::string err;
    auto created = Runner::create(&err);
    if (!created) {
      std::fprintf(stderr, "no OpenCL: %s\n", err.c_str());
      std::abort();
    }
    return std::move(*created);
  }();
  return r;
}

size_t firstDifference(const std::vector<Bytes>& a, const std::vector<Bytes>& b, size_t* arg) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    for (size_t j = 0; j < a[i].size() && j < b[i].size(); ++j)
      if (a[i][j] != b[i][j]) {
        *arg = i;
        return j;
      }
  *arg = a.size();
  return 0;
}

std::string describe(const std::vector<SliceRun>& slices) {
  std::string s;
  for (const auto& r : slices)
    s += " [dim " + std::to_string(r.dim) + " groups " + std::to_string(r.first_group) + "+" +
         std::to_string(r.group_count) + " dev " + std::to_string(r.device) + "]";
  return s;
}

class PartitionReady : public ::testing::TestWithParam<std::string> {};

TEST_P(PartitionReady, SlicesMatchTheFullLaunch) {
  std::string err;
  auto spec = load_spec(GetParam(), &err);
  ASSERT_TRUE(spec) << err;

  std::string dir = cctest::makeTempDir();
  cctest::ToolRun tool = cctest::runTool(
      "--no-cache -o '" + dir + "' '" + GetParam() + "' -- " + spec->build_options, dir);
  ASSERT_EQ(tool.exitCode, 0) << tool.err;
  std::string partitionReady = cctest::readFile(dir + "/partition-ready.cl");
  auto summary = parse_summary(cctest::readFile(dir + "/summary.json"), &err);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(summary) << err;
  const KernelSummary* k = summary->find(spec->kernel);
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), spec->args.size());
  ASSERT_EQ(k->hidden_args.size(), 1u);
  EXPECT_EQ(k->hidden_args[0].type, "ulong4");
  if (spec->has_tag("nosplit")) {
    EXPECT_FALSE(k->splittable);
    return;
  }
  ASSERT_TRUE(k->splittable) << k->not_splittable_reason;
  // Reduction buffers are combined by their operation, not by changed bytes:
  // only the sequential model applies to them.
  const bool reduction = spec->has_tag("reduction");
  if (reduction) {
    EXPECT_TRUE(std::any_of(k->args.begin(), k->args.end(),
                            [](const ArgSummary& a) { return a.reduction != ReductionOp::None; }))
        << "tagged reduction, but no argument is a reduction buffer";
  }
  EXPECT_EQ(k->uses_global_atomics, spec->has_tag("atomics"));
  EXPECT_EQ(k->uses_barrier, spec->has_tag("barrier"));
  EXPECT_EQ(k->uses_local_memory, spec->has_tag("local"));

  auto initial = initial_buffers(*spec, 7);
  RunResult full = runner().run_full(*spec, initial);
  ASSERT_TRUE(full.ok) << full.error;
  ASSERT_NE(full.buffers, initial) << "the kernel wrote nothing: the comparison would be empty";

  size_t devices = runner().device_count();
  auto check = [&](const std::vector<SliceRun>& slices, SliceMerge merge, const char* how) {
    RunResult split = runner().run_slices(*spec, partitionReady, initial, slices, merge);
    ASSERT_TRUE(split.ok) << split.error << "\n" << partitionReady;
    size_t arg = 0;
    size_t byte = firstDifference(full.buffers, split.buffers, &arg);
    EXPECT_EQ(full.buffers, split.buffers)
        << how << describe(slices) << ": first difference in argument " << arg << " ("
        << (arg < spec->args.size() ? spec->args[arg].name : "?") << ") byte " << byte;
  };
  for (unsigned dim = 0; dim < spec->dims; ++dim) {
    check(even_slices(*spec, dim, 1), SliceMerge::Sequential, "one slice");
    check(even_slices(*spec, dim, 3), SliceMerge::Sequential, "even thirds");
    for (uint64_t seed = 1; seed <= 2 && !reduction; ++seed)
      check(random_slices(*spec, dim, 4, seed * 31 + dim, devices), SliceMerge::ChangedBytes,
            "random cut over devices");
  }
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(info.param.find_last_of('/') + 1);
  name = name.substr(0, name.size() - 3);
  for (char& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// The shared corpus plus tests/cc/kernels: rewrite corner cases in the same
// format, kept apart because other corpus users need not handle them.
std::vector<std::string> kernelFiles() {
  std::vector<std::string> files = list_kernel_files(LIBSPLIT_CORPUS_DIR);
  for (auto& f : list_kernel_files(LIBSPLIT_CC_KERNELS_DIR)) files.push_back(f);
  return files;
}

INSTANTIATE_TEST_SUITE_P(Corpus, PartitionReady, ::testing::ValuesIn(kernelFiles()), testName);

TEST(PartitionReadyEnv, HasTwoDevices) {
  // The random cuts above spread slices over devices only when there are
  // several (ctest sets POCL_DEVICES="pthread basic").
  EXPECT_GE(runner().device_count(), 2u);
}

}  // namespace

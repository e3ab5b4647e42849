// Tests of the corpus runner itself: spec parsing, deterministic inputs,
// slicings that cover the NDRange, and every corpus kernel running unsplit,
// writing something, with the same bytes twice.
#include "runner.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace libsplit::corpus;

namespace {

Runner& runner() {
  static Runner r = [] {
    std::string err;
    auto created = Runner::create(&err);
    if (!created) {
      ADD_FAILURE() << err;
      std::abort();
    }
    return std::move(*created);
  }();
  return r;
}

TEST(CorpusSpec, ParsesEveryField) {
  std::string err;
  auto spec = parse_spec(
      "// LAUNCH kernel=k global=64,32 local=8,4 offset=1,2\n"
      "// BUILD -DA=1\n// BUILD -DB=2\n// TAGS barrier\n"
      "// ARG a buffer float4 10 iota ro\n// ARG n scalar int -7\n"
      "// ARG v scalar float2 1.5,2\n// ARG t local uint 16\n",
      &err);
  ASSERT_TRUE(spec) << err;
  EXPECT_EQ(spec->kernel, "k");
  EXPECT_EQ(spec->dims, 2u);
  EXPECT_EQ(spec->global[1], 32u);
  EXPECT_EQ(spec->local[0], 8u);
  EXPECT_EQ(spec->offset[1], 2u);
  EXPECT_EQ(spec->groups(0), 8u);
  EXPECT_EQ(spec->build_options, "-DA=1 -DB=2");
  EXPECT_TRUE(spec->has_tag("barrier"));
  ASSERT_EQ(spec->args.size(), 4u);
  EXPECT_EQ(spec->args[0].bytes(), 160u);
  EXPECT_TRUE(spec->args[0].read_only);
  int n = 0;
  std::memcpy(&n, spec->args[1].scalar_value.data(), 4);
  EXPECT_EQ(n, -7);
  float v[2];
  std::memcpy(v, spec->args[2].scalar_value.data(), 8);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_EQ(v[1], 2.0f);
  EXPECT_EQ(spec->args[3].kind, ArgSpec::Kind::Local);
  EXPECT_EQ(spec->args[3].bytes(), 64u);
}

TEST(CorpusSpec, RejectsBadSpecs) {
  std::string err;
  EXPECT_FALSE(parse_spec("__kernel void k() {}", &err));
  EXPECT_NE(err.find("LAUNCH"), std::string::npos);
  EXPECT_FALSE(parse_spec("// LAUNCH kernel=k global=10 local=3\n", &err));
  EXPECT_FALSE(parse_spec("// LAUNCH kernel=k global=8 local=4\n// ARG a buffer flot 4\n", &err));
  EXPECT_NE(err.find("flot"), std::string::npos);
  EXPECT_FALSE(parse_spec("// LAUNCH kernel=k global=8 local=4\n// ARG n scalar int x\n", &err));
  EXPECT_FALSE(parse_spec("// LAUNCH kernel=k global=8 local=4\n// ARG a buffer int 4 rand\n", &err));
}

TEST(CorpusSpec, InitialBuffersAreDeterministic) {
  auto spec = parse_spec(
      "// LAUNCH kernel=k global=8 local=4\n// ARG a buffer float 64 random\n"
      "// ARG b buffer int 8 iota\n// ARG c buffer uchar 3 zero\n// ARG n scalar int 1\n");
  ASSERT_TRUE(spec);
  auto x = initial_buffers(*spec, 5), y = initial_buffers(*spec, 5), z = initial_buffers(*spec, 6);
  EXPECT_EQ(x, y);
  EXPECT_NE(x[0], z[0]);
  EXPECT_TRUE(x[3].empty());
  EXPECT_EQ(x[2], Bytes(3, 0));
  int b[8];
  std::memcpy(b, x[1].data(), sizeof(b));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[i], i);
}

TEST(CorpusSpec, SlicingsCoverEveryGroupOnce) {
  auto spec = parse_spec("// LAUNCH kernel=k global=96,8 local=4,2\n");
  ASSERT_TRUE(spec);
  for (unsigned dim = 0; dim < 2; ++dim) {
    std::vector<std::vector<SliceRun>> cuts = {even_slices(*spec, dim, 5, 2)};
    for (uint64_t seed = 0; seed < 20; ++seed) cuts.push_back(random_slices(*spec, dim, 6, seed, 2));
    for (const auto& slices : cuts) {
      uint64_t next = 0;
      for (const auto& s : slices) {
        EXPECT_EQ(s.dim, dim);
        EXPECT_EQ(s.first_group, next);
        EXPECT_GT(s.group_count, 0u);
        EXPECT_LT(s.device, 2u);
        next += s.group_count;
      }
      EXPECT_EQ(next, spec->groups(dim));
    }
  }
}

class CorpusKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusKernel, FullLaunchRunsAndIsDeterministic) {
  // One device only: tests/cc compares slices on every device against this
  // same full launch, which covers cross-device agreement without compiling
  // every original program for every device twice.
  std::string err;
  auto spec = load_spec(GetParam(), &err);
  ASSERT_TRUE(spec) << err;
  auto initial = initial_buffers(*spec);
  auto first = runner().run_full(*spec, initial, {}, 0);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_NE(first.buffers, initial) << "the kernel wrote nothing";
  auto again = runner().run_full(*spec, initial, {}, 0);
  ASSERT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.buffers, first.buffers);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(info.param.find_last_of('/') + 1);
  name = name.substr(0, name.size() - 3);
  for (char& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, CorpusKernel,
                         ::testing::ValuesIn(list_kernel_files(LIBSPLIT_CORPUS_DIR)), test_name);

}  // namespace

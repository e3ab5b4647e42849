#include "libsplit/summary.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {

ExprPtr expr(const char* text) {
  std::string err;
  ExprPtr e = parse_expr(text, &err);
  EXPECT_TRUE(e) << text << ": " << err;
  return e;
}

ProgramSummary sample() {
  ProgramSummary s;
  s.tool = "libsplit-cc test";
  KernelSummary k;
  k.name = "saxpy";
  ArgSummary x;
  x.index = 0;
  x.name = "x";
  x.type = "const float*";
  x.address_space = AddressSpace::Global;
  x.is_pointer = true;
  x.size = 8;
  x.is_const = true;
  x.is_restrict = true;
  x.reads = true;
  GuardedRange part;
  part.lo = expr("(* gid0 4)");
  part.hi = expr("(+ (* gid0 4) 3)");
  part.guards.push_back(Guard{NDVar::GlobalId, 0, nullptr, expr("(- (arg 3) 1)")});
  part.guards.push_back(Guard{NDVar::GroupId, 2, expr("0"), nullptr});
  x.read_region.parts.push_back(part);
  x.write_region = AccessRegion{};  // known, never written
  k.args.push_back(x);
  ArgSummary y = x;
  y.index = 1;
  y.name = "y";
  y.type = "float*";
  y.is_const = false;
  y.writes = true;
  y.atomics = true;
  y.reduction = ReductionOp::UMax;
  y.reduction_bits = 64;
  y.write_region = AccessRegion{false, "indirection at line 12 \"quoted\"", {}};
  k.args.push_back(y);
  ArgSummary tmp;
  tmp.index = 2;
  tmp.name = "tmp";
  tmp.type = "float*";
  tmp.address_space = AddressSpace::Local;
  tmp.is_pointer = true;
  tmp.size = 8;
  k.args.push_back(tmp);
  ArgSummary n;
  n.index = 3;
  n.name = "n";
  n.type = "ulong";
  n.size = 8;
  k.args.push_back(n);
  k.reqd_work_group_size[0] = 64;
  k.reqd_work_group_size[1] = 1;
  k.reqd_work_group_size[2] = 1;
  k.work_group_size_hint[0] = 32;
  k.uses_barrier = true;
  k.uses_local_memory = true;
  k.hidden_args.push_back({"__libsplit_ctx", "ulong4", "split ctx"});
  s.kernels.push_back(k);
  KernelSummary img;
  img.name = "blur_image";
  img.uses_images = true;
  img.splittable = false;
  img.not_splittable_reason = "images are not supported";
  ArgSummary im;
  im.name = "src";
  im.type = "image2d_t";
  im.is_image = true;
  im.address_space = AddressSpace::Global;
  img.args.push_back(im);
  s.kernels.push_back(img);
  return s;
}

void expect_same(const AccessRegion& a, const AccessRegion& b) {
  EXPECT_EQ(print_region(a), print_region(b));
  EXPECT_EQ(a.known, b.known);
  EXPECT_EQ(a.unknown_reason, b.unknown_reason);
  ASSERT_EQ(a.parts.size(), b.parts.size());
}

TEST(Summary, RoundTripsThroughJson) {
  ProgramSummary s = sample();
  std::string text = to_json(s);
  std::string err;
  auto back = parse_summary(text, &err);
  ASSERT_TRUE(back) << err << "\n" << text;
  EXPECT_EQ(to_json(*back), text);
  EXPECT_EQ(back->tool, s.tool);
  ASSERT_EQ(back->kernels.size(), 2u);
  const KernelSummary* k = back->find("saxpy");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->args.size(), 4u);
  EXPECT_EQ(k->args[0].type, "const float*");
  EXPECT_EQ(k->args[0].address_space, AddressSpace::Global);
  EXPECT_TRUE(k->args[0].is_const && k->args[0].is_restrict && k->args[0].reads);
  EXPECT_FALSE(k->args[0].writes);
  EXPECT_TRUE(k->args[1].atomics);
  EXPECT_EQ(k->args[1].reduction, ReductionOp::UMax);
  EXPECT_EQ(k->args[1].reduction_bits, 64u);
  EXPECT_EQ(k->args[0].reduction, ReductionOp::None);
  EXPECT_EQ(k->args[2].address_space, AddressSpace::Local);
  EXPECT_EQ(k->args[3].size, 8u);
  EXPECT_FALSE(k->args[3].is_pointer);
  EXPECT_EQ(k->reqd_work_group_size[0], 64u);
  EXPECT_EQ(k->work_group_size_hint[0], 32u);
  EXPECT_TRUE(k->uses_barrier && k->uses_local_memory);
  ASSERT_EQ(k->hidden_args.size(), 1u);
  EXPECT_EQ(k->hidden_args[0].type, "ulong4");
  for (size_t i = 0; i < 4; ++i) {
    expect_same(k->args[i].read_region, s.kernels[0].args[i].read_region);
    expect_same(k->args[i].write_region, s.kernels[0].args[i].write_region);
  }
  const Guard& g = k->args[0].read_region.parts[0].guards[1];
  EXPECT_EQ(g.var, NDVar::GroupId);
  EXPECT_EQ(g.dim, 2u);
  EXPECT_EQ(g.hi, nullptr);
  const KernelSummary* img = back->find("blur_image");
  ASSERT_NE(img, nullptr);
  EXPECT_FALSE(img->splittable);
  EXPECT_TRUE(img->args[0].is_image);
  EXPECT_EQ(img->not_splittable_reason, "images are not supported");
  EXPECT_EQ(back->find("nope"), nullptr);
}

TEST(Summary, MalformedInputIsAnError) {
  std::string good = to_json(sample());
  struct Case {
    std::string text, expect_in_error;
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    size_t p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return t.replace(p, from.size(), to);
  };
  const Case cases[] = {
      {"", "JSON"},
      {good.substr(0, good.size() / 2), "JSON"},
      {"[]", "object"},
      {"{\"version\": 2, \"kernels\": []}", "version"},
      {"{\"version\": 1}", "kernels"},
      {"{\"version\": 1, \"kernels\": [{\"args\": []}]}", "name"},
      {replace("\"is_const\": true", "\"is_const\": 1"), "is_const"},
      {replace("\"address_space\": \"local\"", "\"address_space\": \"shared\""), "shared"},
      {replace("(* gid0 4)", "(* gid0"), "lo"},
      {replace("\"var\": \"gid0\"", "\"var\": \"(arg 1)\""), "var"},
      {replace("\"size\": 8", "\"size\": -8"), "size"},
      {replace("\"reqd_work_group_size\": [", "\"reqd_work_group_size\": [7, "),
       "reqd_work_group_size"},
      {replace("\"work_group_size_hint\": [", "\"work_group_size_hint\": [1.5, "),
       "work_group_size_hint"},
      {replace("\"index\": 3", "\"index\": 4294967296"), "index"},
      {replace("\"kernels\": [", "\"kernels\": [1, "), "kernels[0]"},
  };
  for (const Case& c : cases) {
    std::string err;
    EXPECT_FALSE(parse_summary(c.text, &err)) << c.text;
    EXPECT_NE(err.find(c.expect_in_error), std::string::npos) << "error was: " << err;
  }
}

// Malformed JSON text: the error says where (line and column), so that a
// hand-edited or truncated summary.json can be fixed.
TEST(Summary, MalformedJsonNamesLineAndColumn) {
  const char* bad[] = {"{",     "[1,]",  "{\"a\" 1}", "{\"a\":1,}", "01",        "1.",
                       "\"abc", "tru",   "[1] [2]",  "{1:2}",      "\"\\ud800\"", "\"a\nb\""};
  for (const char* text : bad) {
    std::string err;
    EXPECT_FALSE(parse_summary(text, &err)) << text;
    EXPECT_NE(err.find("at line "), std::string::npos) << text << " -> " << err;
  }
  std::string err;
  EXPECT_FALSE(parse_summary("{\"version\": 1,\n  \"kernels\": [1,\n   x]}", &err));
  EXPECT_NE(err.find("line 3, column 4"), std::string::npos) << err;
}

// Values at the edges of their types survive the round trip exactly: 64-bit
// sizes, control characters and quotes in text; bytes that are not UTF-8 (a
// reason quoting a Latin-1 source line) are written as U+FFFD, not dropped and
// not an exception.
TEST(Summary, EdgeValuesRoundTrip) {
  ProgramSummary s = sample();
  s.kernels[0].args[3].size = UINT64_MAX;
  s.kernels[0].reqd_work_group_size[2] = uint64_t(1) << 63;
  s.kernels[0].args[1].write_region.unknown_reason = "tab\t ctl\x01 \"q\" back\\ caf\xc3\xa9";
  s.kernels[1].not_splittable_reason = "latin-1 \xe9 here";
  std::string err;
  auto back = parse_summary(to_json(s), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->kernels[0].args[3].size, UINT64_MAX);
  EXPECT_EQ(back->kernels[0].reqd_work_group_size[2], uint64_t(1) << 63);
  EXPECT_EQ(back->kernels[0].args[1].write_region.unknown_reason,
            s.kernels[0].args[1].write_region.unknown_reason);
  EXPECT_EQ(back->kernels[1].not_splittable_reason, "latin-1 \xef\xbf\xbd here");
}

TEST(Summary, UnknownFieldsAreIgnored) {
  std::string err;
  auto s = parse_summary(
      R"({"version": 1, "future": {"x": [1]}, "kernels": [{"name": "k", "extra": 3}]})", &err);
  ASSERT_TRUE(s) << err;
  ASSERT_EQ(s->kernels.size(), 1u);
  EXPECT_TRUE(s->kernels[0].splittable);
}

// Reduction buffers: null or a known op and width; what this reader cannot
// use (a newer op, another width) reads as no reduction, a bad type is an error.
TEST(Summary, ReductionsReadConservatively) {
  auto arg = [](const std::string& reduction) {
    std::string err;
    auto s = parse_summary(R"({"version": 1, "kernels": [{"name": "k", "args": [{"index": 0,
        "is_pointer": true, "atomics": true, "reduction": )" + reduction + "}]}]}", &err);
    EXPECT_TRUE(s || reduction == "3") << err;
    return s ? std::optional<ArgSummary>(s->kernels[0].args[0]) : std::nullopt;
  };
  auto a = arg(R"({"op": "xor", "bits": 32})");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->reduction, ReductionOp::Xor);
  EXPECT_EQ(a->reduction_bits, 32u);
  for (const char* unusable : {"null", R"({"op": "mul", "bits": 32})", R"({"op": "add", "bits": 16})",
                               R"({"op": "", "bits": 32})", R"({"bits": 32})"}) {
    a = arg(unusable);
    ASSERT_TRUE(a) << unusable;
    EXPECT_EQ(a->reduction, ReductionOp::None) << unusable;
    EXPECT_EQ(a->reduction_bits, 0u) << unusable;
  }
  EXPECT_FALSE(arg("3"));
}

}  // namespace

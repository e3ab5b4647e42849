// Region algebra and runtime evaluator: text round trip, sound interval
// arithmetic, slice environments, guarded evaluation, range lists, split plan.
#include "libsplit/region.h"
#include "libsplit/split_plan.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

using namespace libsplit;

namespace {

ExprPtr P(const char* text) {
  std::string err;
  ExprPtr e = parse_expr(text, &err);
  EXPECT_TRUE(e) << text << ": " << err;
  return e;
}

GuardedRange part(const char* lo, const char* hi) { return GuardedRange{{}, P(lo), P(hi)}; }

NDRange nd1(uint64_t global, uint64_t local, uint64_t offset = 0) {
  NDRange nd;
  nd.dims = 1;
  nd.global[0] = global;
  nd.local[0] = local;
  nd.offset[0] = offset;
  return nd;
}

}  // namespace

TEST(RegionText, RoundTrip) {
  for (const char* t : {"0", "-17", "(arg 3)", "gid0", "goff2", "lsz1", "ngr0",
                        "(+ (* gid0 (arg 3)) 4)", "(range 0 (- (arg 2) 1))",
                        "(min (max grp1 -5) (/ gsz0 lid2))", "(fits_i32 (+ gid0 1))", "(fits_u8 (arg 0))", "(wrap_i32 gid1)", "(wrap_u16 (* 3 lid0))"}) {
    ExprPtr e = P(t);
    ASSERT_TRUE(e);
    EXPECT_EQ(print_expr(*e), t);
  }
  EXPECT_EQ(print_expr(*P("  ( +   gid0\n 4 ) ")), "(+ gid0 4)");
}

TEST(RegionText, StructuralEquality) {
  EXPECT_TRUE(same_expr(*P("(+ (* gid0 (arg 3)) 4)"), *P("(+ (* gid0 (arg 3)) 4)")));
  EXPECT_FALSE(same_expr(*P("(+ (* gid0 (arg 3)) 4)"), *P("(+ (* gid0 (arg 2)) 4)")));
  EXPECT_FALSE(same_expr(*P("gid0"), *P("lid0")));
  EXPECT_FALSE(same_expr(*P("(fits_i32 gid0)"), *P("(fits_u32 gid0)")));
  EXPECT_FALSE(same_expr(*P("(fits_i32 gid0)"), *P("(fits_i16 gid0)")));
}

TEST(RegionText, RejectsMalformed) {
  for (const char* t : {"", "(", "(+ 1)", "(+ 1 2 3)", "(foo 1 2)", "gid3", "gidx", "(arg -1)",
                        "(arg x)", "1 2", "(fits_i0 1)", "(fits_i65 1)", "(fits_i32 1 2)", ")", "99999999999999999999"}) {
    std::string err;
    EXPECT_EQ(parse_expr(t, &err), nullptr) << t;
    EXPECT_FALSE(err.empty()) << t;
  }
}

TEST(RegionEval, IntervalArithmetic) {
  EvalEnv env;
  env.args = {std::nullopt, 10, -3};
  env.vars[0][0] = {4, 7};  // gid0
  auto ev = [&](const char* t) { return eval_expr(*P(t), env); };
  auto eq = [](std::optional<Interval> i, int64_t lo, int64_t hi) {
    ASSERT_TRUE(i);
    EXPECT_EQ(i->lo, lo);
    EXPECT_EQ(i->hi, hi);
  };
  eq(ev("(+ gid0 (arg 1))"), 14, 17);
  eq(ev("(- (arg 1) gid0)"), 3, 6);
  eq(ev("(* gid0 (arg 2))"), -21, -12);
  eq(ev("(/ gid0 2)"), 2, 3);
  eq(ev("(/ (* gid0 -1) 2)"), -3, -2);  // truncation toward zero
  eq(ev("(/ 7 (arg 2))"), -2, -2);
  eq(ev("(min gid0 5)"), 4, 5);
  eq(ev("(max gid0 5)"), 5, 7);
  eq(ev("(range 0 (- (arg 1) 1))"), 0, 9);
  eq(ev("(fits_i32 (* gid0 (arg 2)))"), -21, -12);
  EXPECT_FALSE(ev("(fits_u32 (* gid0 (arg 2)))"));  // negative: not a uint
  EXPECT_FALSE(ev("(fits_i8 (* gid0 100))"));       // 700 > 127
  eq(ev("(fits_u64 gid0)"), 4, 7);
  eq(ev("(wrap_u8 (+ gid0 250))"), 0, 255);          // 254..257 crosses 256
  eq(ev("(wrap_u8 (+ gid0 252))"), 0, 3);            // 256..259 -> 0..3
  eq(ev("(wrap_i8 (+ gid0 120))"), 124, 127);       // fits
  eq(ev("(wrap_i8 (+ gid0 125))"), -127, -124);      // 129..132, all past 127
  eq(ev("(wrap_i8 (+ gid0 122))"), -128, 127);       // 126..129 crosses 127/128
  eq(ev("(wrap_i8 (+ gid0 130))"), -122, -119);      // 134..137 -> -122..-119
  eq(ev("(wrap_u32 (* gid0 -1))"), 4294967289, 4294967292);
  eq(ev("(wrap_i32 (* gid0 1073741824))"), -2147483648, 2147483647);  // 2^32..7*2^30 crosses
  EXPECT_FALSE(ev("(wrap_u64 (* gid0 -1))"));       // beyond int64
  eq(ev("(wrap_u64 gid0)"), 4, 7);
  EXPECT_FALSE(ev("(arg 0)"));          // a buffer: no value
  EXPECT_FALSE(ev("(arg 7)"));          // out of range
  EXPECT_FALSE(ev("(/ 1 (- gid0 5))")); // divisor interval holds 0
  EXPECT_FALSE(ev("(* 9223372036854775807 gid0)"));
  EXPECT_FALSE(ev("(+ 9223372036854775807 gid0)"));
  EXPECT_FALSE(ev("(- -9223372036854775807 gid0)"));
}

// Interval hull soundness against brute force over random small expressions.
TEST(RegionEval, SoundAgainstEnumeration) {
  std::mt19937 rng(7);
  auto leaf = [&]() -> ExprPtr {
    switch (rng() % 3) {
      case 0: return Expr::constant(int64_t(rng() % 21) - 10);
      case 1: return Expr::ndvar(NDVar::GlobalId, 0);
      default: return Expr::ndvar(NDVar::LocalId, 0);
    }
  };
  std::function<ExprPtr(int)> gen = [&](int depth) -> ExprPtr {
    if (depth == 0 || rng() % 4 == 0) return leaf();
    if (rng() % 5 == 0) return make_wrap(gen(depth - 1), 3 + rng() % 4, rng() % 2);
    static const Expr::Kind ops[] = {Expr::Kind::Add, Expr::Kind::Sub, Expr::Kind::Mul,
                                     Expr::Kind::Div, Expr::Kind::Min, Expr::Kind::Max};
    return Expr::binary(ops[rng() % 6], gen(depth - 1), gen(depth - 1));
  };
  // Concrete evaluation at one point; nullopt on division by zero.
  std::function<std::optional<int64_t>(const Expr&, int64_t, int64_t)> at =
      [&](const Expr& e, int64_t g, int64_t l) -> std::optional<int64_t> {
    if (e.kind == Expr::Kind::Const) return e.value;
    if (e.kind == Expr::Kind::Var) return e.var == NDVar::GlobalId ? g : l;
    if (e.kind == Expr::Kind::WrapSigned || e.kind == Expr::Kind::WrapUnsigned) {
      auto x = at(*e.lhs, g, l);
      if (!x) return std::nullopt;
      int64_t period = int64_t(1) << e.value, tmin = e.kind == Expr::Kind::WrapSigned ? -period / 2 : 0;
      int64_t r = ((*x - tmin) % period + period) % period;
      return r + tmin;
    }
    auto a = at(*e.lhs, g, l), b = at(*e.rhs, g, l);
    if (!a || !b) return std::nullopt;
    switch (e.kind) {
      case Expr::Kind::Add: return *a + *b;
      case Expr::Kind::Sub: return *a - *b;
      case Expr::Kind::Mul: return *a * *b;
      case Expr::Kind::Div: if (*b == 0) return std::nullopt; return *a / *b;
      case Expr::Kind::Min: return std::min(*a, *b);
      default: return std::max(*a, *b);
    }
  };
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    ExprPtr e = gen(4);
    EvalEnv env;
    int64_t g0 = int64_t(rng() % 20) - 10, l0 = int64_t(rng() % 20) - 10;
    env.vars[0][0] = {g0, g0 + int64_t(rng() % 6)};
    env.vars[1][0] = {l0, l0 + int64_t(rng() % 6)};
    auto hull = eval_expr(*e, env);
    if (!hull) continue;
    ++checked;
    for (int64_t g = env.vars[0][0].lo; g <= env.vars[0][0].hi; ++g)
      for (int64_t l = env.vars[1][0].lo; l <= env.vars[1][0].hi; ++l) {
        auto v = at(*e, g, l);
        ASSERT_TRUE(v) << print_expr(*e);  // hull known => no division by zero
        ASSERT_GE(*v, hull->lo) << print_expr(*e);
        ASSERT_LE(*v, hull->hi) << print_expr(*e);
      }
  }
  EXPECT_GT(checked, 1000);
}

TEST(RegionEval, SliceEnvironment) {
  NDRange nd;
  nd.dims = 2;
  nd.global[0] = 64, nd.local[0] = 8, nd.offset[0] = 100;
  nd.global[1] = 32, nd.local[1] = 4, nd.offset[1] = 0;
  EvalEnv env = slice_env(nd, Slice{0, 2, 3}, {});
  auto v = [&](NDVar x, unsigned d) { return env.vars[unsigned(x)][d]; };
  EXPECT_EQ(v(NDVar::GlobalId, 0).lo, 116);
  EXPECT_EQ(v(NDVar::GlobalId, 0).hi, 139);
  EXPECT_EQ(v(NDVar::GroupId, 0).lo, 2);
  EXPECT_EQ(v(NDVar::GroupId, 0).hi, 4);
  EXPECT_EQ(v(NDVar::LocalId, 0).hi, 7);
  EXPECT_EQ(v(NDVar::GlobalSize, 0).lo, 64);  // full launch, not the slice
  EXPECT_EQ(v(NDVar::NumGroups, 0).hi, 8);
  EXPECT_EQ(v(NDVar::GlobalOffset, 0).lo, 100);
  EXPECT_EQ(v(NDVar::GlobalId, 1).lo, 0);
  EXPECT_EQ(v(NDVar::GlobalId, 1).hi, 31);
  EXPECT_EQ(v(NDVar::GroupId, 1).hi, 7);
  // Unused dimension: OpenCL's values (id 0, size 1).
  EXPECT_EQ(v(NDVar::GlobalId, 2).hi, 0);
  EXPECT_EQ(v(NDVar::GlobalSize, 2).lo, 1);
}

TEST(RegionEval, GuardedRegion) {
  // if gid0 <= n-1: float c[gid0] ; n = arg 1
  AccessRegion r;
  GuardedRange g = part("(* gid0 4)", "(+ (* gid0 4) 3)");
  g.guards.push_back(Guard{NDVar::GlobalId, 0, nullptr, P("(- (arg 1) 1)")});
  r.parts.push_back(g);
  NDRange nd = nd1(64, 16);
  auto at = [&](Slice s, int64_t n) { return evaluate_region(r, slice_env(nd, s, {std::nullopt, n}), 1 << 20); };
  auto a = at(Slice{0, 0, 2}, 50);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->size(), 1u);
  EXPECT_EQ((*a)[0].begin, 0u);
  EXPECT_EQ((*a)[0].end, 128u);
  auto b = at(Slice{0, 2, 2}, 50);  // gid 32..63 narrowed to 32..49
  ASSERT_TRUE(b);
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].begin, 128u);
  EXPECT_EQ((*b)[0].end, 200u);
  auto c = at(Slice{0, 3, 1}, 40);  // guard false for the whole slice
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->empty());
  // Clamped to the buffer.
  auto d = evaluate_region(r, slice_env(nd, Slice{0, 0, 4}, {std::nullopt, 1000}), 100);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ((*d)[0].end, 100u);
  // Unknown region or argument: the caller takes the whole buffer.
  EXPECT_FALSE(evaluate_region(AccessRegion{false, "why", {}}, slice_env(nd, Slice{0, 0, 1}, {}), 64));
  AccessRegion scaled;
  scaled.parts.push_back(part("(* gid0 (arg 1))", "(+ (* gid0 (arg 1)) 3)"));
  EXPECT_FALSE(evaluate_region(scaled, slice_env(nd, Slice{0, 0, 1}, {}), 64));
  // A guard that cannot be evaluated does not narrow (sound), nor fail.
  auto unguarded = evaluate_region(r, slice_env(nd, Slice{0, 0, 1}, {}), 1 << 20);
  ASSERT_TRUE(unguarded);
  EXPECT_EQ((*unguarded)[0].end, 64u);
  // Known and never accessed.
  auto none = evaluate_region(AccessRegion{}, slice_env(nd, Slice{0, 0, 1}, {}), 64);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  // An empty slice touches nothing.
  auto empty = at(Slice{0, 1, 0}, 50);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(RegionEval, MergesAndCaps) {
  std::vector<ByteRange> r = {{50, 60}, {0, 10}, {10, 20}, {55, 70}, {5, 5}};
  normalize_ranges(r);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].begin, 0u);
  EXPECT_EQ(r[0].end, 20u);
  EXPECT_EQ(r[1].begin, 50u);
  EXPECT_EQ(r[1].end, 70u);
  std::vector<ByteRange> many;
  for (uint64_t i = 0; i < 20; ++i) many.push_back({i * 100 + (i == 7 ? 95 : 0), i * 100 + 10 + (i == 7 ? 95 : 0)});
  normalize_ranges(many, 8);
  ASSERT_EQ(many.size(), 8u);
  uint64_t covered = 0;
  for (size_t i = 0; i < many.size(); ++i) {
    if (i) {
      EXPECT_LT(many[i - 1].end, many[i].begin);
    }
    covered += many[i].end - many[i].begin;
  }
  EXPECT_EQ(many.front().begin, 0u);
  EXPECT_EQ(many.back().end, 1910u);
  EXPECT_GE(covered, 200u);
  EXPECT_TRUE(ranges_disjoint({{0, 10}, {20, 30}}, {{10, 20}, {30, 40}}));
  EXPECT_FALSE(ranges_disjoint({{0, 10}, {20, 30}}, {{29, 40}}));
}

TEST(SplitPlan, PicksDimensionWithDisjointWrites) {
  // C[row*n + col] with row = gid1, col = gid0: rows are contiguous, so only a
  // split along dimension 1 gives disjoint written ranges.
  KernelSummary k;
  k.name = "mm";
  ArgSummary c;
  c.index = 0, c.name = "C", c.is_pointer = true, c.address_space = AddressSpace::Global, c.writes = true;
  c.write_region.parts.push_back(part("(* (+ (* gid1 (arg 1)) gid0) 4)", "(+ (* (+ (* gid1 (arg 1)) gid0) 4) 3)"));
  ArgSummary n;
  n.index = 1, n.name = "n";
  k.args = {c, n};
  NDRange nd;
  nd.dims = 2;
  nd.global[0] = nd.global[1] = 64;
  nd.local[0] = nd.local[1] = 8;
  std::vector<std::optional<int64_t>> args = {std::nullopt, 64};
  std::vector<uint64_t> sizes = {64 * 64 * 4, 0};
  SplitChoice ch = choose_split_dim(k, args, nd, sizes, 2);
  EXPECT_TRUE(ch.splittable);
  EXPECT_EQ(ch.dim, 1u);
  EXPECT_FALSE(ch.needs_merge) << ch.reason;
  WriteCheck cols = check_slices(k, args, nd, sizes, even_slices(nd, 0, 2));
  EXPECT_TRUE(cols.needs_merge);
  EXPECT_EQ(cols.merge_args, std::vector<unsigned>{0});

  // Unknown writes: a merge is needed whatever the dimension, and said why.
  k.args[0].write_region = AccessRegion{false, "indirection at line 3", {}};
  ch = choose_split_dim(k, args, nd, sizes, 2);
  EXPECT_TRUE(ch.needs_merge);
  EXPECT_NE(ch.reason.find("line 3"), std::string::npos) << ch.reason;

  // Atomic updates of overlapping bytes: no merge can combine them.
  k.args[0].write_region = AccessRegion{};
  k.args[0].write_region.parts.push_back(part("(* (range 0 3) 4)", "(+ (* (range 0 3) 4) 3)"));
  k.args[0].atomics = true;
  ch = choose_split_dim(k, args, nd, sizes, 2);
  EXPECT_FALSE(ch.splittable);
  EXPECT_NE(ch.reason.find("atomic"), std::string::npos) << ch.reason;
  k.args[0].atomics = false;  // plain overlapping writes: a merge
  ch = choose_split_dim(k, args, nd, sizes, 2);
  EXPECT_TRUE(ch.splittable);
  EXPECT_TRUE(ch.needs_merge);

  nd.global[0] = nd.global[1] = 8;  // a single group
  EXPECT_FALSE(choose_split_dim(k, args, nd, sizes, 2).splittable);
}

TEST(SplitPlan, EvenSlicesCoverAllGroups) {
  NDRange nd = nd1(100, 10);
  auto s = even_slices(nd, 0, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].group_count + s[1].group_count + s[2].group_count, 10u);
  EXPECT_EQ(s[1].first_group, s[0].group_count);
  EXPECT_EQ(even_slices(nd, 0, 50).size(), 10u);
  EXPECT_TRUE(slices_disjoint({std::vector<ByteRange>{{0, 4}}, std::vector<ByteRange>{}, std::nullopt}) == false);
  EXPECT_TRUE(slices_disjoint({std::vector<ByteRange>{}, std::nullopt}));
}

// Regions that load indices (region.h, Load): text round trip, evaluation
// through a LoadedValues over host arrays, the soundness rules of the
// evaluator (no memory, unaligned or out-of-buffer offsets, out-of-range
// indices: unknown), the split plan seeing disjoint scatters, and the block
// hulls the runtime caches (libsplit/index_hull.h).
#include "index_hull.h"
#include "libsplit/region.h"
#include "libsplit/split_plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

using namespace libsplit;

namespace {

ExprPtr P(const char* text) {
  std::string err;
  ExprPtr e = parse_expr(text, &err);
  EXPECT_TRUE(e) << text << ": " << err;
  return e;
}

// Buffers as byte arrays by argument index, read as the evaluator asks.
class HostMemory : public LoadedValues {
 public:
  std::map<unsigned, std::vector<uint8_t>> buffers;
  mutable unsigned queries = 0;
  template <class T>
  void set(unsigned arg, const std::vector<T>& v) {
    buffers[arg].resize(v.size() * sizeof(T));
    std::memcpy(buffers[arg].data(), v.data(), buffers[arg].size());
  }
  std::optional<Interval> load_hull(unsigned arg, unsigned bits, bool is_signed, int64_t first,
                                    int64_t last) const override {
    ++queries;
    auto it = buffers.find(arg);
    if (it == buffers.end() || last + bits / 8 > int64_t(it->second.size())) return std::nullopt;
    return scan_hull(it->second.data() + first, uint64_t(last - first) / (bits / 8) + 1, bits, is_signed);
  }
};

EvalEnv env1d(uint64_t first_item, uint64_t items, const LoadedValues* memory) {
  NDRange nd;
  nd.global[0] = 1024;
  nd.local[0] = 1;
  EvalEnv env = slice_env(nd, Slice{0, first_item, items}, {});
  env.memory = memory;
  return env;
}

}  // namespace

TEST(IndirectRegion, LoadTextRoundTrip) {
  for (const char* t : {"(load_i32 1 (* gid0 4))", "(load_u8 0 gid0)", "(load_u64 3 (range 0 (arg 2)))",
                        "(* (load_i16 2 (+ (* (load_i32 1 gid0) 2) 6)) 4)"})
    EXPECT_EQ(print_expr(*P(t)), t);
  std::string err;
  EXPECT_FALSE(parse_expr("(load_i24 1 gid0)", &err));
  EXPECT_FALSE(parse_expr("(load_i32 gid0)", &err));
  EXPECT_TRUE(mentions_load(*P("(+ 3 (load_i32 1 gid0))")));
  EXPECT_FALSE(mentions_load(*P("(+ 3 (arg 1))")));
  EXPECT_FALSE(same_expr(*P("(load_i32 1 gid0)"), *P("(load_u32 1 gid0)")));
  EXPECT_FALSE(same_expr(*P("(load_i32 1 gid0)"), *P("(load_i64 1 gid0)")));
  // A loaded integer already lies in the range a wider or equal wrap keeps.
  EXPECT_EQ(print_expr(*make_wrap(P("(load_u32 1 gid0)"), 32, false)), "(load_u32 1 gid0)");
  EXPECT_EQ(print_expr(*make_wrap(P("(load_u16 1 gid0)"), 32, true)), "(load_u16 1 gid0)");
  EXPECT_EQ(print_expr(*make_wrap(P("(load_i32 1 gid0)"), 32, false)), "(wrap_u32 (load_i32 1 gid0))");
}

TEST(IndirectRegion, GatherHullComesFromTheSliceIndices) {
  HostMemory mem;
  std::vector<int32_t> idx(1024);
  for (int i = 0; i < 1024; ++i) idx[i] = 1023 - i;
  mem.set(1, idx);
  AccessRegion src{true, {}, {GuardedRange{{}, P("(* (load_i32 1 (* gid0 4)) 4)"), P("(+ (* (load_i32 1 (* gid0 4)) 4) 3)")}}};
  // Items 0..99 read src[924..1023].
  auto r = evaluate_region(src, env1d(0, 100, &mem), 4096);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].begin, 924u * 4);
  EXPECT_EQ((*r)[0].end, 1024u * 4);
  // Without memory the region cannot be evaluated: whole buffer.
  EXPECT_FALSE(evaluate_region(src, env1d(0, 100, nullptr), 4096));
  // An index past the end of src (or negative) is not clamped away.
  idx[5] = 5000;
  mem.set(1, idx);
  EXPECT_FALSE(evaluate_region(src, env1d(0, 100, &mem), 4096));
  idx[5] = -1;
  mem.set(1, idx);
  EXPECT_FALSE(evaluate_region(src, env1d(0, 100, &mem), 4096));
  EXPECT_TRUE(evaluate_region(src, env1d(6, 90, &mem), 4096));  // slices without it are fine
  // An offset past the index buffer itself: the reader says unknown.
  AccessRegion past{true, {}, {GuardedRange{{}, P("(* (load_i32 1 (+ (* gid0 4) 8)) 4)"),
                                            P("(+ (* (load_i32 1 (+ (* gid0 4) 8)) 4) 3)")}}};
  EXPECT_TRUE(evaluate_region(past, env1d(900, 100, &mem), 4096 * 4));
  EXPECT_FALSE(evaluate_region(past, env1d(1000, 24, &mem), 4096 * 4));
}

TEST(IndirectRegion, UnalignedOrUnsignedLoadsAreConservative) {
  HostMemory mem;
  mem.set(0, std::vector<uint32_t>{1, 0xFFFFFFFFu, 3, 4});
  mem.set(1, std::vector<uint64_t>{1, ~uint64_t(0)});
  EvalEnv env = env1d(0, 1, &mem);
  EXPECT_FALSE(eval_expr(*P("(load_i32 0 (+ gid0 2))"), env));  // not a multiple of 4
  auto u = eval_expr(*P("(load_u32 0 (range 0 4))"), env);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->lo, 1);
  EXPECT_EQ(u->hi, 0xFFFFFFFFll);
  auto s = eval_expr(*P("(load_i32 0 (range 0 4))"), env);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->lo, -1);
  EXPECT_FALSE(eval_expr(*P("(load_u64 1 (range 0 8))"), env));  // above INT64_MAX
  // A char or short index unread is still some value of its type.
  auto c = eval_expr(*P("(load_u8 7 gid0)"), env1d(0, 4, nullptr));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->lo, 0);
  EXPECT_EQ(c->hi, 255);
  auto sh = eval_expr(*P("(load_i16 7 (* gid0 2))"), env);
  ASSERT_TRUE(sh);
  EXPECT_EQ(sh->lo, -32768);
}

TEST(IndirectRegion, CsrRowBoundsBoundTheSliceOfColumns) {
  // Rows of 1, 2, 3, ... entries; the analysis' form of k's range.
  HostMemory mem;
  std::vector<int32_t> row{0};
  for (int i = 0; i < 64; ++i) row.push_back(row.back() + 1 + i);
  mem.set(1, row);
  ExprPtr k = P("(range (load_i32 1 (* gid0 4)) (+ (max (+ (load_i32 1 (* gid0 4)) 1) (load_i32 1 (+ (* gid0 4) 4))) -1))");
  auto h = eval_expr(*k, env1d(10, 5, &mem));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->lo, row[10]);
  EXPECT_EQ(h->hi, row[15] - 1);
}

TEST(IndirectRegion, ScatterThroughBlockLocalIndicesIsDisjoint) {
  HostMemory mem;
  std::vector<int32_t> perm(256);
  for (int i = 0; i < 256; ++i) perm[i] = (i & ~63) + ((i * 29) & 63);
  mem.set(0, perm);
  KernelSummary k;
  ArgSummary a;
  a.index = 0, a.is_pointer = true, a.address_space = AddressSpace::Global, a.reads = true;
  a.read_region = AccessRegion{true, {}, {GuardedRange{{}, P("(* gid0 4)"), P("(+ (* gid0 4) 3)")}}};
  a.write_region = AccessRegion{true, {}, {}};
  ArgSummary out;
  out.index = 1, out.is_pointer = true, out.address_space = AddressSpace::Global, out.writes = true;
  out.read_region = AccessRegion{true, {}, {}};
  out.write_region = AccessRegion{true, {}, {GuardedRange{{}, P("(* (load_i32 0 (* gid0 4)) 4)"),
                                                           P("(+ (* (load_i32 0 (* gid0 4)) 4) 3)")}}};
  k.args = {a, out};
  NDRange nd;
  nd.global[0] = 256;
  nd.local[0] = 64;
  std::vector<uint64_t> sizes{1024, 1024};
  SplitChoice with = choose_split_dim(k, {std::nullopt, std::nullopt}, nd, sizes, 2, &mem);
  EXPECT_TRUE(with.splittable);
  EXPECT_FALSE(with.needs_merge) << with.reason;
  SplitChoice without = choose_split_dim(k, {std::nullopt, std::nullopt}, nd, sizes, 2, nullptr);
  EXPECT_TRUE(without.needs_merge);
  // Spread indices: the slices' hulls overlap, a merge is needed.
  for (int i = 0; i < 256; ++i) perm[i] = (i * 37) % 256;
  mem.set(0, perm);
  EXPECT_TRUE(choose_split_dim(k, {std::nullopt, std::nullopt}, nd, sizes, 2, &mem).needs_merge);
}

TEST(BlockHulls, MatchesAScanForEveryRangeAndTypeAndReadsOnlyWhatIsAsked) {
  std::mt19937 rng(5);
  const uint64_t n = 5000;
  for (unsigned bits : {8u, 16u, 32u, 64u})
    for (bool is_signed : {false, true}) {
      std::vector<uint8_t> bytes(n * bits / 8);
      for (auto& b : bytes) b = uint8_t(rng());
      if (!is_signed && bits == 64)
        for (uint64_t i = 0; i < n; ++i) bytes[i * 8 + 7] &= 0x7F;  // representable
      BlockHulls hulls(bits, is_signed, n);
      uint64_t asked_lo = ~uint64_t(0), asked_hi = 0;
      BlockHulls::Fetch fetch = [&](uint64_t first, uint64_t count) -> const uint8_t* {
        asked_lo = std::min(asked_lo, first);
        asked_hi = std::max(asked_hi, first + count);
        return bytes.data() + first * bits / 8;
      };
      for (int t = 0; t < 200; ++t) {
        uint64_t a = rng() % n, b = rng() % n;
        if (a > b) std::swap(a, b);
        asked_lo = ~uint64_t(0), asked_hi = 0;
        uint64_t scanned = 0;
        auto h = hulls.hull(a, b, fetch, &scanned);
        auto want = scan_hull(bytes.data() + a * bits / 8, b - a + 1, bits, is_signed);
        ASSERT_TRUE(h && want);
        EXPECT_EQ(h->lo, want->lo);
        EXPECT_EQ(h->hi, want->hi);
        if (scanned) {
          EXPECT_GE(asked_lo, a);
          EXPECT_LE(asked_hi, b + 1);
        }
      }
      // Every block is remembered after one whole-range query.
      uint64_t scanned = 0;
      ASSERT_TRUE(hulls.hull(0, n - 1, fetch, &scanned));
      scanned = 0;
      ASSERT_TRUE(hulls.hull(0, n - 1, fetch, &scanned));
      EXPECT_EQ(scanned, 0u);
    }
  // Unreadable bytes fail the query and are not remembered.
  BlockHulls h(32, true, 4096);
  std::vector<int32_t> v(4096, 7);
  bool readable = false;
  BlockHulls::Fetch fetch = [&](uint64_t first, uint64_t) -> const uint8_t* {
    return readable ? reinterpret_cast<const uint8_t*>(v.data() + first) : nullptr;
  };
  EXPECT_FALSE(h.hull(0, 4095, fetch, nullptr));
  readable = true;
  auto ok = h.hull(0, 4095, fetch, nullptr);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->lo, 7);
  EXPECT_FALSE(h.hull(0, 4096, fetch, nullptr));  // past the end
}

// Region-expression algebra shared by the compiler (which builds and prints
// it) and the runtime (which parses and evaluates it). No LLVM type appears
// here: the runtime links no LLVM.
//
// An expression is a small tree over int64 values:
//   constants, kernel scalar arguments `(arg N)`, NDRange variables
//   (gid0 lid1 grp2 gsz0 lsz0 ngr0 goff0 ...), and the operators
//   + - * / (signed, truncating) min max, plus `(range lo hi)`: every integer
//   in [lo, hi] (what an induction variable takes), and `(load_i32 K off)`:
//   the integer a kernel loads from buffer argument K at byte offset off (an
//   index or loop bound read from memory, resolved at launch from the
//   buffer's contents through EvalEnv::memory).
// Its text form is an S-expression, e.g. "(+ (* gid0 (arg 3)) 4)"; that text
// is what the kernel summary stores.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace libsplit {

enum class NDVar : uint8_t {
  GlobalId,     // gid
  LocalId,      // lid
  GroupId,      // grp
  GlobalSize,   // gsz
  LocalSize,    // lsz
  NumGroups,    // ngr
  GlobalOffset, // goff
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  // FitsSigned / FitsUnsigned (additive): "(fits_i32 x)" is x when every value
  // of x fits a signed 32-bit integer, otherwise the expression cannot be
  // evaluated (nullopt: whole buffer). The analysis wraps narrow integer
  // arithmetic in them so that exact int64 evaluation never silently differs
  // from the kernel's wrapping arithmetic. value = bit width, lhs = x.
  //
  // WrapSigned / WrapUnsigned (additive): "(wrap_u8 x)" is x reduced modulo
  // 2^8 into [0, 255] ("(wrap_i32 x)": into the int range), exactly what a
  // kernel's narrow wrapping arithmetic computes; never fails, an interval
  // crossing a wrap point becomes the whole range. value = bit width.
  //
  // LoadSigned / LoadUnsigned (indirection): "(load_u32 K off)" is the
  // unsigned 32-bit integer at byte offset `off` (lhs) of buffer argument K
  // (value), bits = 8/16/32/64. The analysis emits it only for arguments the
  // kernel never writes, so the buffer's contents at launch are the values
  // the kernel reads; without EvalEnv::memory it cannot be evaluated.
  enum class Kind : uint8_t { Const, Arg, Var, Add, Sub, Mul, Div, Min, Max, Range,
                              FitsSigned, FitsUnsigned, WrapSigned, WrapUnsigned,
                              LoadSigned, LoadUnsigned };
  Kind kind = Kind::Const;
  uint8_t bits = 0;   // LoadSigned / LoadUnsigned: width of the loaded integer
  int64_t value = 0;  // Const: the value; Arg, Load*: argument index; Var: dimension 0..2
  NDVar var = NDVar::GlobalId;
  ExprPtr lhs, rhs;   // binary operators and Range(lo, hi); Load*: lhs = byte offset

  static ExprPtr constant(int64_t v);
  static ExprPtr arg(unsigned index);
  static ExprPtr ndvar(NDVar v, unsigned dim);
  static ExprPtr binary(Kind k, ExprPtr a, ExprPtr b);
};

// Text form. parse_expr returns nullptr and fills *error on malformed text.
std::string print_expr(const Expr& e);
ExprPtr parse_expr(std::string_view text, std::string* error = nullptr);

// Closed integer interval [lo, hi]; empty when lo > hi.
struct Interval {
  int64_t lo = 0, hi = -1;
  bool empty() const { return lo > hi; }
};

// The contents of the launch's buffers, for Load expressions (the runtime's
// implementation reads and caches them: libsplit/indirect_regions.h).
class LoadedValues {
 public:
  virtual ~LoadedValues() = default;
  // Hull of the `bits`-wide integers (signed or unsigned) that buffer
  // argument `arg` holds at the element-aligned byte offsets first, first +
  // bits/8, ..., last (first <= last). nullopt when the contents cannot be
  // known (the caller then treats the region as unknown).
  virtual std::optional<Interval> load_hull(unsigned arg, unsigned bits, bool is_signed, int64_t first,
                                            int64_t last) const = 0;
};

// What the evaluator knows at a launch: the scalar argument values (by kernel
// argument index, sign-extended to int64; absent for buffers) and, for every
// NDRange variable, the interval of values it takes inside the slice.
// `memory`, when set, answers Load expressions.
struct EvalEnv {
  std::vector<std::optional<int64_t>> args;
  Interval vars[7][3];  // indexed [NDVar][dim]
  const LoadedValues* memory = nullptr;
};

// Sound interval hull of e over env (interval arithmetic). nullopt when the
// expression reads an unknown argument or divides by an interval holding 0.
std::optional<Interval> eval_expr(const Expr& e, const EvalEnv& env);

// One guarded region: "if every guard holds, bytes [lo, hi] are accessed".
// A guard bounds one NDRange variable: lo <= var(dim) <= hi.
struct Guard {
  NDVar var = NDVar::GlobalId;
  unsigned dim = 0;
  ExprPtr lo, hi;  // either may be null: unbounded on that side
};

struct GuardedRange {
  std::vector<Guard> guards;
  ExprPtr lo, hi;  // byte offsets from the buffer start, both inclusive
};

// All the accesses of one kind (reads or writes) a kernel makes to one buffer
// argument: a union of guarded ranges, or unknown (with why, for people).
struct AccessRegion {
  bool known = true;
  std::string unknown_reason;  // e.g. "indirection at line 12"
  std::vector<GuardedRange> parts;  // empty + known: never accessed
};

// The NDRange of a launch and the slice of it one device runs.
struct NDRange {
  unsigned dims = 1;
  uint64_t global[3] = {1, 1, 1};
  uint64_t local[3] = {1, 1, 1};
  uint64_t offset[3] = {0, 0, 0};
  uint64_t groups(unsigned d) const { return global[d] / local[d]; }
  bool operator==(const NDRange&) const = default;
};

struct Slice {
  unsigned dim = 0;           // split dimension
  uint64_t first_group = 0;   // first work-group index in that dimension
  uint64_t group_count = 0;   // number of work-groups in that dimension
};

// Half-open byte range [begin, end).
struct ByteRange {
  uint64_t begin = 0, end = 0;
  bool empty() const { return begin >= end; }
};

// The environment of one slice of a launch.
EvalEnv slice_env(const NDRange& nd, const Slice& s, std::vector<std::optional<int64_t>> args);

// Bytes of a buffer of buffer_size bytes that `region` may touch in the slice,
// as a short sorted list of disjoint ranges, clamped to the buffer. nullopt
// when the region is unknown or cannot be evaluated: the caller then treats
// the whole buffer as touched. A part whose address depends on loaded values
// and reaches outside the buffer (an out-of-range index, or data the
// analysis did not see guarding it) is not clamped: nullopt.
std::optional<std::vector<ByteRange>> evaluate_region(const AccessRegion& region,
                                                      const EvalEnv& env,
                                                      uint64_t buffer_size);

// --- Additions (region helper, additive) -----------------------------------

// At most this many ranges come out of evaluate_region: closest gaps are
// merged first (a superset, so still sound).
inline constexpr size_t kMaxByteRanges = 8;

// Sorts, merges overlapping/adjacent ranges, drops empty ones and caps the
// list at max_ranges by filling the smallest gaps.
void normalize_ranges(std::vector<ByteRange>& ranges, size_t max_ranges = kMaxByteRanges);

// True when no byte is in both lists (each list sorted and disjoint, as
// evaluate_region returns them).
bool ranges_disjoint(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b);

// Structural equality of two expressions, and of two optional ones (both
// null, or both there and equal).
bool same_expr(const Expr& a, const Expr& b);
bool same_bound(const ExprPtr& a, const ExprPtr& b);

// The same union with each part once, and each part's hi sharing its lo's
// tree where hi is (+ lo c): what evaluate_region, run for every slice of
// every split launch, then does once. The merge of device macro sets'
// summaries (passes/SummaryMerge.cpp) keeps each part once with it (ep's
// regions held one copy per set); the summary reader applies it too, for
// the sharing, which the JSON cannot carry.
void drop_repeated_parts(AccessRegion& r);

// Human/test form of a region, one line:
//   "unknown: <reason>" | "none" |
//   "[lo, hi]" parts joined by " U ", guarded parts as
//   "if <lo> <= gid0 <= <hi>: [lo, hi]".
std::string print_region(const AccessRegion& r);

// Simplifying constructors used by the analysis: fold constants (when no
// int64 overflow), drop +0 / *1, and turn (* x 0) into 0.
ExprPtr make_add(ExprPtr a, ExprPtr b);
ExprPtr make_sub(ExprPtr a, ExprPtr b);
ExprPtr make_mul(ExprPtr a, ExprPtr b);
ExprPtr make_div(ExprPtr a, ExprPtr b);
ExprPtr make_min(ExprPtr a, ExprPtr b);
ExprPtr make_max(ExprPtr a, ExprPtr b);
ExprPtr make_range(ExprPtr lo, ExprPtr hi);
ExprPtr make_fits(ExprPtr x, unsigned bits, bool is_signed);
ExprPtr make_wrap(ExprPtr x, unsigned bits, bool is_signed);
// (load_iN arg offset) / (load_uN arg offset); bits in {8, 16, 32, 64}.
ExprPtr make_load(unsigned arg, unsigned bits, bool is_signed, ExprPtr offset);

// Whether e reads buffer contents (a Load anywhere in it), and whether any
// part or guard of a region does: such regions are resolved at run time.
bool mentions_load(const Expr& e);
bool region_mentions_load(const AccessRegion& r);

}  // namespace libsplit

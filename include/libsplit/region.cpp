// Region-expression algebra: construction, S-expression text, sound interval
// evaluation and the per-slice byte-range evaluator used by the runtime at
// every launch (so it must stay cheap: no allocation in the expression walk).
#include "libsplit/region.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

namespace libsplit {

// --- Construction -------------------------------------------------------------

ExprPtr Expr::constant(int64_t v) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Const;
  e->value = v;
  return e;
}

ExprPtr Expr::arg(unsigned index) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Arg;
  e->value = index;
  return e;
}

ExprPtr Expr::ndvar(NDVar v, unsigned dim) {
  auto e = std::make_shared<Expr>();
  e->kind = Kind::Var;
  e->var = v;
  e->value = dim;
  return e;
}

ExprPtr Expr::binary(Kind k, ExprPtr a, ExprPtr b) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->lhs = std::move(a);
  e->rhs = std::move(b);
  return e;
}

namespace {

bool isConst(const ExprPtr& e, int64_t* v = nullptr) {
  if (!e || e->kind != Expr::Kind::Const) return false;
  if (v) *v = e->value;
  return true;
}

}  // namespace

ExprPtr make_add(ExprPtr a, ExprPtr b) {
  int64_t x, y, r;
  if (isConst(a, &x) && isConst(b, &y) && !__builtin_add_overflow(x, y, &r))
    return Expr::constant(r);
  if (isConst(a, &x) && x == 0) return b;
  if (isConst(b, &y) && y == 0) return a;
  // Keep constants on the right so (+ (+ e c1) c2) folds to (+ e c1+c2).
  if (isConst(a)) std::swap(a, b);
  if (isConst(b, &y) && a->kind == Expr::Kind::Add && isConst(a->rhs, &x) &&
      !__builtin_add_overflow(x, y, &r))
    return make_add(a->lhs, Expr::constant(r));
  return Expr::binary(Expr::Kind::Add, std::move(a), std::move(b));
}

ExprPtr make_sub(ExprPtr a, ExprPtr b) {
  int64_t x, y, r;
  if (isConst(a, &x) && isConst(b, &y) && !__builtin_sub_overflow(x, y, &r))
    return Expr::constant(r);
  if (isConst(b, &y) && y == 0) return a;
  if (isConst(b, &y) && y != std::numeric_limits<int64_t>::min())
    return make_add(std::move(a), Expr::constant(-y));
  return Expr::binary(Expr::Kind::Sub, std::move(a), std::move(b));
}

ExprPtr make_mul(ExprPtr a, ExprPtr b) {
  int64_t x, y, r;
  if (isConst(a, &x) && isConst(b, &y) && !__builtin_mul_overflow(x, y, &r))
    return Expr::constant(r);
  if (isConst(a)) std::swap(a, b);
  if (isConst(b, &y)) {
    if (y == 1) return a;
    if (y == 0) return b;
  }
  return Expr::binary(Expr::Kind::Mul, std::move(a), std::move(b));
}

ExprPtr make_div(ExprPtr a, ExprPtr b) {
  int64_t x, y;
  if (isConst(a, &x) && isConst(b, &y) && y != 0 &&
      !(x == std::numeric_limits<int64_t>::min() && y == -1))
    return Expr::constant(x / y);
  if (isConst(b, &y) && y == 1) return a;
  return Expr::binary(Expr::Kind::Div, std::move(a), std::move(b));
}

ExprPtr make_min(ExprPtr a, ExprPtr b) {
  int64_t x, y;
  if (isConst(a, &x) && isConst(b, &y)) return Expr::constant(std::min(x, y));
  return Expr::binary(Expr::Kind::Min, std::move(a), std::move(b));
}

ExprPtr make_max(ExprPtr a, ExprPtr b) {
  int64_t x, y;
  if (isConst(a, &x) && isConst(b, &y)) return Expr::constant(std::max(x, y));
  return Expr::binary(Expr::Kind::Max, std::move(a), std::move(b));
}

ExprPtr make_range(ExprPtr lo, ExprPtr hi) {
  return Expr::binary(Expr::Kind::Range, std::move(lo), std::move(hi));
}

ExprPtr make_fits(ExprPtr x, unsigned bits, bool is_signed) {
  if (bits == 0 || bits > 64) bits = 64;
  int64_t v;
  if (isConst(x, &v)) {
    bool ok = is_signed ? (bits == 64 || (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1))))
                        : (v >= 0 && (bits >= 63 || v < (int64_t(1) << bits)));
    if (ok) return x;
  }
  if (is_signed && bits == 64) return x;  // every int64 fits
  auto e = std::make_shared<Expr>();
  e->kind = is_signed ? Expr::Kind::FitsSigned : Expr::Kind::FitsUnsigned;
  e->value = bits;
  e->lhs = std::move(x);
  return e;
}

ExprPtr make_wrap(ExprPtr x, unsigned bits, bool is_signed) {
  if (bits == 0 || bits > 64) bits = 64;
  if (is_signed && bits == 64) return x;  // int64 arithmetic is the evaluator's own
  // A loaded integer already lies in its type's range: wrapping it into a
  // range that holds that one changes nothing.
  if (x && (x->kind == Expr::Kind::LoadSigned || x->kind == Expr::Kind::LoadUnsigned)) {
    bool loadSigned = x->kind == Expr::Kind::LoadSigned;
    if (loadSigned == is_signed ? x->bits <= bits : (!loadSigned && x->bits < bits)) return x;
  }
  int64_t v;
  if (isConst(x, &v) && bits < 64) {
    uint64_t m = uint64_t(v) & ((uint64_t(1) << bits) - 1);
    if (is_signed && (m >> (bits - 1))) return Expr::constant(int64_t(m) - (int64_t(1) << bits));
    return Expr::constant(int64_t(m));
  }
  auto e = std::make_shared<Expr>();
  e->kind = is_signed ? Expr::Kind::WrapSigned : Expr::Kind::WrapUnsigned;
  e->value = bits;
  e->lhs = std::move(x);
  return e;
}

ExprPtr make_load(unsigned arg, unsigned bits, bool is_signed, ExprPtr offset) {
  auto e = std::make_shared<Expr>();
  e->kind = is_signed ? Expr::Kind::LoadSigned : Expr::Kind::LoadUnsigned;
  e->bits = uint8_t(bits);
  e->value = arg;
  e->lhs = std::move(offset);
  return e;
}

bool mentions_load(const Expr& e) {
  if (e.kind == Expr::Kind::LoadSigned || e.kind == Expr::Kind::LoadUnsigned) return true;
  return (e.lhs && mentions_load(*e.lhs)) || (e.rhs && mentions_load(*e.rhs));
}

bool region_mentions_load(const AccessRegion& r) {
  if (!r.known) return false;
  for (const GuardedRange& p : r.parts) {
    if ((p.lo && mentions_load(*p.lo)) || (p.hi && mentions_load(*p.hi))) return true;
    for (const Guard& g : p.guards)
      if ((g.lo && mentions_load(*g.lo)) || (g.hi && mentions_load(*g.hi))) return true;
  }
  return false;
}

namespace {

bool same_part(const GuardedRange& a, const GuardedRange& b) {
  if (a.guards.size() != b.guards.size() || !same_bound(a.lo, b.lo) || !same_bound(a.hi, b.hi)) return false;
  for (size_t i = 0; i < a.guards.size(); ++i) {
    const Guard &x = a.guards[i], &y = b.guards[i];
    if (x.var != y.var || x.dim != y.dim || !same_bound(x.lo, y.lo) || !same_bound(x.hi, y.hi)) return false;
  }
  return true;
}

}  // namespace

void drop_repeated_parts(AccessRegion& r) {
  std::vector<GuardedRange> kept;
  for (GuardedRange& part : r.parts) {
    if (std::any_of(kept.begin(), kept.end(), [&](const GuardedRange& k) { return same_part(k, part); })) continue;
    if (const Expr* h = part.hi.get(); h && part.lo && h->kind == Expr::Kind::Add && h->lhs && h->lhs != part.lo &&
                                      same_expr(*h->lhs, *part.lo)) {
      auto shared = std::make_shared<Expr>(*h);
      shared->lhs = part.lo;
      part.hi = std::move(shared);
    }
    kept.push_back(std::move(part));
  }
  r.parts = std::move(kept);
}

// --- Text form ----------------------------------------------------------------

namespace {

constexpr const char* kVarNames[7] = {"gid", "lid", "grp", "gsz", "lsz", "ngr", "goff"};

const char* opName(Expr::Kind k) {
  switch (k) {
    case Expr::Kind::Add: return "+";
    case Expr::Kind::Sub: return "-";
    case Expr::Kind::Mul: return "*";
    case Expr::Kind::Div: return "/";
    case Expr::Kind::Min: return "min";
    case Expr::Kind::Max: return "max";
    case Expr::Kind::Range: return "range";
    default: return "?";
  }
}

void printTo(const Expr& e, std::string& out) {
  switch (e.kind) {
    case Expr::Kind::Const: out += std::to_string(e.value); return;
    case Expr::Kind::Arg:
      out += "(arg ";
      out += std::to_string(e.value);
      out += ')';
      return;
    case Expr::Kind::Var:
      out += kVarNames[static_cast<unsigned>(e.var)];
      out += std::to_string(e.value);
      return;
    case Expr::Kind::FitsSigned:
    case Expr::Kind::FitsUnsigned:
    case Expr::Kind::WrapSigned:
    case Expr::Kind::WrapUnsigned:
      out += e.kind == Expr::Kind::FitsSigned     ? "(fits_i"
             : e.kind == Expr::Kind::FitsUnsigned ? "(fits_u"
             : e.kind == Expr::Kind::WrapSigned   ? "(wrap_i"
                                                  : "(wrap_u";
      out += std::to_string(e.value);
      out += ' ';
      if (e.lhs) printTo(*e.lhs, out); else out += "?";
      out += ')';
      return;
    case Expr::Kind::LoadSigned:
    case Expr::Kind::LoadUnsigned:
      out += e.kind == Expr::Kind::LoadSigned ? "(load_i" : "(load_u";
      out += std::to_string(e.bits);
      out += ' ';
      out += std::to_string(e.value);
      out += ' ';
      if (e.lhs) printTo(*e.lhs, out); else out += "?";
      out += ')';
      return;
    default:
      out += '(';
      out += opName(e.kind);
      out += ' ';
      if (e.lhs) printTo(*e.lhs, out); else out += "?";
      out += ' ';
      if (e.rhs) printTo(*e.rhs, out); else out += "?";
      out += ')';
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  ExprPtr parseTop(std::string* error) {
    ExprPtr e = parse();
    skipSpace();
    if (e && pos_ != text_.size()) fail("trailing text");
    if (!error_.empty()) {
      if (error) *error = error_ + " at offset " + std::to_string(pos_);
      return nullptr;
    }
    return e;
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  ExprPtr fail(const std::string& why) {
    if (error_.empty()) error_ = why;
    return nullptr;
  }
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           text_[pos_] != '(' && text_[pos_] != ')')
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  static std::optional<int64_t> number(std::string_view w) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) return std::nullopt;
    return v;
  }

  ExprPtr parse() {
    if (++depth_ > 512) return fail("expression nested too deeply");
    ExprPtr r = parseInner();
    --depth_;
    return r;
  }

  ExprPtr parseInner() {
    skipSpace();
    if (pos_ >= text_.size()) return fail("unexpected end of expression");
    if (text_[pos_] == ')') return fail("unexpected ')'");
    if (text_[pos_] != '(') {
      std::string_view w = word();
      if (w.empty()) return fail("empty token");
      if (auto v = number(w)) return Expr::constant(*v);
      for (unsigned k = 0; k < 7; ++k) {
        std::string_view name = kVarNames[k];
        if (w.size() == name.size() + 1 && w.substr(0, name.size()) == name &&
            w.back() >= '0' && w.back() <= '2')
          return Expr::ndvar(static_cast<NDVar>(k), unsigned(w.back() - '0'));
      }
      return fail("unknown token '" + std::string(w) + "'");
    }
    ++pos_;  // '('
    skipSpace();
    std::string_view op = word();
    ExprPtr result;
    if (op == "arg") {
      skipSpace();
      auto v = number(word());
      if (!v || *v < 0 || *v > 1'000'000) return fail("bad argument index");
      result = Expr::arg(unsigned(*v));
    } else if (op.size() > 6 && (op.substr(0, 6) == "fits_i" || op.substr(0, 6) == "fits_u" ||
                                 op.substr(0, 6) == "wrap_i" || op.substr(0, 6) == "wrap_u")) {
      auto bits = number(op.substr(6));
      if (!bits || *bits < 1 || *bits > 64) return fail("bad bit width in '" + std::string(op) + "'");
      ExprPtr x = parse();
      if (!x) return nullptr;
      auto e = std::make_shared<Expr>();
      bool fits = op[0] == 'f';
      e->kind = op[5] == 'i' ? (fits ? Expr::Kind::FitsSigned : Expr::Kind::WrapSigned)
                             : (fits ? Expr::Kind::FitsUnsigned : Expr::Kind::WrapUnsigned);
      e->value = *bits;
      e->lhs = std::move(x);
      result = e;
    } else if (op.size() > 6 && (op.substr(0, 6) == "load_i" || op.substr(0, 6) == "load_u")) {
      auto bits = number(op.substr(6));
      if (!bits || (*bits != 8 && *bits != 16 && *bits != 32 && *bits != 64))
        return fail("bad bit width in '" + std::string(op) + "'");
      skipSpace();
      auto arg = number(word());
      if (!arg || *arg < 0 || *arg > 1'000'000) return fail("bad argument index");
      ExprPtr off = parse();
      if (!off) return nullptr;
      result = make_load(unsigned(*arg), unsigned(*bits), op[5] == 'i', std::move(off));
    } else {
      Expr::Kind k;
      if (op == "+") k = Expr::Kind::Add;
      else if (op == "-") k = Expr::Kind::Sub;
      else if (op == "*") k = Expr::Kind::Mul;
      else if (op == "/") k = Expr::Kind::Div;
      else if (op == "min") k = Expr::Kind::Min;
      else if (op == "max") k = Expr::Kind::Max;
      else if (op == "range") k = Expr::Kind::Range;
      else return fail("unknown operator '" + std::string(op) + "'");
      ExprPtr a = parse();
      if (!a) return nullptr;
      ExprPtr b = parse();
      if (!b) return nullptr;
      result = Expr::binary(k, std::move(a), std::move(b));
    }
    skipSpace();
    if (pos_ >= text_.size() || text_[pos_] != ')') return fail("expected ')'");
    ++pos_;
    return result;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

}  // namespace

std::string print_expr(const Expr& e) {
  std::string out;
  printTo(e, out);
  return out;
}

ExprPtr parse_expr(std::string_view text, std::string* error) {
  return Parser(text).parseTop(error);
}

std::string print_region(const AccessRegion& r) {
  if (!r.known) return "unknown: " + r.unknown_reason;
  if (r.parts.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < r.parts.size(); ++i) {
    const GuardedRange& p = r.parts[i];
    if (i) out += " U ";
    if (!p.guards.empty()) {
      out += "if ";
      for (size_t g = 0; g < p.guards.size(); ++g) {
        const Guard& gd = p.guards[g];
        if (g) out += " && ";
        if (gd.lo) out += print_expr(*gd.lo) + " <= ";
        out += kVarNames[static_cast<unsigned>(gd.var)] + std::to_string(gd.dim);
        if (gd.hi) out += " <= " + print_expr(*gd.hi);
      }
      out += ": ";
    }
    out += '[';
    out += p.lo ? print_expr(*p.lo) : "?";
    out += ", ";
    out += p.hi ? print_expr(*p.hi) : "?";
    out += ']';
  }
  return out;
}

// --- Interval evaluation ------------------------------------------------------

namespace {

using Vars = Interval[7][3];

// Walk with the argument values and variable intervals passed apart so that
// evaluate_region can narrow a copy of the variables without copying args.
// Empty intervals propagate (an empty range = no access); overflow and
// unknowns give nullopt.
std::optional<Interval> evalIn(const Expr& e, const std::vector<std::optional<int64_t>>& args,
                               const Vars& vars, const LoadedValues* memory) {
  switch (e.kind) {
    case Expr::Kind::Const: return Interval{e.value, e.value};
    case Expr::Kind::Arg: {
      if (e.value < 0 || size_t(e.value) >= args.size() || !args[size_t(e.value)])
        return std::nullopt;
      int64_t v = *args[size_t(e.value)];
      return Interval{v, v};
    }
    case Expr::Kind::Var:
      if (e.value < 0 || e.value > 2) return std::nullopt;
      return vars[static_cast<unsigned>(e.var)][e.value];
    case Expr::Kind::FitsSigned:
    case Expr::Kind::FitsUnsigned: {
      if (!e.lhs || e.value < 1 || e.value > 64) return std::nullopt;
      auto x = evalIn(*e.lhs, args, vars, memory);
      if (!x || x->empty()) return x;
      const int64_t bits = e.value;
      int64_t lo, hi;
      if (e.kind == Expr::Kind::FitsSigned) {
        lo = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
        hi = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
      } else {
        lo = 0;
        hi = bits >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << bits) - 1;
      }
      if (x->lo < lo || x->hi > hi) return std::nullopt;
      return x;
    }
    case Expr::Kind::WrapSigned:
    case Expr::Kind::WrapUnsigned: {
      if (!e.lhs || e.value < 1 || e.value > 64) return std::nullopt;
      auto x = evalIn(*e.lhs, args, vars, memory);
      if (!x || x->empty()) return x;
      const int bits = int(e.value);
      if (bits == 64) {
        if (e.kind == Expr::Kind::WrapSigned) return x;
        if (x->lo < 0) return std::nullopt;  // a uint64 above INT64_MAX: not representable
        return x;
      }
      const __int128 period = __int128(1) << bits;
      const __int128 tmin = e.kind == Expr::Kind::WrapSigned ? -(period / 2) : 0;
      const __int128 tmax = tmin + period - 1;
      if (x->lo >= tmin && x->hi <= tmax) return x;  // nothing wraps (the common case: no 128-bit division)
      auto reduce = [&](__int128 v) {
        __int128 r = (v - tmin) % period;
        if (r < 0) r += period;
        return r + tmin;
      };
      if (__int128(x->hi) - x->lo >= period - 1) return Interval{int64_t(tmin), int64_t(tmax)};
      __int128 lo = reduce(x->lo), hi = reduce(x->hi);
      if (lo > hi) return Interval{int64_t(tmin), int64_t(tmax)};  // crosses a wrap point
      return Interval{int64_t(lo), int64_t(hi)};
    }
    case Expr::Kind::LoadSigned:
    case Expr::Kind::LoadUnsigned: {
      const int64_t size = e.bits / 8;
      if ((size != 1 && size != 2 && size != 4 && size != 8) || !e.lhs || e.value < 0) return std::nullopt;
      // A char or short is some value of its type whatever the memory says:
      // the answer when the contents cannot be read.
      std::optional<Interval> anyValue;
      if (e.bits <= 16)
        anyValue = e.kind == Expr::Kind::LoadSigned ? Interval{-(int64_t(1) << (e.bits - 1)), (int64_t(1) << (e.bits - 1)) - 1}
                                                    : Interval{0, (int64_t(1) << e.bits) - 1};
      if (!memory) return anyValue;
      auto off = evalIn(*e.lhs, args, vars, memory);
      if (off && off->empty()) return off;  // no work-item loads: no value
      // Loads are aligned to their type (OpenCL C): an unaligned bound means
      // the hull is not the kernel's own offsets; do not guess.
      if (!off || off->lo < 0 || off->lo % size || off->hi % size) return anyValue;
      auto h = memory->load_hull(unsigned(e.value), unsigned(e.bits), e.kind == Expr::Kind::LoadSigned,
                                 off->lo, off->hi);
      return h ? h : anyValue;
    }
    default: break;
  }
  if (!e.lhs || !e.rhs) return std::nullopt;
  auto a = evalIn(*e.lhs, args, vars, memory);
  if (!a) return std::nullopt;
  auto b = evalIn(*e.rhs, args, vars, memory);
  if (!b) return std::nullopt;
  if (a->empty() || b->empty()) return Interval{};  // empty
  Interval r;
  switch (e.kind) {
    case Expr::Kind::Add:
      if (__builtin_add_overflow(a->lo, b->lo, &r.lo) || __builtin_add_overflow(a->hi, b->hi, &r.hi))
        return std::nullopt;
      return r;
    case Expr::Kind::Sub:
      if (__builtin_sub_overflow(a->lo, b->hi, &r.lo) || __builtin_sub_overflow(a->hi, b->lo, &r.hi))
        return std::nullopt;
      return r;
    case Expr::Kind::Mul: {
      int64_t c[4];
      if (__builtin_mul_overflow(a->lo, b->lo, &c[0]) || __builtin_mul_overflow(a->lo, b->hi, &c[1]) ||
          __builtin_mul_overflow(a->hi, b->lo, &c[2]) || __builtin_mul_overflow(a->hi, b->hi, &c[3]))
        return std::nullopt;
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case Expr::Kind::Div: {
      // Truncating division is monotone in each operand while the divisor
      // keeps one sign, so the extremes sit at the corners.
      if (b->lo <= 0 && b->hi >= 0) return std::nullopt;
      constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
      if ((a->lo == kMin) && (b->lo <= -1 && b->hi >= -1)) return std::nullopt;
      int64_t c[4] = {a->lo / b->lo, a->lo / b->hi, a->hi / b->lo, a->hi / b->hi};
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case Expr::Kind::Min: return Interval{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
    case Expr::Kind::Max: return Interval{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
    case Expr::Kind::Range:
      // Every integer from lo to hi: the hull over the environment.
      return Interval{a->lo, b->hi};
    default: return std::nullopt;
  }
}

}  // namespace

bool same_expr(const Expr& a, const Expr& b) {
  if (&a == &b) return true;
  if (a.kind != b.kind || a.value != b.value || a.bits != b.bits) return false;
  if (a.kind == Expr::Kind::Var && a.var != b.var) return false;
  return same_bound(a.lhs, b.lhs) && same_bound(a.rhs, b.rhs);
}

bool same_bound(const ExprPtr& a, const ExprPtr& b) { return a == b || (a && b && same_expr(*a, *b)); }

std::optional<Interval> eval_expr(const Expr& e, const EvalEnv& env) {
  return evalIn(e, env.args, env.vars, env.memory);
}

// --- Slices -----------------------------------------------------------------------

EvalEnv slice_env(const NDRange& nd, const Slice& s, std::vector<std::optional<int64_t>> args) {
  EvalEnv env;
  env.args = std::move(args);
  auto point = [](uint64_t v) {
    int64_t x = v > uint64_t(std::numeric_limits<int64_t>::max())
                    ? std::numeric_limits<int64_t>::max()
                    : int64_t(v);
    return Interval{x, x};
  };
  auto span = [](uint64_t lo, uint64_t count) {  // [lo, lo+count-1], empty if count==0
    if (count == 0) return Interval{};
    return Interval{int64_t(lo), int64_t(lo + count - 1)};
  };
  for (unsigned d = 0; d < 3; ++d) {
    auto& v = env.vars;
    bool active = d < nd.dims;
    uint64_t global = active ? nd.global[d] : 1, local = active ? nd.local[d] : 1;
    uint64_t offset = active ? nd.offset[d] : 0;
    if (local == 0) local = 1;
    uint64_t groups = global / local;
    uint64_t first = 0, count = groups;
    if (active && d == s.dim) {
      first = s.first_group;
      count = s.group_count;
    }
    v[unsigned(NDVar::GlobalId)][d] = span(offset + first * local, count * local);
    v[unsigned(NDVar::LocalId)][d] = count ? span(0, local) : Interval{};
    v[unsigned(NDVar::GroupId)][d] = span(first, count);
    v[unsigned(NDVar::GlobalSize)][d] = point(global);
    v[unsigned(NDVar::LocalSize)][d] = point(local);
    v[unsigned(NDVar::NumGroups)][d] = point(groups);
    v[unsigned(NDVar::GlobalOffset)][d] = point(offset);
  }
  return env;
}

// --- Byte ranges -------------------------------------------------------------------

void normalize_ranges(std::vector<ByteRange>& r, size_t max_ranges) {
  std::erase_if(r, [](const ByteRange& b) { return b.empty(); });
  if (r.size() > 1) {
    std::sort(r.begin(), r.end(), [](const ByteRange& a, const ByteRange& b) {
      return a.begin < b.begin;
    });
    size_t out = 0;
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i].begin <= r[out].end)
        r[out].end = std::max(r[out].end, r[i].end);
      else
        r[++out] = r[i];
    }
    r.resize(out + 1);
  }
  if (max_ranges == 0) max_ranges = 1;
  while (r.size() > max_ranges) {
    size_t best = 0;
    uint64_t bestGap = std::numeric_limits<uint64_t>::max();
    for (size_t i = 0; i + 1 < r.size(); ++i) {
      uint64_t gap = r[i + 1].begin - r[i].end;
      if (gap < bestGap) bestGap = gap, best = i;
    }
    r[best].end = r[best + 1].end;
    r.erase(r.begin() + long(best) + 1);
  }
}

bool ranges_disjoint(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].empty()) { ++i; continue; }
    if (b[j].empty()) { ++j; continue; }
    if (a[i].end <= b[j].begin) ++i;
    else if (b[j].end <= a[i].begin) ++j;
    else return false;
  }
  return true;
}

std::optional<std::vector<ByteRange>> evaluate_region(const AccessRegion& region,
                                                      const EvalEnv& env,
                                                      uint64_t buffer_size) {
  if (!region.known) return std::nullopt;
  std::vector<ByteRange> out;
  if (buffer_size == 0) return out;
  for (unsigned d = 0; d < 3; ++d)  // a slice with no work-item touches nothing
    if (env.vars[unsigned(NDVar::GlobalId)][d].empty()) return out;
  const int64_t last = buffer_size - 1 > uint64_t(std::numeric_limits<int64_t>::max())
                           ? std::numeric_limits<int64_t>::max()
                           : int64_t(buffer_size - 1);
  out.reserve(region.parts.size());
  for (const GuardedRange& part : region.parts) {
    if (!part.lo || !part.hi) return std::nullopt;
    Vars vars;
    std::copy(&env.vars[0][0], &env.vars[0][0] + 21, &vars[0][0]);
    bool dead = false;
    for (const Guard& g : part.guards) {
      if (g.dim > 2) continue;
      Interval& v = vars[static_cast<unsigned>(g.var)][g.dim];
      // The guard holds only when var >= (some value of lo) >= hull(lo).lo;
      // a guard we cannot evaluate simply does not narrow.
      if (g.lo)
        if (auto lo = evalIn(*g.lo, env.args, vars, env.memory); lo && !lo->empty()) v.lo = std::max(v.lo, lo->lo);
      if (g.hi)
        if (auto hi = evalIn(*g.hi, env.args, vars, env.memory); hi && !hi->empty()) v.hi = std::min(v.hi, hi->hi);
      if (v.empty()) {
        dead = true;
        break;
      }
    }
    if (dead) continue;
    auto lo = evalIn(*part.lo, env.args, vars, env.memory);
    // hi is almost always (+ lo size-1): reuse lo's interval instead of
    // evaluating the same tree twice (it is the hot path of every launch).
    std::optional<Interval> hi;
    if (const Expr& h = *part.hi; lo && !lo->empty() && h.kind == Expr::Kind::Add && h.rhs &&
                                  h.rhs->kind == Expr::Kind::Const && h.lhs && same_expr(*h.lhs, *part.lo)) {
      Interval r;
      if (!__builtin_add_overflow(lo->lo, h.rhs->value, &r.lo) && !__builtin_add_overflow(lo->hi, h.rhs->value, &r.hi))
        hi = r;
    }
    if (!hi) hi = evalIn(*part.hi, env.args, vars, env.memory);
    if (!lo || !hi) return std::nullopt;
    if (lo->empty() || hi->empty()) continue;  // an empty range or id space: no access
    // An address computed from loaded values must stay inside the buffer:
    // an index out of range is either guarded by data the analysis did not
    // see or a bug, and neither is ours to clamp away.
    if ((lo->lo < 0 || hi->hi > last) && (mentions_load(*part.lo) || mentions_load(*part.hi)))
      return std::nullopt;
    int64_t b = std::max<int64_t>(lo->lo, 0), e = std::min(hi->hi, last);
    if (b > e) continue;  // entirely outside the buffer
    out.push_back(ByteRange{uint64_t(b), uint64_t(e) + 1});
  }
  normalize_ranges(out);
  return out;
}

}  // namespace libsplit

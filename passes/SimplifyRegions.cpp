#include "SimplifyRegions.h"

#include <algorithm>
#include <limits>
#include <map>

namespace libsplit::trace {

namespace {

using Kind = Expr::Kind;

bool constantOf(const ExprPtr& e, int64_t* v) {
  if (!e || e->kind != Kind::Const) return false;
  *v = e->value;
  return true;
}

void addCheck(std::vector<std::string>* checks, const std::string& c) {
  if (std::find(checks->begin(), checks->end(), c) == checks->end()) checks->push_back(c);
}

ExprPtr simplify(const ExprPtr& e);

// The range checks inside e, recorded; e's value without them.
ExprPtr strip(const ExprPtr& e, std::vector<std::string>* checks) {
  if (!e) return e;
  switch (e->kind) {
    case Kind::Const:
    case Kind::Arg:
    case Kind::Var:
      return e;
    case Kind::FitsSigned:
    case Kind::FitsUnsigned: {
      ExprPtr inner = simplify(strip(e->lhs, checks));
      addCheck(checks, print_expr(*inner) + " fits " + (e->kind == Kind::FitsSigned ? "i" : "u") +
                           std::to_string(e->value));
      return inner;
    }
    case Kind::WrapSigned:
    case Kind::WrapUnsigned:
      return make_wrap(strip(e->lhs, checks), unsigned(e->value), e->kind == Kind::WrapSigned);
    case Kind::LoadSigned:
    case Kind::LoadUnsigned:
      return make_load(unsigned(e->value), e->bits, e->kind == Kind::LoadSigned, strip(e->lhs, checks));
    default:
      break;
  }
  ExprPtr a = strip(e->lhs, checks), b = strip(e->rhs, checks);
  int64_t c;
  if (e->kind == Kind::Mul && ((constantOf(a, &c) && c == 0) || (constantOf(b, &c) && c == 0)))
    return Expr::constant(0);
  return Expr::binary(e->kind, a, b);
}

// A sum: constant + Σ coefficient × term, terms in order of appearance.
struct LinearSum {
  int64_t constant = 0;
  std::vector<std::pair<ExprPtr, int64_t>> terms;
  std::map<std::string, size_t> index;
  bool overflow = false;

  void add(const ExprPtr& e, int64_t scale) {
    int64_t c, r;
    if (constantOf(e, &c)) {
      overflow |= __builtin_mul_overflow(c, scale, &r) || __builtin_add_overflow(constant, r, &constant);
      return;
    }
    if (e->kind == Kind::Add || e->kind == Kind::Sub) {
      add(e->lhs, scale);
      add(e->rhs, e->kind == Kind::Sub ? -scale : scale);
      return;
    }
    if (e->kind == Kind::Mul && (constantOf(e->rhs, &c) || constantOf(e->lhs, &c))) {
      overflow |= __builtin_mul_overflow(scale, c, &r);
      add(e->rhs->kind == Kind::Const ? e->lhs : e->rhs, r);
      return;
    }
    auto [it, fresh] = index.emplace(print_expr(*e), terms.size());
    if (fresh) terms.emplace_back(e, scale);
    else overflow |= __builtin_add_overflow(terms[it->second].second, scale, &terms[it->second].second);
  }

  ExprPtr build() const {
    ExprPtr out;
    for (const auto& [term, coeff] : terms) {
      if (coeff == 0) continue;
      if (!out) out = make_mul(term, Expr::constant(coeff));
      else if (coeff < 0 && coeff != std::numeric_limits<int64_t>::min())
        out = Expr::binary(Kind::Sub, out, make_mul(term, Expr::constant(-coeff)));
      else out = make_add(out, make_mul(term, Expr::constant(coeff)));
    }
    return out ? make_add(out, Expr::constant(constant)) : Expr::constant(constant);
  }
};

ExprPtr simplify(const ExprPtr& e) {
  if (!e) return e;
  switch (e->kind) {
    case Kind::Const:
    case Kind::Arg:
    case Kind::Var:
      return e;
    case Kind::FitsSigned:
    case Kind::FitsUnsigned:
      return make_fits(simplify(e->lhs), unsigned(e->value), e->kind == Kind::FitsSigned);
    case Kind::WrapSigned:
    case Kind::WrapUnsigned:
      return make_wrap(simplify(e->lhs), unsigned(e->value), e->kind == Kind::WrapSigned);
    case Kind::LoadSigned:
    case Kind::LoadUnsigned:
      return make_load(unsigned(e->value), e->bits, e->kind == Kind::LoadSigned, simplify(e->lhs));
    default:
      break;
  }
  ExprPtr a = simplify(e->lhs), b = simplify(e->rhs);
  switch (e->kind) {
    case Kind::Add:
    case Kind::Sub:
    case Kind::Mul: {
      ExprPtr folded = e->kind == Kind::Add ? make_add(a, b)
                       : e->kind == Kind::Sub ? make_sub(a, b)
                                              : make_mul(a, b);
      if (folded->kind != Kind::Add && folded->kind != Kind::Sub && folded->kind != Kind::Mul)
        return folded;
      LinearSum sum;
      sum.add(folded, 1);
      return sum.overflow ? folded : sum.build();
    }
    case Kind::Div: return make_div(a, b);
    case Kind::Min: return same_expr(*a, *b) ? a : make_min(a, b);
    case Kind::Max: return same_expr(*a, *b) ? a : make_max(a, b);
    case Kind::Range: return same_expr(*a, *b) ? a : make_range(a, b);
    default: return Expr::binary(e->kind, a, b);
  }
}

}  // namespace

ExprPtr simplify_for_reading(const ExprPtr& e, std::vector<std::string>* checks) {
  return e ? simplify(strip(e, checks)) : e;
}

std::string print_readable_region(const AccessRegion& region) {
  if (!region.known) return print_region(region);
  std::vector<std::string> checks;
  AccessRegion r = region;
  for (GuardedRange& part : r.parts) {
    part.lo = simplify_for_reading(part.lo, &checks);
    part.hi = simplify_for_reading(part.hi, &checks);
    for (Guard& g : part.guards) {
      g.lo = simplify_for_reading(g.lo, &checks);
      g.hi = simplify_for_reading(g.hi, &checks);
    }
  }
  std::string out = print_region(r);
  for (size_t i = 0; i < checks.size(); ++i) out += (i ? ", " : "   (assuming ") + checks[i];
  return checks.empty() ? out : out + ")";
}

}  // namespace libsplit::trace

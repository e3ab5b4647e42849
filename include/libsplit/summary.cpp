// JSON form of the kernel summary. Layout (every field written; on reading,
// missing fields keep their defaults, unknown fields are ignored so newer
// producers stay readable, wrong types are errors):
//
// {"version": 1, "tool": "...", "kernels": [{
//    "name": "k", "args": [{"index": 0, "name": "a", "type": "float*",
//        "address_space": "global", "is_pointer": true, "is_image": false,
//        "size": 8, "is_const": true, "is_restrict": false, "reads": true,
//        "writes": false, "atomics": false, "store_unit": 0, "reduction": null,
//        "read_region": {"known": true, "parts": [{"guards": [{"var": "gid0",
//             "lo": "(arg 3)", "hi": null}], "lo": "0", "hi": "(* gid0 4)"}]},
//        "write_region": {"known": false, "reason": "..."}}],
//    "reqd_work_group_size": [0,0,0], "work_group_size_hint": [0,0,0],
//    "uses_barrier": false, "uses_local_memory": false, "uses_images": false,
//    "uses_global_atomics": false,
//    "hidden_args": [{"name": "__libsplit_ctx", "type": "ulong4", "meaning": "..."}],
//    "splittable": true, "not_splittable_reason": ""}]}
//
// "reduction" is null or {"op": "add", "bits": 32} (ArgSummary::reduction);
// added within version 1: older readers ignore it (and keep such kernels
// whole, since they use global atomics), a missing one reads as null, and an
// op this reader does not know reads as null too (no reduction: not split).
//
// "store_unit" (ArgSummary::store_unit) was added within version 1 too: a
// missing one reads as 0 (unknown: merges then go byte by byte).
//
// Region expressions are stored as their S-expression text (print_expr /
// parse_expr of region.h). The JSON itself is nlohmann-json's: ordered_json
// keeps the members in the order written above, and non-negative integers
// are parsed as uint64_t, so 64-bit sizes round-trip exactly.
#include "libsplit/summary.h"

#include <nlohmann/json.hpp>

namespace libsplit {

const KernelSummary* ProgramSummary::find(std::string_view kernel) const {
  for (const auto& k : kernels)
    if (k.name == kernel) return &k;
  return nullptr;
}

const char* reduction_op_name(ReductionOp op) {
  switch (op) {
    case ReductionOp::None: return "";
    case ReductionOp::Add: return "add";
    case ReductionOp::Min: return "min";
    case ReductionOp::Max: return "max";
    case ReductionOp::UMin: return "umin";
    case ReductionOp::UMax: return "umax";
    case ReductionOp::And: return "and";
    case ReductionOp::Or: return "or";
    case ReductionOp::Xor: return "xor";
  }
  return "";
}

std::optional<ReductionOp> parse_reduction_op(std::string_view name) {
  for (ReductionOp op : {ReductionOp::None, ReductionOp::Add, ReductionOp::Min, ReductionOp::Max,
                         ReductionOp::UMin, ReductionOp::UMax, ReductionOp::And, ReductionOp::Or,
                         ReductionOp::Xor})
    if (name == reduction_op_name(op)) return op;
  return std::nullopt;
}

namespace {

using Value = nlohmann::ordered_json;

// Object member or nullptr (also when obj is not an object).
const Value* member(const Value& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const char* address_space_name(AddressSpace a) {
  switch (a) {
    case AddressSpace::Private: return "private";
    case AddressSpace::Global: return "global";
    case AddressSpace::Constant: return "constant";
    case AddressSpace::Local: return "local";
  }
  return "private";
}

Value reduction_json(const ArgSummary& a) {
  if (a.reduction == ReductionOp::None) return Value(nullptr);
  return {{"op", reduction_op_name(a.reduction)}, {"bits", a.reduction_bits}};
}

Value expr_json(const ExprPtr& e) { return e ? Value(print_expr(*e)) : Value(nullptr); }

Value region_json(const AccessRegion& r) {
  Value v = Value::object();
  v["known"] = r.known;
  if (!r.known) {
    v["reason"] = r.unknown_reason;
    return v;
  }
  Value parts = Value::array();
  for (const GuardedRange& p : r.parts) {
    Value guards = Value::array();
    for (const Guard& g : p.guards)
      guards.push_back({{"var", print_expr(*Expr::ndvar(g.var, g.dim))},
                        {"lo", expr_json(g.lo)},
                        {"hi", expr_json(g.hi)}});
    parts.push_back(
        {{"guards", std::move(guards)}, {"lo", expr_json(p.lo)}, {"hi", expr_json(p.hi)}});
  }
  v["parts"] = std::move(parts);
  return v;
}

Value triple_json(const uint64_t t[3]) {
  return Value::array({t[0], t[1], t[2]});
}

// --- Reading ------------------------------------------------------------------

// Field readers: a missing field leaves the target unchanged; a field of the
// wrong type records an error with its path.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}
  bool ok() const { return ok_; }

  bool fail(const std::string& path, const std::string& what) {
    if (ok_ && error_) *error_ = path + ": " + what;
    ok_ = false;
    return false;
  }

  void read(const Value& obj, const char* key, const std::string& path, bool& out) {
    if (const Value* v = member(obj, key)) {
      if (v->is_boolean()) out = v->get<bool>();
      else fail(path + "." + key, "expected true/false");
    }
  }
  void read(const Value& obj, const char* key, const std::string& path, std::string& out) {
    if (const Value* v = member(obj, key)) {
      if (v->is_string()) out = v->get<std::string>();
      else fail(path + "." + key, "expected a string");
    }
  }
  template <typename Int>
  void read_uint(const Value& obj, const char* key, const std::string& path, Int& out) {
    if (const Value* v = member(obj, key)) {
      if (v->is_number_unsigned() && v->get<uint64_t>() <= uint64_t(Int(-1)))
        out = Int(v->get<uint64_t>());
      else fail(path + "." + key, "expected a non-negative integer");
    }
  }
  void read_triple(const Value& obj, const char* key, const std::string& path, uint64_t out[3]) {
    const Value* v = member(obj, key);
    if (!v) return;
    if (!v->is_array() || v->size() != 3) {
      fail(path + "." + key, "expected an array of 3 integers");
      return;
    }
    for (unsigned i = 0; i < 3; ++i) {
      if (!(*v)[i].is_number_unsigned()) {
        fail(path + "." + key, "expected an array of 3 integers");
        return;
      }
      out[i] = (*v)[i].get<uint64_t>();
    }
  }
  // An expression field: string text or null.
  void read_expr(const Value& obj, const char* key, const std::string& path, ExprPtr& out) {
    const Value* v = member(obj, key);
    if (!v || v->is_null()) return;
    if (!v->is_string()) {
      fail(path + "." + key, "expected an expression string or null");
      return;
    }
    const std::string& s = v->get_ref<const std::string&>();
    std::string err;
    out = parse_expr(s, &err);
    if (!out) fail(path + "." + key, "bad expression '" + s + "': " + err);
  }
  // The array member, or nullptr when missing or not an array (an error).
  const Value* array(const Value& obj, const char* key, const std::string& path) {
    const Value* v = member(obj, key);
    if (!v) return nullptr;
    if (!v->is_array()) {
      fail(path + "." + key, "expected an array");
      return nullptr;
    }
    return v;
  }
  bool expect_object(const Value& v, const std::string& path) {
    return v.is_object() || fail(path, "expected an object");
  }

  void read_reduction(const Value& obj, const std::string& at, ArgSummary& a) {
    const Value* v = member(obj, "reduction");
    if (!v || v->is_null()) return;
    std::string path = at + ".reduction";
    if (!expect_object(*v, path)) return;
    std::string op;
    unsigned bits = 0;
    read(*v, "op", path, op);
    read_uint(*v, "bits", path, bits);
    if (!ok()) return;
    std::optional<ReductionOp> known = parse_reduction_op(op);
    if (!known || *known == ReductionOp::None || (bits != 32 && bits != 64)) return;
    a.reduction = *known;
    a.reduction_bits = bits;
  }

  void read_region(const Value& obj, const char* key, const std::string& at, AccessRegion& r) {
    const Value* v = member(obj, key);
    if (!v) return;
    std::string path = at + "." + key;
    if (!expect_object(*v, path)) return;
    r = AccessRegion{};
    read(*v, "known", path, r.known);
    read(*v, "reason", path, r.unknown_reason);
    const auto* parts = array(*v, "parts", path);
    if (!parts) return;
    for (size_t i = 0; i < parts->size(); ++i) {
      const Value& pv = (*parts)[i];
      std::string ppath = path + ".parts[" + std::to_string(i) + "]";
      if (!expect_object(pv, ppath)) return;
      GuardedRange part;
      read_expr(pv, "lo", ppath, part.lo);
      read_expr(pv, "hi", ppath, part.hi);
      if (const auto* guards = array(pv, "guards", ppath))
        for (size_t g = 0; g < guards->size(); ++g) {
          const Value& gv = (*guards)[g];
          std::string gpath = ppath + ".guards[" + std::to_string(g) + "]";
          if (!expect_object(gv, gpath)) return;
          ExprPtr var;
          read_expr(gv, "var", gpath, var);
          if (!var || var->kind != Expr::Kind::Var) {
            fail(gpath + ".var", "expected an NDRange variable such as \"gid0\"");
            return;
          }
          Guard guard;
          guard.var = var->var;
          guard.dim = unsigned(var->value);
          read_expr(gv, "lo", gpath, guard.lo);
          read_expr(gv, "hi", gpath, guard.hi);
          part.guards.push_back(std::move(guard));
        }
      r.parts.push_back(std::move(part));
    }
    drop_repeated_parts(r);
  }

 private:
  std::string* error_;
  bool ok_ = true;
};

}  // namespace

std::string to_json(const ProgramSummary& s) {
  Value root = Value::object();
  root["version"] = s.version;
  root["tool"] = s.tool;
  Value kernels = Value::array();
  for (const KernelSummary& k : s.kernels) {
    Value kv = Value::object();
    kv["name"] = k.name;
    Value args = Value::array();
    for (const ArgSummary& a : k.args) {
      Value av = Value::object();
      av["index"] = a.index;
      av["name"] = a.name;
      av["type"] = a.type;
      av["address_space"] = address_space_name(a.address_space);
      av["is_pointer"] = a.is_pointer;
      av["is_image"] = a.is_image;
      av["size"] = a.size;
      av["is_const"] = a.is_const;
      av["is_restrict"] = a.is_restrict;
      av["reads"] = a.reads;
      av["writes"] = a.writes;
      av["atomics"] = a.atomics;
      av["store_unit"] = a.store_unit;
      av["reduction"] = reduction_json(a);
      av["read_region"] = region_json(a.read_region);
      av["write_region"] = region_json(a.write_region);
      args.push_back(std::move(av));
    }
    kv["args"] = std::move(args);
    kv["reqd_work_group_size"] = triple_json(k.reqd_work_group_size);
    kv["work_group_size_hint"] = triple_json(k.work_group_size_hint);
    kv["uses_barrier"] = k.uses_barrier;
    kv["uses_local_memory"] = k.uses_local_memory;
    kv["uses_images"] = k.uses_images;
    kv["uses_global_atomics"] = k.uses_global_atomics;
    Value hidden = Value::array();
    for (const auto& h : k.hidden_args)
      hidden.push_back({{"name", h.name}, {"type", h.type}, {"meaning", h.meaning}});
    kv["hidden_args"] = std::move(hidden);
    kv["splittable"] = k.splittable;
    kv["not_splittable_reason"] = k.not_splittable_reason;
    kernels.push_back(std::move(kv));
  }
  root["kernels"] = std::move(kernels);
  // Invalid UTF-8 (a reason quoting a Latin-1 source line) becomes U+FFFD
  // rather than an exception: the text is for people, the parser stays strict.
  return root.dump(2, ' ', false, Value::error_handler_t::replace) + "\n";
}

std::optional<ProgramSummary> parse_summary(std::string_view text, std::string* error) {
  Value parsed;
  try {
    parsed = Value::parse(text);
  } catch (const Value::parse_error& e) {
    // e.what() names the line and column of the fault.
    if (error) *error = std::string("summary is not valid JSON: ") + e.what();
    return std::nullopt;
  }
  const Value* root = &parsed;
  Reader r(error);
  ProgramSummary s;
  if (!r.expect_object(*root, "summary")) return std::nullopt;
  const Value* version = member(*root, "version");
  if (!version || !version->is_number_integer() || version->get<int64_t>() != 1) {
    r.fail("summary.version", "expected version 1");
    return std::nullopt;
  }
  r.read(*root, "tool", "summary", s.tool);
  const Value* kernels = member(*root, "kernels");
  if (!kernels || !kernels->is_array()) {
    r.fail("summary.kernels", "expected an array of kernels");
    return std::nullopt;
  }
  for (size_t ki = 0; ki < kernels->size(); ++ki) {
    const Value& kv = (*kernels)[ki];
    std::string kpath = "kernels[" + std::to_string(ki) + "]";
    if (!r.expect_object(kv, kpath)) return std::nullopt;
    KernelSummary k;
    if (const Value* name = member(kv, "name"); !name || !name->is_string()) {
      r.fail(kpath + ".name", "expected the kernel name");
      return std::nullopt;
    }
    r.read(kv, "name", kpath, k.name);
    if (const auto* args = r.array(kv, "args", kpath))
      for (size_t ai = 0; ai < args->size(); ++ai) {
        const Value& av = (*args)[ai];
        std::string apath = kpath + ".args[" + std::to_string(ai) + "]";
        if (!r.expect_object(av, apath)) return std::nullopt;
        ArgSummary a;
        a.index = unsigned(ai);
        r.read_uint(av, "index", apath, a.index);
        r.read(av, "name", apath, a.name);
        r.read(av, "type", apath, a.type);
        std::string space = address_space_name(a.address_space);
        r.read(av, "address_space", apath, space);
        if (space == "private") a.address_space = AddressSpace::Private;
        else if (space == "global") a.address_space = AddressSpace::Global;
        else if (space == "constant") a.address_space = AddressSpace::Constant;
        else if (space == "local") a.address_space = AddressSpace::Local;
        else r.fail(apath + ".address_space", "unknown address space '" + space + "'");
        r.read(av, "is_pointer", apath, a.is_pointer);
        r.read(av, "is_image", apath, a.is_image);
        r.read_uint(av, "size", apath, a.size);
        r.read(av, "is_const", apath, a.is_const);
        r.read(av, "is_restrict", apath, a.is_restrict);
        r.read(av, "reads", apath, a.reads);
        r.read(av, "writes", apath, a.writes);
        r.read(av, "atomics", apath, a.atomics);
        r.read_uint(av, "store_unit", apath, a.store_unit);
        r.read_reduction(av, apath, a);
        r.read_region(av, "read_region", apath, a.read_region);
        r.read_region(av, "write_region", apath, a.write_region);
        k.args.push_back(std::move(a));
      }
    r.read_triple(kv, "reqd_work_group_size", kpath, k.reqd_work_group_size);
    r.read_triple(kv, "work_group_size_hint", kpath, k.work_group_size_hint);
    r.read(kv, "uses_barrier", kpath, k.uses_barrier);
    r.read(kv, "uses_local_memory", kpath, k.uses_local_memory);
    r.read(kv, "uses_images", kpath, k.uses_images);
    r.read(kv, "uses_global_atomics", kpath, k.uses_global_atomics);
    if (const auto* hidden = r.array(kv, "hidden_args", kpath))
      for (size_t hi = 0; hi < hidden->size(); ++hi) {
        const Value& hv = (*hidden)[hi];
        std::string hpath = kpath + ".hidden_args[" + std::to_string(hi) + "]";
        if (!r.expect_object(hv, hpath)) return std::nullopt;
        KernelSummary::Hidden h;
        r.read(hv, "name", hpath, h.name);
        r.read(hv, "type", hpath, h.type);
        r.read(hv, "meaning", hpath, h.meaning);
        k.hidden_args.push_back(std::move(h));
      }
    r.read(kv, "splittable", kpath, k.splittable);
    r.read(kv, "not_splittable_reason", kpath, k.not_splittable_reason);
    if (!r.ok()) return std::nullopt;
    s.kernels.push_back(std::move(k));
  }
  if (!r.ok()) return std::nullopt;
  return s;
}

}  // namespace libsplit

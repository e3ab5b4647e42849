#include "libsplit/json.h"

#include <charconv>
#include <cstdlib>

namespace libsplit::json {

Value Value::array(Array items) {
  Value v;
  v.type_ = Type::Array;
  v.array_ = std::move(items);
  return v;
}

Value Value::object(Object members) {
  Value v;
  v.type_ = Type::Object;
  v.object_ = std::move(members);
  return v;
}

Value Value::number_text(std::string text) {
  Value v;
  v.type_ = Type::Number;
  v.text_ = std::move(text);
  return v;
}

std::optional<bool> Value::as_bool() const {
  if (!is_bool()) return std::nullopt;
  return bool_;
}

std::optional<int64_t> Value::as_int64() const {
  if (!is_number()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (ec != std::errc() || p != text_.data() + text_.size()) return std::nullopt;
  return v;
}

std::optional<uint64_t> Value::as_uint64() const {
  if (!is_number()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text_.data(), text_.data() + text_.size(), v);
  if (ec != std::errc() || p != text_.data() + text_.size()) return std::nullopt;
  return v;
}

std::optional<double> Value::as_double() const {
  if (!is_number()) return std::nullopt;
  return std::strtod(text_.c_str(), nullptr);
}

const Value* Value::get(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : object_)
    if (k == key) return &v;
  return nullptr;
}

Value& Value::set(std::string key, Value v) {
  for (auto& [k, old] : object_)
    if (k == key) {
      old = std::move(v);
      return old;
    }
  object_.emplace_back(std::move(key), std::move(v));
  return object_.back().second;
}

Value& Value::push(Value v) {
  array_.push_back(std::move(v));
  return array_.back();
}

namespace {

void write_string(std::string_view s, std::string& out) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  out += '"';
}

void write_value(const Value& v, int indent, int depth, std::string& out) {
  auto newline = [&](int d) {
    if (indent <= 0) return;
    out += '\n';
    out.append(size_t(indent) * size_t(d), ' ');
  };
  switch (v.type()) {
    case Value::Type::Null: out += "null"; break;
    case Value::Type::Bool: out += *v.as_bool() ? "true" : "false"; break;
    case Value::Type::Number: out += *v.number_literal(); break;
    case Value::Type::String: write_string(*v.as_string(), out); break;
    case Value::Type::Array: {
      const auto& a = *v.as_array();
      out += '[';
      // Arrays of scalars stay on one line: easier to read.
      bool flat = true;
      for (const auto& e : a) flat = flat && !e.is_array() && !e.is_object();
      for (size_t i = 0; i < a.size(); ++i) {
        if (i) out += flat && indent > 0 ? ", " : ",";
        if (!flat) newline(depth + 1);
        write_value(a[i], indent, depth + 1, out);
      }
      if (!flat && !a.empty()) newline(depth);
      out += ']';
      break;
    }
    case Value::Type::Object: {
      const auto& o = *v.as_object();
      out += '{';
      for (size_t i = 0; i < o.size(); ++i) {
        if (i) out += ',';
        newline(depth + 1);
        write_string(o[i].first, out);
        out += indent > 0 ? ": " : ":";
        write_value(o[i].second, indent, depth + 1, out);
      }
      if (!o.empty()) newline(depth);
      out += '}';
      break;
    }
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::optional<Value> parse_document(std::string* error) {
    skip_ws();
    std::optional<Value> v = parse_value(0);
    if (v) {
      skip_ws();
      if (pos_ != text_.size()) v = fail("trailing characters after the value");
    }
    if (!v && error) *error = where() + ": " + error_;
    return v;
  }

 private:
  static constexpr int kMaxDepth = 256;

  std::nullopt_t fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    return std::nullopt;
  }

  std::string where() const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return "line " + std::to_string(line) + " col " + std::to_string(col);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }

  bool consume_word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  std::optional<Value> parse_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    switch (peek()) {
      case '{': return parse_object(depth);
      case '[': return parse_array(depth);
      case '"': {
        auto s = parse_string();
        if (!s) return std::nullopt;
        return Value(std::move(*s));
      }
      case 't':
        if (consume_word("true")) return Value(true);
        break;
      case 'f':
        if (consume_word("false")) return Value(false);
        break;
      case 'n':
        if (consume_word("null")) return Value(nullptr);
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return parse_number();
    }
    if (at_end()) return fail("unexpected end of input");
    return fail(std::string("unexpected character '") + peek() + "'");
  }

  std::optional<Value> parse_number() {
    size_t start = pos_;
    auto digits = [&] {
      size_t n = 0;
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_, ++n;
      return n;
    };
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return fail("bad number");
    }
    if (peek() == '.') {
      ++pos_;
      if (digits() == 0) return fail("bad number: digits expected after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (digits() == 0) return fail("bad number: digits expected in exponent");
    }
    return Value::number_text(std::string(text_.substr(start, pos_ - start)));
  }

  std::optional<unsigned> parse_hex4() {
    if (pos_ + 4 > text_.size()) return fail("truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
      else return fail("bad \\u escape");
    }
    return v;
  }

  static void append_utf8(unsigned cp, std::string& out) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::optional<std::string> parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (at_end()) return fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) return fail("unterminated escape");
      char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          auto cp = parse_hex4();
          if (!cp) return std::nullopt;
          unsigned code = *cp;
          if (code >= 0xD800 && code < 0xDC00) {  // surrogate pair
            if (!consume_word("\\u")) return fail("lone surrogate in \\u escape");
            auto lo = parse_hex4();
            if (!lo) return std::nullopt;
            if (*lo < 0xDC00 || *lo >= 0xE000) return fail("bad surrogate pair");
            code = 0x10000 + ((code - 0xD800) << 10) + (*lo - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            return fail("lone surrogate in \\u escape");
          }
          append_utf8(code, out);
          break;
        }
        default:
          return fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  std::optional<Value> parse_array(int depth) {
    ++pos_;
    Value v = Value::array();
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return v;
    }
    while (true) {
      skip_ws();
      auto e = parse_value(depth + 1);
      if (!e) return std::nullopt;
      v.push(std::move(*e));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return v;
      }
      return fail("expected ',' or ']' in array");
    }
  }

  std::optional<Value> parse_object(int depth) {
    ++pos_;
    Value v = Value::object();
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return v;
    }
    while (true) {
      skip_ws();
      if (peek() != '"') return fail("expected a string key in object");
      auto key = parse_string();
      if (!key) return std::nullopt;
      skip_ws();
      if (peek() != ':') return fail("expected ':' after object key");
      ++pos_;
      skip_ws();
      auto e = parse_value(depth + 1);
      if (!e) return std::nullopt;
      if (v.get(*key)) return fail("duplicate key \"" + *key + "\"");
      v.set(std::move(*key), std::move(*e));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return v;
      }
      return fail("expected ',' or '}' in object");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

std::string write(const Value& v, int indent) {
  std::string out;
  write_value(v, indent, 0, out);
  return out;
}

std::optional<Value> parse(std::string_view text, std::string* error) {
  return Parser(text).parse_document(error);
}

}  // namespace libsplit::json

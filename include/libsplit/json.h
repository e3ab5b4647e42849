// A small JSON value with a strict parser and a writer: enough for the kernel
// summary (summary.h) and nothing more. Numbers keep their literal text so
// 64-bit integers round-trip exactly; objects keep key order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace libsplit::json {

class Value {
 public:
  enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : type_(Type::Bool), bool_(b) {}
  Value(int v) : Value(int64_t(v)) {}
  Value(unsigned v) : Value(uint64_t(v)) {}
  Value(int64_t v) : type_(Type::Number), text_(std::to_string(v)) {}
  Value(uint64_t v) : type_(Type::Number), text_(std::to_string(v)) {}
  Value(const char* s) : type_(Type::String), text_(s) {}
  Value(std::string s) : type_(Type::String), text_(std::move(s)) {}
  Value(std::string_view s) : type_(Type::String), text_(s) {}
  static Value array(Array items = {});
  static Value object(Object members = {});
  // A number from its JSON literal text (checked by the parser, not here).
  static Value number_text(std::string text);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_number() const { return type_ == Type::Number; }
  bool is_string() const { return type_ == Type::String; }
  bool is_array() const { return type_ == Type::Array; }
  bool is_object() const { return type_ == Type::Object; }

  // Typed reads; nullopt when the type (or integer range) does not match.
  std::optional<bool> as_bool() const;
  std::optional<int64_t> as_int64() const;
  std::optional<uint64_t> as_uint64() const;
  std::optional<double> as_double() const;
  const std::string* as_string() const { return is_string() ? &text_ : nullptr; }
  // The literal text of a number ("12", "-1.5e3"); nullptr for other types.
  const std::string* number_literal() const { return is_number() ? &text_ : nullptr; }
  const Array* as_array() const { return is_array() ? &array_ : nullptr; }
  const Object* as_object() const { return is_object() ? &object_ : nullptr; }

  // Object member (first with that key) or nullptr.
  const Value* get(std::string_view key) const;
  // Adds or replaces a member; the value must be an object.
  Value& set(std::string key, Value v);
  // Appends to an array.
  Value& push(Value v);

  bool operator==(const Value& o) const = default;

 private:
  Type type_ = Type::Null;
  bool bool_ = false;
  std::string text_;  // String: the characters; Number: the literal
  Array array_;
  Object object_;
};

// JSON text of v. indent > 0 pretty-prints with that many spaces per level.
std::string write(const Value& v, int indent = 2);

// Parses exactly one JSON value (RFC 8259; surrounding whitespace allowed).
// nullopt + *error ("line L col C: what") on malformed text.
std::optional<Value> parse(std::string_view text, std::string* error = nullptr);

}  // namespace libsplit::json

#include "controls.h"

#include <cstdlib>
#include <sstream>
#include <string_view>

namespace libsplit {
namespace {

bool parse_value(std::string_view s, bool* out) {
  if (s == "1" || s == "true" || s == "yes" || s == "on") return *out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off" || s.empty()) return *out = false, true;
  return false;
}

bool parse_value(std::string_view s, int* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::string copy(s);
  long v = std::strtol(copy.c_str(), &end, 10);
  if (*end != '\0') return false;
  *out = static_cast<int>(v);
  return true;
}

bool parse_value(std::string_view s, std::string* out) {
  *out = std::string(s);
  return true;
}

template <class T>
std::string default_text(const T& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
std::string default_text(bool v) { return v ? "1" : "0"; }
std::string default_text(const std::string& v) { return v.empty() ? "(empty)" : v; }

}  // namespace

Controls read_controls(const char* (*getenv_fn)(const char*), std::string* warnings) {
  Controls c;
#define LIBSPLIT_CONTROL(env, field, type, dflt, doc)                                  \
  if (const char* v = getenv_fn("LIBSPLIT_" #env)) {                                   \
    if (!parse_value(v, &c.field) && warnings)                                         \
      *warnings += "libsplit: ignoring malformed LIBSPLIT_" #env "='" + std::string(v) + \
                   "' (expected " #type ")\n";                                         \
  }
#include "controls.def"
#undef LIBSPLIT_CONTROL
  return c;
}

std::string controls_documentation() {
  std::ostringstream os;
  Controls defaults;
#define LIBSPLIT_CONTROL(env, field, type, dflt, doc)                                \
  os << "LIBSPLIT_" #env " (" #type ", default " << default_text(defaults.field) \
     << ")\n    " << doc << "\n";
#include "controls.def"
#undef LIBSPLIT_CONTROL
  return os.str();
}

}  // namespace libsplit

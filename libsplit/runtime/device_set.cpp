#include "device_set.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>

namespace libsplit {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "*" -> -1, a number -> itself, anything else -> -2 (malformed).
long parse_index(std::string_view s) {
  if (s == "*") return -1;
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return -2;
  return static_cast<long>(v);
}

using Matcher = std::function<bool(const DeviceDesc&)>;

bool parse_term(std::string_view term, Matcher* out, std::string* error) {
  auto colon = term.find(':');
  if (term == "all" || term == "*") {
    *out = [](const DeviceDesc&) { return true; };
    return true;
  }
  if (colon == std::string_view::npos) {
    *error = "term '" + std::string(term) + "' has no ':'";
    return false;
  }
  std::string key = lower(trim(term.substr(0, colon)));
  std::string_view value = trim(term.substr(colon + 1));
  if (key == "type") {
    std::string t = lower(value);
    if (t == "gpu") *out = [](const DeviceDesc& d) { return d.gpu; };
    else if (t == "cpu") *out = [](const DeviceDesc& d) { return d.cpu; };
    else if (t == "accelerator" || t == "acc") *out = [](const DeviceDesc& d) { return d.accelerator; };
    else if (t == "all") *out = [](const DeviceDesc&) { return true; };
    else {
      *error = "unknown device type '" + std::string(value) + "'";
      return false;
    }
    return true;
  }
  if (key == "name") {
    std::string needle = lower(value);
    *out = [needle](const DeviceDesc& d) { return lower(d.name).find(needle) != std::string::npos; };
    return true;
  }
  long p = parse_index(key == "*" ? std::string_view("*") : trim(term.substr(0, colon)));
  long d = parse_index(value);
  if (p == -2 || d == -2) {
    *error = "term '" + std::string(term) + "' is not P:D, type:..., or name:...";
    return false;
  }
  *out = [p, d](const DeviceDesc& x) {
    return (p < 0 || x.platform == static_cast<unsigned long>(p)) &&
           (d < 0 || x.index == static_cast<unsigned long>(d));
  };
  return true;
}

}  // namespace

DeviceSelection select_devices(std::string_view spec, const std::vector<DeviceDesc>& all) {
  DeviceSelection sel;
  std::vector<Matcher> matchers;
  std::vector<std::string> terms;
  spec = trim(spec);
  if (spec.empty()) spec = "all";
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view term = trim(spec.substr(start, comma - start));
    start = comma + 1;
    if (term.empty()) continue;
    Matcher m;
    if (!parse_term(term, &m, &sel.error)) {
      sel.error = "LIBSPLIT_DEVICES: " + sel.error;
      sel.reasons.assign(all.size(), "not chosen: malformed LIBSPLIT_DEVICES");
      return sel;
    }
    matchers.push_back(std::move(m));
    terms.emplace_back(term);
  }
  for (unsigned i = 0; i < all.size(); ++i) {
    std::string why;
    for (size_t t = 0; t < matchers.size(); ++t)
      if (matchers[t](all[i])) {
        why = "chosen: matches '" + terms[t] + "'";
        break;
      }
    if (!why.empty()) sel.chosen.push_back(i);
    sel.reasons.push_back(why.empty() ? "not chosen: matches no term" : why);
  }
  return sel;
}

}  // namespace libsplit

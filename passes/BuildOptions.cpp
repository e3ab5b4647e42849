#include "BuildOptions.h"

namespace libsplit::cc {

std::vector<std::string> splitOptions(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < text.size()) cur += text[++i];
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      have = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Flags Clang's -cc1 accepts and that can change what the source means.
constexpr std::string_view kKeptFlags[] = {
    "-cl-single-precision-constant",
    "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-mad-enable", "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations", "-cl-finite-math-only", "-cl-fast-relaxed-math",
    "-cl-uniform-work-group-size", "-w",
};

}  // namespace

FilteredOptions filterBuildOptions(const std::vector<std::string>& options) {
  std::vector<std::string> words;
  for (const auto& o : options)
    for (auto& w : splitOptions(o)) words.push_back(std::move(w));
  FilteredOptions out;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    // -D/-U/-I take their value joined or as the next word.
    if (w == "-D" || w == "-U" || w == "-I") {
      if (i + 1 < words.size()) {
        out.clang.push_back(w + words[i + 1]);
        ++i;
      } else {
        out.ignored.push_back(w);
      }
      continue;
    }
    if (startsWith(w, "-D") || startsWith(w, "-U") || startsWith(w, "-I") ||
        startsWith(w, "-cl-std=") || startsWith(w, "-cl-ext=")) {
      out.clang.push_back(w);
      continue;
    }
    bool kept = false;
    for (std::string_view f : kKeptFlags)
      if (w == f) kept = true;
    (kept ? out.clang : out.ignored).push_back(w);
  }
  return out;
}

}  // namespace libsplit::cc

#include "program_source.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace libsplit {

std::vector<std::string> split_options(const std::string& options) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : options) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur), cur.clear(), in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

namespace {

namespace fs = std::filesystem;


std::vector<std::string> include_dirs(const std::string& options) {
  std::vector<std::string> dirs;
  auto words = split_options(options);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string dir;
    if (words[i] == "-I" && i + 1 < words.size()) dir = words[++i];
    else if (words[i].rfind("-I", 0) == 0) dir = words[i].substr(2);
    if (dir.empty()) continue;
    std::error_code ec;
    fs::path abs = fs::absolute(dir, ec);
    dirs.push_back(ec ? dir : abs.string());
  }
  return dirs;
}

bool read_text(const fs::path& path, std::string* text) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// The text after '#' and spaces, when the line is a preprocessor directive
// starting with `word`; npos otherwise.
size_t directive(const std::string& line, const std::string& word) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#') return std::string::npos;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, word.size(), word) != 0) return std::string::npos;
  return i + word.size();
}

struct Inliner {
  std::vector<std::string> dirs;
  const std::vector<EmbeddedHeader>& embedded;
  std::set<std::string> once;  // headers marked #pragma once already inlined

  // `where`: the including file's directory (empty for the program source).
  std::string run(const std::string& text, const std::string& where, int depth) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (directive(line, "pragma") != std::string::npos &&
          line.find("once") != std::string::npos)
        continue;  // handled by `once`; inlined, it would apply to the whole source
      size_t at = directive(line, "include");
      if (at == std::string::npos || depth > 32) {
        out += line + "\n";
        continue;
      }
      size_t open = line.find_first_of("\"<", at);
      char close = open != std::string::npos && line[open] == '<' ? '>' : '"';
      size_t end = open == std::string::npos ? open : line.find(close, open + 1);
      if (end == std::string::npos) {
        out += line + "\n";
        continue;
      }
      std::string name = line.substr(open + 1, end - open - 1);
      std::string key, body, dir;
      if (!resolve(name, close == '"', where, &key, &body, &dir)) {
        out += line + "\n";
        continue;
      }
      bool has_once = false;
      std::istringstream hin(body);
      for (std::string l; std::getline(hin, l);)
        if (directive(l, "pragma") != std::string::npos && l.find("once") != std::string::npos)
          has_once = true;
      if (has_once && !once.insert(key).second) continue;
      out += run(body, dir, depth + 1);
    }
    return out;
  }

  bool resolve(const std::string& name, bool quoted, const std::string& where, std::string* key,
               std::string* body, std::string* dir) {
    for (const EmbeddedHeader& h : embedded)
      if (h.name == name) {
        *key = "embedded:" + name;
        *body = h.text;
        dir->clear();
        return true;
      }
    std::vector<std::string> search;
    if (quoted && !where.empty()) search.push_back(where);
    search.insert(search.end(), dirs.begin(), dirs.end());
    for (const std::string& d : search) {
      fs::path path = fs::path(d) / name;
      if (read_text(path, body)) {
        std::error_code ec;
        fs::path canon = fs::weakly_canonical(path, ec);
        *key = ec ? path.string() : canon.string();
        *dir = path.parent_path().string();
        return true;
      }
    }
    return false;
  }
};

// Macros a unit #defines outside include-guarded regions (#ifndef X /
// #define X ... #endif): those stay defined, like the guard itself, so a
// later unit that includes the same header skips it and still sees them.
std::vector<std::string> defined_macros(const std::string& text) {
  std::vector<std::string> names;
  std::string pending_guard;  // the last line was #ifndef of this name
  std::vector<bool> guarded;  // per open #if: is it an include guard
  unsigned inside_guards = 0;
  std::istringstream in(text);
  auto first_word = [](const std::string& s, size_t at) {
    size_t b = s.find_first_not_of(" \t", at);
    if (b == std::string::npos) return std::string();
    size_t e = s.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", b);
    return s.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    size_t at;
    std::string guard = pending_guard;
    pending_guard.clear();
    if ((at = directive(line, "ifndef")) != std::string::npos) {
      guarded.push_back(false);
      pending_guard = first_word(line, at);
    } else if (directive(line, "if") != std::string::npos) {  // #if, #ifdef
      guarded.push_back(false);
    } else if (directive(line, "endif") != std::string::npos) {
      if (!guarded.empty()) {
        if (guarded.back()) --inside_guards;
        guarded.pop_back();
      }
    } else if ((at = directive(line, "define")) != std::string::npos) {
      std::string name = first_word(line, at);
      if (!guard.empty() && name == guard && !guarded.empty()) {
        guarded.back() = true;
        ++inside_guards;
      } else if (!name.empty() && inside_guards == 0) {
        names.push_back(name);
      }
    }
  }
  return names;
}

}  // namespace

std::string inline_includes(const std::string& source, const std::string& options,
                            const std::vector<EmbeddedHeader>& embedded) {
  Inliner inliner{include_dirs(options), embedded, {}};
  return inliner.run(source, "", 0);
}

std::string single_source(const std::vector<CompileUnit>& units, std::string* options) {
  std::string out;
  std::vector<std::string> kept = split_options(*options);
  for (const CompileUnit& unit : units) {
    std::string before, after;
    auto words = split_options(unit.options);
    for (size_t i = 0; i < words.size(); ++i) {
      std::string w = words[i];
      if ((w == "-D" || w == "-U" || w == "-I") && i + 1 < words.size()) w += words[++i];
      if (w.rfind("-D", 0) == 0 && w.size() > 2) {
        std::string def = w.substr(2);
        size_t eq = def.find('=');
        std::string name = def.substr(0, eq);
        before += "#define " + name + " " + (eq == std::string::npos ? "1" : def.substr(eq + 1)) + "\n";
        after += "#undef " + name + "\n";
      } else if (w.rfind("-U", 0) == 0 && w.size() > 2) {
        before += "#undef " + w.substr(2) + "\n";
      } else if (w.rfind("-I", 0) == 0) {
        // Headers are already inlined; a -I on the single source is harmless
        // but the directory may be gone.
      } else {
        bool seen = false;
        for (const std::string& k : kept) seen |= k == w;
        if (!seen) kept.push_back(w);
      }
    }
    for (const std::string& name : defined_macros(unit.source)) after += "#undef " + name + "\n";
    out += before + unit.source + "\n" + after;
  }
  options->clear();
  for (const std::string& k : kept) *options += (options->empty() ? "" : " ") + k;
  return out;
}

std::string link_options_for_build(const std::string& link_options) {
  std::string out;
  for (const std::string& w : split_options(link_options))
    if (w != "-create-library" && w != "-enable-link-options") out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace libsplit

// Small helpers shared by the libsplit-cc tests: temp dirs, files, running
// the tool.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace cctest {

inline std::string makeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "libsplit-cc-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) std::abort();
  return tmpl;
}

inline void writeFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
}

inline std::string readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ToolRun {
  int exitCode = -1;
  std::string out, err;
};

// Runs libsplit-cc with args (already shell-quoted where needed).
inline ToolRun runTool(const std::string& args, const std::string& workDir) {
  std::string errPath = workDir + "/stderr.txt";
  std::string cmd = std::string("'") + LIBSPLIT_CC_PATH + "' " + args + " 2>'" + errPath + "'";
  ToolRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = readFile(errPath);
  return r;
}

}  // namespace cctest

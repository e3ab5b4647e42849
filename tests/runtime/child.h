// Runs a program as a child (posix_spawn, no shell) with environment changes
// and captures its stdout/stderr through temporary files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rt_test {

struct ChildResult {
  int exit_code = -1;  // -1: killed by a signal or not started
  std::string out, err;
};

// value: set the variable; nullopt: remove it.
using Env = std::map<std::string, std::optional<std::string>>;

// No preload and none of the caller's LIBSPLIT_* variables: the start of
// every test's environment (a developer's LIBSPLIT_LOG must not leak in).
Env without_shim();

ChildResult run_child(const std::vector<std::string>& argv, const Env& env, int timeout_s = 120);

std::string read_text(const std::string& path);

}  // namespace rt_test

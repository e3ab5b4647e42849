// Pass-through overhead of libsplit.so on ONE device: runs `rt_app bench`
// (2000 x write + set arg + launch + blocking read of a tiny kernel)
// alternately without and with LD_PRELOAD, and prints the median ratio.
// A benchmark, not a test: `runtime_overhead_bench [repeats]`.
#include "child.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
double seconds_of(const rt_test::ChildResult& r) {
  auto pos = r.err.find("bench_seconds ");
  return pos == std::string::npos ? -1 : std::atof(r.err.c_str() + pos + 14);
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const char* devices = std::getenv("POCL_DEVICES");
  rt_test::Env native = {{"POCL_DEVICES", devices ? devices : "pthread"}, {"LD_PRELOAD", std::nullopt}};
  rt_test::Env shim = native;
  shim["LD_PRELOAD"] = std::string(LIBSPLIT_SO);
  std::vector<double> tn, ts;
  for (int i = 0; i < repeats; ++i) {
    auto a = rt_test::run_child({RT_APP, "bench"}, native);
    auto b = rt_test::run_child({RT_APP, "bench"}, shim);
    if (a.exit_code || b.exit_code || a.out != b.out) {
      fprintf(stderr, "run failed or outputs differ\n%s%s", a.err.c_str(), b.err.c_str());
      return 1;
    }
    tn.push_back(seconds_of(a));
    ts.push_back(seconds_of(b));
  }
  double n = median(tn), s = median(ts);
  printf("POCL_DEVICES=%s  native %.4f s  with libsplit.so %.4f s  ratio %.3f  (median of %d)\n",
         native["POCL_DEVICES"]->c_str(), n, s, s / n, repeats);
  return 0;
}

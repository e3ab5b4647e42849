// Benchmark (not a test): ns per evaluate_region call for a realistic
// summary, a tiled matrix multiply C = A*B (row = gid1, col = gid0) with
// guarded row/column bounds and a loop range over k.
#include "libsplit/region.h"

#include <chrono>
#include <cstdio>

using namespace libsplit;

int main() {
  auto P = [](const char* t) { return parse_expr(t); };
  // A[row*K + k], k in [0, K-1], guarded by row <= M-1
  AccessRegion a;
  a.parts.push_back(GuardedRange{{Guard{NDVar::GlobalId, 1, nullptr, P("(- (arg 3) 1)")}},
                                 P("(* (+ (* gid1 (arg 5)) (range 0 (- (arg 5) 1))) 4)"),
                                 P("(+ (* (+ (* gid1 (arg 5)) (range 0 (- (arg 5) 1))) 4) 3)")});
  // B[k*N + col] with a second access for a remainder tile.
  AccessRegion b;
  for (int i = 0; i < 2; ++i)
    b.parts.push_back(GuardedRange{{Guard{NDVar::GlobalId, 0, nullptr, P("(- (arg 4) 1)")}},
                                   P("(* (+ (* (range 0 (- (arg 5) 1)) (arg 4)) gid0) 4)"),
                                   P("(+ (* (+ (* (range 0 (- (arg 5) 1)) (arg 4)) gid0) 4) 3)")});
  // C[row*N + col], two guards.
  AccessRegion c;
  c.parts.push_back(GuardedRange{{Guard{NDVar::GlobalId, 1, nullptr, P("(- (arg 3) 1)")},
                                  Guard{NDVar::GlobalId, 0, nullptr, P("(- (arg 4) 1)")}},
                                 P("(* (+ (* gid1 (arg 4)) gid0) 4)"),
                                 P("(+ (* (+ (* gid1 (arg 4)) gid0) 4) 3)")});
  NDRange nd;
  nd.dims = 2;
  nd.global[0] = nd.global[1] = 1024;
  nd.local[0] = nd.local[1] = 16;
  std::vector<std::optional<int64_t>> args = {std::nullopt, std::nullopt, std::nullopt, 1024, 1024, 1024};
  const int iters = 200000;
  uint64_t sink = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    EvalEnv env = slice_env(nd, Slice{1, uint64_t(i % 32), 32}, args);
    for (const AccessRegion* r : {&a, &b, &c}) {
      auto out = evaluate_region(*r, env, 1024 * 1024 * 4);
      sink += out ? out->size() : 0;
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  std::printf("evaluate_region: %.0f ns per call (3 buffers, %d slices; slice_env included)\n",
              ns / (3.0 * iters), iters);
  std::printf("per launch slice (3 buffers + env): %.2f us   [checksum %llu]\n", ns / iters / 1000.0,
              (unsigned long long)sink);
  return 0;
}

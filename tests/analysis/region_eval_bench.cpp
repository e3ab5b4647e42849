// Benchmark (not a test): ns per evaluate_region call, and per launch, on
// summaries the region analysis produced for two corpus kernels (stencil2d:
// 5 guarded-free read parts with clamps; matmul_tiled: latch-bounded loop
// ranges with run-time no-wrap checks). Regenerate the embedded JSON with
//   region_tool --summary tests/corpus/<kernel>.cl
// Optional argument: a summary JSON file to time instead (every kernel, all
// scalar arguments = 1024, a 2D 1024x1024 launch with 16x16 groups).
#include "libsplit/region.h"
#include "libsplit/split_plan.h"
#include "libsplit/summary.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace libsplit;

namespace {

const char* kSummaries[] = {
    R"json({"version":1,"tool":"libsplit region analysis","kernels":[{"name":"stencil2d","args":[{"index":0,"name":"","type":"","address_space":"global","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":true,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[{"guards":[],"lo":"(* (+ (wrap_i32 gid0) (wrap_i32 (* (arg 2) (min (wrap_i32 (+ gid1 1)) (wrap_i32 (+ (arg 3) -1)))))) 4)","hi":"(+ (* (+ (wrap_i32 gid0) (wrap_i32 (* (arg 2) (min (wrap_i32 (+ gid1 1)) (wrap_i32 (+ (arg 3) -1)))))) 4) 3)"},{"guards":[],"lo":"(* (+ (wrap_i32 gid0) (wrap_i32 (* (arg 2) (max (wrap_i32 (+ gid1 -1)) 0)))) 4)","hi":"(+ (* (+ (wrap_i32 gid0) (wrap_i32 (* (arg 2) (max (wrap_i32 (+ gid1 -1)) 0)))) 4) 3)"},{"guards":[],"lo":"(* (+ (wrap_i32 (* gid1 (arg 2))) (wrap_i32 (min (wrap_i32 (+ gid0 1)) (wrap_i32 (+ (arg 2) -1))))) 4)","hi":"(+ (* (+ (wrap_i32 (* gid1 (arg 2))) (wrap_i32 (min (wrap_i32 (+ gid0 1)) (wrap_i32 (+ (arg 2) -1))))) 4) 3)"},{"guards":[],"lo":"(* (+ (wrap_i32 (* gid1 (arg 2))) (wrap_i32 (max (wrap_i32 (+ gid0 -1)) 0))) 4)","hi":"(+ (* (+ (wrap_i32 (* gid1 (arg 2))) (wrap_i32 (max (wrap_i32 (+ gid0 -1)) 0))) 4) 3)"},{"guards":[],"lo":"(* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 2)))) 4)","hi":"(+ (* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 2)))) 4) 3)"}]},"write_region":{"known":true,"parts":[]}},{"index":1,"name":"","type":"","address_space":"global","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":true,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[{"guards":[],"lo":"(* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 2)))) 4)","hi":"(+ (* (+ (wrap_i32 gid0) (wrap_i32 (* gid1 (arg 2)))) 4) 3)"}]}},{"index":2,"name":"","type":"","address_space":"private","is_pointer":false,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}},{"index":3,"name":"","type":"","address_space":"private","is_pointer":false,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}}],"reqd_work_group_size":[0,0,0],"work_group_size_hint":[0,0,0],"uses_barrier":false,"uses_local_memory":false,"uses_images":false,"uses_global_atomics":false,"hidden_args":[],"splittable":true,"not_splittable_reason":""}]})json",
    R"json({"version":1,"tool":"libsplit region analysis","kernels":[{"name":"matmul_tiled","args":[{"index":0,"name":"","type":"","address_space":"global","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":true,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[{"guards":[],"lo":"(+ (* (wrap_i32 (+ lid0 (* gid1 (arg 5)))) 4) (* (range 0 (+ (/ (+ (max 8 (+ (wrap_i32 (arg 5)) 7)) -8) 8) (* 0 (fits_i32 (+ (wrap_i32 (arg 5)) 7))))) 32))","hi":"(+ (+ (* (wrap_i32 (+ lid0 (* gid1 (arg 5)))) 4) (* (range 0 (+ (/ (+ (max 8 (+ (wrap_i32 (arg 5)) 7)) -8) 8) (* 0 (fits_i32 (+ (wrap_i32 (arg 5)) 7))))) 32)) 3)"}]},"write_region":{"known":true,"parts":[]}},{"index":1,"name":"","type":"","address_space":"global","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":true,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[{"guards":[],"lo":"(+ (* (wrap_i32 (+ gid0 (* lid1 (arg 4)))) 4) (* (* (wrap_i32 (* (arg 4) 8)) 4) (range 0 (+ (/ (+ (max 8 (+ (wrap_i32 (arg 5)) 7)) -8) 8) (* 0 (fits_i32 (+ (wrap_i32 (arg 5)) 7)))))))","hi":"(+ (+ (* (wrap_i32 (+ gid0 (* lid1 (arg 4)))) 4) (* (* (wrap_i32 (* (arg 4) 8)) 4) (range 0 (+ (/ (+ (max 8 (+ (wrap_i32 (arg 5)) 7)) -8) 8) (* 0 (fits_i32 (+ (wrap_i32 (arg 5)) 7))))))) 3)"}]},"write_region":{"known":true,"parts":[]}},{"index":2,"name":"","type":"","address_space":"global","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":true,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[{"guards":[],"lo":"(* (wrap_i32 (+ gid0 (* gid1 (arg 4)))) 4)","hi":"(+ (* (wrap_i32 (+ gid0 (* gid1 (arg 4)))) 4) 3)"}]}},{"index":3,"name":"","type":"","address_space":"private","is_pointer":false,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}},{"index":4,"name":"","type":"","address_space":"private","is_pointer":false,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}},{"index":5,"name":"","type":"","address_space":"private","is_pointer":false,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}},{"index":6,"name":"","type":"","address_space":"local","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}},{"index":7,"name":"","type":"","address_space":"local","is_pointer":true,"is_image":false,"size":0,"is_const":false,"is_restrict":false,"reads":false,"writes":false,"atomics":false,"read_region":{"known":true,"parts":[]},"write_region":{"known":true,"parts":[]}}],"reqd_work_group_size":[0,0,0],"work_group_size_hint":[0,0,0],"uses_barrier":false,"uses_local_memory":false,"uses_images":false,"uses_global_atomics":false,"hidden_args":[],"splittable":true,"not_splittable_reason":""}]})json"
};

struct Timing {
  double ns_per_region = 0, us_per_slice = 0;
  uint64_t checksum = 0;
};

Timing timeKernel(const KernelSummary& k, const NDRange& nd, unsigned split_dim) {
  std::vector<std::optional<int64_t>> args(k.args.size());
  for (const ArgSummary& a : k.args)
    if (!a.is_pointer) args[a.index] = 1024;
  const uint64_t bufferSize = 64ull << 20;
  const int iters = 20000;
  Timing t;
  unsigned regions = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    EvalEnv env = slice_env(nd, Slice{split_dim, uint64_t(i % 32), 16}, args);
    regions = 0;
    for (const ArgSummary& a : k.args) {
      if (!a.is_pointer || a.address_space == AddressSpace::Local) continue;
      for (const AccessRegion* r : {&a.read_region, &a.write_region}) {
        auto out = evaluate_region(*r, env, bufferSize);
        t.checksum += out ? out->size() + 1 : 0;
        ++regions;
      }
    }
  }
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  t.ns_per_region = regions ? ns / iters / regions : 0;
  t.us_per_slice = ns / iters / 1000.0;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> jsons;
  if (argc > 1) {
    std::ifstream f(argv[1]);
    std::stringstream ss;
    ss << f.rdbuf();
    jsons.push_back(ss.str());
  } else {
    for (const char* s : kSummaries) jsons.push_back(s);
  }
  NDRange nd;
  nd.dims = 2;
  nd.global[0] = nd.global[1] = 1024;
  nd.local[0] = nd.local[1] = 16;
  for (const std::string& j : jsons) {
    std::string err;
    auto summary = parse_summary(j, &err);
    if (!summary) {
      std::fprintf(stderr, "bad summary: %s\n", err.c_str());
      return 1;
    }
    for (const KernelSummary& k : summary->kernels) {
      Timing t = timeKernel(k, nd, 1);
      std::printf("%-14s evaluate_region: %6.0f ns per region; one slice (all buffers + env): %.2f us  [%llu]\n",
                  k.name.c_str(), t.ns_per_region, t.us_per_slice, (unsigned long long)t.checksum);
      // The per-launch decision too: split dimension over 2 devices.
      std::vector<std::optional<int64_t>> args(k.args.size());
      for (const ArgSummary& a : k.args)
        if (!a.is_pointer) args[a.index] = 1024;
      std::vector<uint64_t> sizes(k.args.size(), 64ull << 20);
      const int iters = 2000;
      auto t0 = std::chrono::steady_clock::now();
      SplitChoice c;
      for (int i = 0; i < iters; ++i) c = choose_split_dim(k, args, nd, sizes, 2);
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / iters;
      std::printf("%-14s choose_split_dim (2 devices): %.2f us -> dim %u%s\n", k.name.c_str(), us, c.dim,
                  c.needs_merge ? " (merge)" : "");
    }
  }
  return 0;
}

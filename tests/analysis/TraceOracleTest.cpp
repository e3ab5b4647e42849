// Soundness of the region analysis against the tracing oracle: every corpus
// kernel (tests/corpus plus tests/analysis/kernels) runs instrumented on PoCL,
// once per slice of several slicings along every dimension; every byte a
// slice really read/wrote must lie inside the ranges the region evaluator
// predicts for that slice. One violation fails.
//
// PoCL links its own LLVM, so this process links none: region_tool computes
// the summary (JSON) and the instrumented program in a child process.
#include "HostBuffers.h"
#include "runner.h"

#include "libsplit/region.h"
#include "libsplit/summary.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <sstream>

using namespace libsplit;
using namespace libsplit::corpus;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files = list_kernel_files(LIBSPLIT_CORPUS_DIR);
  for (auto& f : list_kernel_files(LIBSPLIT_REGION_KERNELS_DIR)) files.push_back(f);
  return files;
}

std::vector<std::string> splitWords(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The scalar argument values the evaluator sees (sign-extended integers).
std::vector<std::optional<int64_t>> scalarValues(const KernelSpec& spec) {
  std::vector<std::optional<int64_t>> out;
  for (const ArgSpec& a : spec.args) {
    if (a.kind != ArgSpec::Kind::Scalar || a.type.is_float || a.type.components != 1) {
      out.push_back(std::nullopt);
      continue;
    }
    int64_t v = 0;
    unsigned n = a.type.scalar_size;
    uint64_t raw = 0;
    std::memcpy(&raw, a.scalar_value.data(), std::min<size_t>(n, 8));
    if (n < 8) {
      uint64_t sign = uint64_t(1) << (8 * n - 1);
      raw &= (sign << 1) - 1;
      v = int64_t((raw ^ sign) - sign);  // sign-extend, whatever the C type
    } else {
      v = int64_t(raw);
    }
    out.push_back(v);
  }
  return out;
}

// Runs region_tool MODE on file; its stdout, or nullopt.
std::optional<std::string> runTool(const std::string& mode, const std::string& file, const std::string& options) {
  std::string cmd = std::string("'") + LIBSPLIT_REGION_TOOL + "' " + mode + " '" + file + "'";
  for (const auto& w : splitWords(options)) cmd += " '" + w + "'";  // corpus options have no quotes
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  if (pclose(p) != 0) return std::nullopt;
  return out;
}

// "// TRACED <kernel> <p,p,...>" lines of region_tool --trace.
std::optional<std::vector<unsigned>> tracedParams(const std::string& traced, const std::string& kernel) {
  std::istringstream in(traced);
  for (std::string line; std::getline(in, line);) {
    std::string prefix = "// TRACED " + kernel + " ";
    if (line.rfind(prefix, 0) != 0) continue;
    std::vector<unsigned> out;
    std::istringstream list(line.substr(prefix.size()));
    for (std::string n; std::getline(list, n, ',');)
      if (!n.empty()) out.push_back(unsigned(std::stoul(n)));
    return out;
  }
  return std::nullopt;
}

bool inside(uint64_t byte, const std::vector<ByteRange>& ranges) {
  for (const auto& r : ranges)
    if (byte >= r.begin && byte < r.end) return true;
  return false;
}

}  // namespace

TEST(TraceOracle, ActualAccessesInsidePredictedRegions) {
  std::string err;
  auto runner = Runner::create(&err);
  ASSERT_TRUE(runner) << err;
  int files = 0, slicesChecked = 0, bytesChecked = 0, selfChecks = 0, ndranges = 0, indexRegions = 0;
  for (const std::string& file : corpusFiles()) {
    auto spec = load_spec(file, &err);
    ASSERT_TRUE(spec) << file << ": " << err;
    SCOPED_TRACE(file);
    auto json = runTool("--summary", file, spec->build_options);
    ASSERT_TRUE(json) << "region_tool --summary failed";
    auto summary = parse_summary(*json, &err);
    ASSERT_TRUE(summary) << err;
    const KernelSummary* Kp = summary->find(spec->kernel);
    ASSERT_TRUE(Kp);
    const KernelSummary& K = *Kp;
    auto traced = runTool("--trace", file, spec->build_options);
    ASSERT_TRUE(traced) << "region_tool --trace failed";
    if (traced->find("// UNTRACED " + spec->kernel + "\n") != std::string::npos) {
      std::printf("trace oracle: %s not instrumented (called by another kernel)\n", spec->kernel.c_str());
      continue;
    }
    auto params = tracedParams(*traced, spec->kernel);
    ASSERT_TRUE(params);
    struct {
      std::vector<unsigned> traced_params;
    } tk{*params};
    const auto* TK = &tk;
    ++files;

    // The instrumented launch: shadows (read, write) per traced buffer + slice.
    KernelSpec ts = *spec;
    ts.source = *traced;
    std::vector<Bytes> init = initial_buffers(*spec, 1);
    // Index-dependent regions are checked with the indices the launch reads.
    test::HostBuffers indices(init);
    for (unsigned p : TK->traced_params) {
      uint64_t words = (spec->args[p].bytes() + 31) / 32;
      for (int rw = 0; rw < 2; ++rw) {
        ArgSpec sh;
        sh.name = "__ls_shadow";
        sh.kind = ArgSpec::Kind::Buffer;
        sh.type = *parse_elem_type("uint");
        sh.count = words;
        sh.init = Init::Zero;
        ts.args.push_back(sh);
        init.push_back(Bytes(words * 4, 0));
      }
    }
    ArgSpec sliceArg;
    sliceArg.name = "__ls_slice";
    sliceArg.kind = ArgSpec::Kind::Scalar;
    sliceArg.type = *parse_elem_type("ulong4");
    ts.args.push_back(sliceArg);
    init.push_back({});

    auto scalars = scalarValues(*spec);
    // NDRanges: the spec's, and the same with halved work-groups when the
    // kernel does not depend on the work-group shape (finer slicings).
    std::vector<std::array<uint64_t, 3>> locals = {{spec->local[0], spec->local[1], spec->local[2]}};
    bool shapeFree = true;
    for (const char* w : {"get_group_id", "get_num_groups", "get_local_id", "get_local_size",
                          "reqd_work_group_size", "get_local_linear_id", "barrier"})
      shapeFree &= spec->source.find(w) == std::string::npos;
    for (const ArgSpec& a : spec->args) shapeFree &= a.kind != ArgSpec::Kind::Local;
    if (shapeFree) {
      auto half = locals[0];
      bool changed = false;
      for (unsigned d = 0; d < spec->dims; ++d)
        if (half[d] % 2 == 0) half[d] /= 2, changed = true;
      if (changed) locals.push_back(half);
    }

    for (const auto& local : locals)
    for (unsigned dim = 0; dim < spec->dims; ++dim) {
      for (unsigned d = 0; d < 3; ++d) ts.local[d] = local[d];
      NDRange nd;
      nd.dims = spec->dims;
      for (unsigned d = 0; d < 3; ++d)
        nd.global[d] = spec->global[d], nd.local[d] = local[d], nd.offset[d] = spec->offset[d];
      ++ndranges;
      std::vector<std::vector<SliceRun>> slicings = {even_slices(ts, dim, 2), even_slices(ts, dim, 3),
                                                     random_slices(ts, dim, 4, 11 + dim)};
      for (const auto& slicing : slicings)
        for (const SliceRun& s : slicing) {
          uint64_t ctx[4] = {dim, s.first_group, s.group_count, 0};
          ts.args.back().scalar_value.assign(reinterpret_cast<uint8_t*>(ctx), reinterpret_cast<uint8_t*>(ctx) + 32);
          RunResult run = runner->run_full(ts, init, ts.source, 0);
          ASSERT_TRUE(run.ok) << run.error;
          EvalEnv env = slice_env(nd, Slice{dim, s.first_group, s.group_count}, scalars);
          env.memory = &indices;
          ++slicesChecked;
          for (size_t t = 0; t < TK->traced_params.size(); ++t) {
            unsigned p = TK->traced_params[t];
            uint64_t size = spec->args[p].bytes();
            for (int rw = 0; rw < 2; ++rw) {
              const AccessRegion& region = rw == 0 ? K.args[p].read_region : K.args[p].write_region;
              auto predicted = evaluate_region(region, env, size);
              if (!predicted) continue;  // unknown: the whole buffer, nothing to check
              indexRegions += region_mentions_load(region);
              const Bytes& bits = run.buffers[spec->args.size() + 2 * t + rw];
              // Self-check of the oracle: the prediction shifted past the
              // first traced byte must be caught.
              bool shiftedMisses = false;
              for (uint64_t byte = 0; byte < size && !shiftedMisses; ++byte)
                if (bits[byte / 8] >> (byte % 8) & 1) {
                  std::vector<ByteRange> shifted = *predicted;
                  for (auto& r : shifted)
                    if (r.begin <= byte && byte < r.end) r.begin = byte + 1;
                  shiftedMisses = !inside(byte, shifted);
                }
              selfChecks += shiftedMisses;
              for (uint64_t byte = 0; byte < size; ++byte) {
                if (!(bits[byte / 8] >> (byte % 8) & 1)) continue;
                ++bytesChecked;
                if (!inside(byte, *predicted)) {
                  std::string list;
                  for (auto& r : *predicted) list += "[" + std::to_string(r.begin) + "," + std::to_string(r.end) + ") ";
                  FAIL() << spec->kernel << " arg " << p << (rw ? " write" : " read") << " byte " << byte
                         << " outside predicted {" << list << "} for slice dim " << dim << " groups ["
                         << s.first_group << ", +" << s.group_count << "); region: " << print_region(region);
                }
              }
            }
          }
        }
    }
  }
  EXPECT_GT(files, 5);
  EXPECT_GT(bytesChecked, 1000);  // the oracle saw real accesses
  EXPECT_GT(selfChecks, 100);     // and would have caught a too-small prediction
  EXPECT_GT(indexRegions, 10);    // regions resolved from index buffers were checked too
  std::printf("trace oracle: %d kernels, %d (NDRange, split dim) pairs, %d slices, %d traced bytes, %d "
              "index-dependent slice regions, no violation\n",
              files, ndranges, slicesChecked, bytesChecked, indexRegions);
}

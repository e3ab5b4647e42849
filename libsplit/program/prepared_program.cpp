#include "prepared_program.h"

#include "app_binaries.h"
#include "background_jobs.h"
#include "binary_origins.h"
#include "cc_client.h"
#include "child_process.h"
#include "device_binaries.h"
#include "device_macros.h"
#include "program_checks.h"
#include "real_api.h"
#include "runtime.h"
#include "slot_builds.h"

namespace libsplit {

using Mode = _cl_program::Mode;

namespace {

// The cached-binaries test of each slot left for later (in the background:
// it hashes the source).
std::vector<bool> cached_slots(const std::vector<cl_program>& built, const std::string& source,
                               const std::string& options) {
  std::vector<bool> cached(built.size(), false);
  for (unsigned s = 0; s < built.size(); ++s)
    if (!built[s]) cached[s] = has_device_binaries(device_binary_key(source, options, slot_devices(s)));
  return cached;
}

// The partition-ready program from libsplit-cc, built on the slots of the
// app's context; an empty Failed answer when the app ended meanwhile;
// nothing when libsplit-cc or the build failed (`why` says why).
std::optional<PreparedProgram> compiled_program(cl_program p, const std::string& source,
                                                const std::string& options, std::string* why) {
  Runtime& rt = runtime();
  PreparedProgram out;
  std::string cc = find_cc(rt.controls.cc);
  if (cc.empty()) {
    *why = "libsplit-cc not found";
    return std::nullopt;
  }
  std::vector<cl_device_id> ids;
  for (const auto& d : rt.devices) ids.push_back(d.id);
  std::vector<std::string> sets = device_macro_sets(ids, options);
  std::string listed;
  for (const auto& set : sets) listed += (listed.empty() ? "" : " | ") + set;
  log_line(2, "libsplit-cc device macro sets (options '" + options + "'): " + listed);
  const cl_ulong cc_start = now_ns();
  CcResult r = app_exiting() ? CcResult{} : run_cc(cc, source, options, sets);
  log_line(2, "preparation: libsplit-cc ran " + std::to_string((now_ns() - cc_start) / 1000000) + " ms");
  if (app_exiting()) {
    *why = "the app ended";
    out.mode = Mode::Failed;
    return out;
  }
  if (!r.ok) {
    *why = r.error;
    return std::nullopt;
  }
  std::string perr;
  auto summary = parse_summary(r.summary_json, &perr);
  if (!summary) {
    *why = "unreadable summary: " + perr;
    return std::nullopt;
  }
  Built b = build_per_slot(p, &r.partition_ready, options, nullptr, nullptr, nullptr,
                           /*app_slots_only=*/true);
  if (!b.all) {
    release_all(b.programs);
    *why = b.why.empty() ? "partition-ready program did not build" : b.why;
    return std::nullopt;
  }
  out.mode = Mode::Compiled;
  out.summary = std::move(summary);
  out.per_platform = std::move(b.programs);
  out.lazy_cached = cached_slots(out.per_platform, r.partition_ready, options);
  out.lazy_source = std::move(r.partition_ready);
  out.lazy_options = options;
  return out;
}

// The original source, split as is (Plain) or run whole: `originals` when
// every slot of the app's context has one, else built now; nothing when it
// does not build there.
std::optional<PreparedProgram> original_program(cl_program p, const std::string& source,
                                                const std::string& options,
                                                const std::vector<cl_program>* originals,
                                                std::string* why) {
  Runtime& rt = runtime();
  PreparedProgram out;
  const bool plain = rt.controls.plain_split && plain_split_safe(source);
  const std::vector<bool> app = app_slots(p);
  bool have_originals = originals != nullptr;
  for (size_t s = 0; have_originals && s < originals->size(); ++s)
    have_originals = !app[s] || (*originals)[s];
  if (have_originals) {
    // Originals the driver refuses to retain are built again below.
    std::vector<cl_program> held;
    for (cl_program pp : *originals) {
      if (!pp) continue;
      if (real().clRetainProgram(pp) != CL_SUCCESS) {
        have_originals = false;
        break;
      }
      held.push_back(pp);
    }
    if (!have_originals) release_all(held);
  }
  if (have_originals) {
    out.per_platform = *originals;
  } else {
    Built b = build_per_slot(p, &source, options, nullptr, nullptr, nullptr, /*app_slots_only=*/true,
                             /*app_source=*/true);
    if (!b.all) {
      release_all(b.programs);
      if (!b.why.empty()) *why = b.why;
      return std::nullopt;
    }
    out.per_platform = std::move(b.programs);
  }
  out.lazy_source = source;
  out.lazy_options = options;
  out.lazy_cached = cached_slots(out.per_platform, source, options);
  out.mode = plain ? Mode::Plain : Mode::Whole;
  out.reason = *why;
  log_line(1, "program not partition-ready (" + *why + "); kernels " +
                  (plain ? "split without rewrite (plain, whole-buffer merge)" : "run unsplit"));
  return out;
}

// A source program: the partition-ready program from libsplit-cc, else the
// original source (reusing `originals` when every slot has one); nothing
// when the source does not build on every slot (`why` says why).
std::optional<PreparedProgram> prepare_source(cl_program p, const std::string& source,
                                              const std::string& options,
                                              const std::vector<cl_program>* originals,
                                              std::string* why) {
  if (auto compiled = compiled_program(p, source, options, why)) return compiled;
  return original_program(p, source, options, originals, why);
}

}  // namespace

PreparedProgram prepare(cl_program p, const std::string& source, const std::string& options,
                        const std::vector<cl_program>* originals) {
  Runtime& rt = runtime();
  std::string why;
  if (p->from_source) {
    if (auto r = prepare_source(p, source, options, originals, &why)) return std::move(*r);
  } else if (p->il.empty() && !p->binaries.empty()) {
    std::string dir = binary_origins_dir(rt.controls.cache_dir);
    if (auto origin = find_binary_origin(dir, p->binaries, &why)) {
      log_line(1, "program from a binary libsplit handed out: source and options restored");
      if (auto r = prepare_source(p, origin->source, origin->options, nullptr, &why))
        return std::move(*r);
    }
  }
  PreparedProgram out;
  if (p->units_known && !p->units.empty()) {
    bool plain = rt.controls.plain_split;
    for (const CompileUnit& u : p->units) plain &= plain_split_safe(u.source);
    Built b = link_per_slot(p);
    if (b.all) {
      out.mode = plain ? Mode::Plain : Mode::Whole;
      out.reason = "linked from separately compiled units";
      out.per_platform = std::move(b.programs);
      log_line(1, "program linked from " + std::to_string(p->units.size()) + " units; kernels " +
                      (plain ? "split without rewrite (plain)" : "run unsplit"));
      return out;
    }
    release_all(b.programs);
    if (!b.why.empty()) why = b.why;
  }
  // Binaries or IL: the app's, else those of the app's own build (its
  // devices then run the kernels whole).
  Binaries own;
  for (size_t i = 0; i < p->binary_devices.size(); ++i)
    own.devices.push_back(p->binary_devices[i]), own.data.push_back(p->binaries[i]);
  if (own.devices.empty() && p->il.empty()) own = native_binaries(p);
  if (!own.devices.empty() || !p->il.empty()) {
    Built b = build_per_slot(p, nullptr, options, own.devices.empty() ? nullptr : &own);
    bool any = false;
    for (cl_program pp : b.programs) any |= pp != nullptr;
    if (any) {
      out.mode = Mode::Whole;
      out.reason = p->from_source || p->units_known
                       ? "source did not build on libsplit's devices: " + why + "; the app's binaries run"
                       : !p->il.empty() ? "a program from IL (no OpenCL C source)"
                       : !why.empty() ? why
                       : "program from binary, or linked from objects of unknown source";
      out.per_platform = std::move(b.programs);
      log_line(1, "program not partition-ready (" + out.reason + "); kernels run unsplit");
      return out;
    }
    if (why.empty()) why = b.why;
    release_all(b.programs);
  }
  out.mode = Mode::Failed;
  out.reason = why;
  return out;
}

}  // namespace libsplit

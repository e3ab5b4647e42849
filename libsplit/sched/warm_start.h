// Warm start: the converged decision for a (kernel, NDRange, device set) is
// stored in the cache directory and reused by the next run, so that its
// first launch is already balanced.
//
// Directory: the subfolder "sched" of libsplit's cache directory
// (libsplit/cache_dir.h, the rule every cache follows); created 0700, files
// 0600, written to a temporary file then renamed (atomic). LIBSPLIT_WARMSTART=0 disables.
// A corrupt or mismatching file is ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scheduler.h"

namespace libsplit::sched {

struct StoredDecision {
  std::optional<unsigned> whole_device;  // set: run unsplit there
  std::vector<double> shares;            // one per device, sums to 1
  // Whole because a split was tried and lost (not merely never tried: the
  // other devices may not have been open). Files written before this field
  // read as false.
  bool split_lost = false;
};

class WarmStartStore {
 public:
  WarmStartStore(std::string directory, const std::vector<DeviceInfo>& devices);

  // The directory the environment asks for ("" when LIBSPLIT_WARMSTART=0 or
  // no home directory is known).
  static std::string directory_from_environment();

  std::optional<StoredDecision> load(const LaunchKey& key) const;
  // Returns false (and leaves any older file) when the write failed.
  bool save(const LaunchKey& key, const StoredDecision& decision) const;

  std::string path_for(const LaunchKey& key) const;

  // Per command (`app`: its command line) on this device set: what opening
  // the devices outside the app's context did for the last run of it that
  // opened them. paid: its splits saved more than the openings cost (the
  // next run opens every device at its first context); lost: they did not
  // (the next runs open none); untried: they opened too late for any split
  // (the next run opens them at its first context, to find out); unknown:
  // never opened (on demand). A paid verdict names how many groups of
  // devices paid (`groups`, in the order they open; kAllGroups: every one):
  // on 4 H100 2mm's splits pay for one more GPU, not for three.
  enum class Opening { unknown, paid, lost, untried };  // warm_start.cpp names them in this order
  // A lost verdict is tried again after `after` runs kept whole; `runs`
  // kept so far; `why`: the figures of the run that lost. An untried verdict
  // (a try whose devices opened too late) carries `after` to the next one.
  // (No member initializers: a default argument below takes `{}`, zeros.)
  struct Retry {
    unsigned runs, after;
    std::string why;
  };
  Opening app_opening(const std::string& app, unsigned* groups = nullptr, Retry* retry = nullptr) const;
  // `why`, one line after the verdict (the figures it came from), for
  // whoever reads the file (and Retry::why). `retry`: a lost verdict's count.
  bool remember_app(const std::string& app, Opening verdict, const std::string& why = "",
                    unsigned groups = kAllGroups, const Retry& retry = {}) const;

 private:
  std::string name_for(const LaunchKey& key) const;  // the file's name in directory_
  std::string app_name(const std::string& app) const;

  std::string directory_;
  std::string device_set_;  // canonical description of the device set
  size_t device_count_;
};

// Canonical one-line description of a launch key (also used in files).
std::string describe(const LaunchKey& key);

}  // namespace libsplit::sched

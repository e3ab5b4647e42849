#include "locality.h"

#include "cycle_partition.h"
#include "partition_change.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <sstream>

namespace libsplit {

namespace {

// Split launches of a shape remembered (kernel names) to find its cycle.
constexpr size_t kHistory = 32;

struct ShapeState {
  std::vector<int> owner;  // device that ran each group at the shape's last split launch
};

// What owner computes knows of one kernel at one shape.
struct KernelAtShape {
  std::vector<double> seconds_per_group;  // per device, smoothed
  std::vector<double> noise;              // per device: smoothed relative change between launches
  double launches = 0;                    // its split launches so far (the payback horizon)
  bool plan_won_before = false;           // one noisy measurement moves no data
};

struct LocalityState {
  std::map<std::string, ShapeState> shapes;
  std::map<std::string, KernelAtShape> kernels;  // by rate_key: kernel + shape
  // By shape: the kernels of its last split launches, oldest first.
  std::map<std::string, std::deque<std::string>> history;
  double copy_rate = 2e9;                                         // bytes per second, measured
};

// The rate a split's one-off staging is judged at (staging_seconds): host
// <-> GPU copies through pageable memory measured 7.5-13 GB/s on the GPU
// node, the first matmul split on 2 H200 moved 263 MB at 12.8 GB/s of
// device transfer time. copy_rate above is no substitute: its host time
// includes the blocking reads' wait for work queued on the source device
// (on 2 H200 it fell to ~1.2 GB/s and declined 2mm's second kernel).
constexpr double kSplitStagingRate = 8e9;

LocalityState& state() {
  static LocalityState s;
  return s;
}

// Asked a dozen times per split launch: built once, kept in the launch.
const std::string& shape_key(const Launch& L) {
  std::string& k = L.shape_name;
  if (!k.empty()) return k;
  k = std::to_string(L.spec.dims) + ':' + std::to_string(L.dim);
  for (unsigned d = 0; d < L.spec.dims; ++d)
    k += ':' + std::to_string(L.spec.global[d]) + '/' + std::to_string(L.spec.local[d]) + '+' +
         std::to_string(L.spec.offset[d]);
  return k;
}

const std::string& rate_key(const Launch& L) {
  if (L.rate_name.empty()) L.rate_name = L.kernel->name + '@' + shape_key(L);
  return L.rate_name;
}

bool enabled(const Launch& L) {
  return runtime().controls.owner_computes && L.compiled && L.regions_known() && !L.merge_predicted &&
         !runtime().controls.merge_all;
}

// The bytes of `r` device d lacks (a device never used holds only the
// undefined bytes, which never move).
std::vector<Range> lacking(const BufferStore& s, unsigned d, Range r) {
  const IntervalSet& valid = d < s.dev_valid.size() ? s.dev_valid[d] : s.undefined;
  return valid.missing(r);
}

std::vector<sched::Chunk> chunks_of(const std::vector<int>& owner) {
  std::vector<sched::Chunk> out;
  for (uint64_t g = 0; g < owner.size();) {
    uint64_t e = g;
    while (e < owner.size() && owner[e] == owner[g]) ++e;
    out.push_back({unsigned(owner[g]), g, e - g});
    g = e;
  }
  return out;
}

std::vector<uint64_t> groups_per_device(const std::vector<sched::Chunk>& chunks, unsigned n) {
  std::vector<uint64_t> g(n, 0);
  for (const sched::Chunk& c : chunks)
    if (c.device < n) g[c.device] += c.group_count;
  return g;
}

// The cycle L's kernel belongs to: the kernels of the shape's split launches
// since this kernel's previous one (one period of the cycle; a kernel
// launched twice in it counts twice), with their rates. Nullopt unless it
// holds another kernel than L's and every one has a rate on every device.
std::optional<std::vector<CycleKernel>> cycle_of(const LocalityState& st, const Launch& L, unsigned n,
                                                 std::string* names) {
  auto h = st.history.find(shape_key(L));
  if (h == st.history.end()) return std::nullopt;
  const std::deque<std::string>& past = h->second;
  auto previous = std::find(past.rbegin(), past.rend(), L.kernel->name);
  if (previous == past.rend()) return std::nullopt;
  std::map<std::string, double> launches;
  for (auto it = past.rbegin();; ++it) {
    launches[*it] += 1;
    if (it == previous) break;
  }
  if (launches.size() < 2) return std::nullopt;
  std::vector<CycleKernel> cycle;
  for (const auto& [name, count] : launches) {
    auto r = st.kernels.find(name + '@' + shape_key(L));
    if (r == st.kernels.end() || r->second.seconds_per_group.size() < n) return std::nullopt;
    CycleKernel k;
    k.launches = count;
    for (unsigned d = 0; d < n; ++d) {
      const double rate = r->second.seconds_per_group[d];
      if (!(rate > 0)) return std::nullopt;
      k.seconds_per_group.push_back(rate);
    }
    cycle.push_back(std::move(k));
    *names += (names->empty() ? "" : " ") + name + (count > 1 ? " x" + std::to_string(int(count)) : "");
  }
  return cycle;
}

}  // namespace

StagingEstimate staging_bytes(const Launch& L, const std::vector<sched::Chunk>& chunks) {
  // Per root store and device: every byte a chunk reads or writes.
  std::map<std::pair<BufferStore*, unsigned>, IntervalSet> needed;
  for (const sched::Chunk& c : chunks)
    for (const BufferArg& b : L.buffers) {
      IntervalSet& set = needed[{b.mem->store.get(), c.device}];
      for (bool write : {false, true}) {
        if (write ? !b.writes : !b.reads) continue;
        if (auto bytes = L.slice_bytes(b, c, write))
          for (const Range& r : bytes->ranges()) set.add(r);
        else
          set.add(root_range(b.mem, 0, b.mem->size));
      }
    }
  StagingEstimate e;
  for (const auto& [where, set] : needed) {
    const BufferStore& s = *where.first;
    for (const Range& r : set.ranges())
      for (const Range& m : lacking(s, where.second, r)) {
        e.to_device += m.size();
        for (const Range& h : s.host_valid.missing(m)) e.to_host += h.size();
      }
  }
  return e;
}

namespace {

// Joint (LIBSPLIT_CYCLE_PARTITION=joint): a static split of a shape that a
// cycle of kernels shares proposes the cycle's partition instead of the
// scheduler's (cycle_partition.h): slices in device order, sized to
// minimize the sum over the cycle's kernels of the slowest device's time.
// Returns the cycle, with the proposal (*proposal, *plan_groups) replaced by
// its partition; nothing (the plan stands) otherwise.
std::optional<std::vector<CycleKernel>> joint_proposal(LocalityState& st, const Launch& L,
                                                       const std::vector<sched::Chunk>& planned, unsigned n,
                                                       std::vector<sched::Chunk>* proposal,
                                                       std::vector<uint64_t>* plan_groups, std::string* cycle_names) {
  std::optional<std::vector<CycleKernel>> cycle;
  bool one_per_device = true;
  for (unsigned d = 0; d < n; ++d)
    one_per_device &= std::count_if(planned.begin(), planned.end(),
                                    [d](const sched::Chunk& c) { return c.device == d; }) <= 1;
  // Not over fixed shares (uniform, static): there the shares are the user's.
  if (runtime().controls.cycle_partition == "joint" && one_per_device && !runtime().scheduler->fixed_shares())
    cycle = cycle_of(st, L, n, cycle_names);
  if (cycle) {
    std::vector<uint64_t> joint = joint_partition(*cycle, L.total_groups);
    if (joint.size() == n) {
      *plan_groups = joint;
      proposal->clear();
      uint64_t first = 0;
      for (unsigned d = 0; d < n; ++d)
        if (joint[d]) proposal->push_back({d, first, joint[d]}), first += joint[d];
    } else {
      cycle.reset();
    }
  }
  return cycle;
}

// The groups of `proposal` another device than `owner`'s ran last, in runs.
std::vector<sched::Chunk> groups_moved(const std::vector<sched::Chunk>& proposal, const std::vector<int>& owner) {
  std::vector<sched::Chunk> moved;
  for (const sched::Chunk& c : proposal)
    for (uint64_t g = c.first_group; g < c.first_group + c.group_count;) {
      uint64_t e = g;
      while (e < c.first_group + c.group_count && (owner[e] == int(c.device)) == (owner[g] == int(c.device))) ++e;
      if (owner[g] != int(c.device)) moved.push_back({c.device, g, e - g});
      g = e;
    }
  return moved;
}

}  // namespace

namespace {

// The kernel's time on the plan's and on the kept partition's groups, or
// with a joint proposal the cycle's; nothing where a device either uses has
// no measured rate (a plan that leaves out a device of the record, or adds
// one, is compared too: what it moves is counted the same way).
std::optional<std::pair<double, double>> plan_and_kept_seconds(const KernelAtShape& kernel,
                                                               const std::optional<std::vector<CycleKernel>>& cycle,
                                                               const std::vector<uint64_t>& plan_groups,
                                                               const std::vector<uint64_t>& kept_groups) {
  const std::vector<double>& rates = kernel.seconds_per_group;
  for (size_t d = 0; d < plan_groups.size(); ++d)
    if ((plan_groups[d] || kept_groups[d]) && !(d < rates.size() && rates[d] > 0)) return std::nullopt;
  auto seconds = [&](const std::vector<uint64_t>& groups) {
    if (cycle) return cycle_seconds(*cycle, groups);
    double worst = 0;
    for (size_t d = 0; d < groups.size(); ++d)
      if (groups[d]) worst = std::max(worst, rates[d] * double(groups[d]));
    return worst;
  };
  return std::pair{seconds(plan_groups), seconds(kept_groups)};
}

// Owner computes' account of a choice, for the log: built at LOG=2 only (a
// string stream per launch was microseconds of every split launch's host time).
std::string account(const std::string& proposed, const std::string& cycle_names, bool cycle, double plan_kernel,
                    double kept_kernel, const StagingEstimate* bytes, double extra) {
  if (runtime().controls.log < 2) return "";
  std::ostringstream text;
  text.precision(3);
  if (cycle) text << "cycle " << cycle_names << ": ";
  const char* what = cycle ? "cycle kernels " : "kernel ";
  text << proposed << ": " << what << plan_kernel * 1e3 << " ms";
  if (bytes) text << ", moves " << (bytes->to_device + bytes->to_host) << " B more (" << extra * 1e3 << " ms)";
  text << "; kept partition: " << what << kept_kernel * 1e3 << " ms";
  return text.str();
}

}  // namespace

std::optional<std::vector<sched::Chunk>> owner_computes_split(const Launch& L,
                                                              const std::vector<sched::Chunk>& planned,
                                                              std::string* why) {
  if (!enabled(L)) return std::nullopt;
  LocalityState& st = state();
  auto shape = st.shapes.find(shape_key(L));
  if (shape == st.shapes.end() || shape->second.owner.size() != L.total_groups) return std::nullopt;
  const unsigned n = static_cast<unsigned>(runtime().devices.size());
  std::vector<sched::Chunk> recorded = chunks_of(shape->second.owner);
  std::vector<uint64_t> plan_groups = groups_per_device(planned, n), kept_groups = groups_per_device(recorded, n);
  // Joint (LIBSPLIT_CYCLE_PARTITION=joint): see joint_proposal.
  std::vector<sched::Chunk> proposal = planned;
  std::string cycle_names;
  std::optional<std::vector<CycleKernel>> cycle =
      joint_proposal(st, L, planned, n, &proposal, &plan_groups, &cycle_names);
  const std::string proposed = cycle ? "joint partition" : "plan";
  if (plan_groups == kept_groups) {
    // Same shares: the recorded positions move nothing the plan would not.
    *why = cycle ? "kept the partition of the last launch of this shape (the joint partition of its cycle: " +
                       cycle_names + ")"
                 : "kept the partition of the last launch of this shape (same shares)";
    return recorded;
  }
  auto known = st.kernels.find(rate_key(L));
  if (known == st.kernels.end()) return std::nullopt;
  KernelAtShape& kernel = known->second;
  const auto times = plan_and_kept_seconds(kernel, cycle, plan_groups, kept_groups);
  if (!times) return std::nullopt;
  const auto [plan_kernel, kept_kernel] = *times;
  const double gain = kept_kernel - plan_kernel;
  if (!(gain > 0)) {
    // No faster: kept, whatever it would move (not evaluated).
    kernel.plan_won_before = false;
    *why = account(proposed, cycle_names, bool(cycle), plan_kernel, kept_kernel, nullptr, 0) + " -> kept partition";
    return recorded;
  }
  // What the plan moves beyond the kept partition: the groups it gives to
  // another device than the one that ran them last (evaluating only those
  // keeps this cheap: a few border strips, not every slice). For a joint
  // proposal, what this launch's buffers move: the cycle's next kernels find
  // the rows this one wrote where they now run, and move what it does not
  // touch (not counted).
  const StagingEstimate bytes = staging_bytes(L, groups_moved(proposal, shape->second.owner));
  // At the measured copy rate where it beats the nominal rate of a split's
  // staging, never slower: a low measurement is waits for queued work, not
  // the link (H100 + CPU: 1.8 GB/s measured from a first launch of 1.3 s, a
  // 290 MB move then priced at 158 ms where it took ~20 ms, and jacobi-2d
  // kept half its rows on the 20x slower CPU for the whole run; the moves
  // through pinned staging there ran at 40-80 GB/s).
  const double extra = double(bytes.to_device + bytes.to_host) / std::max(st.copy_rate, kSplitStagingRate);
  double noise = 0;
  for (double x : kernel.noise) noise = std::max(noise, x);
  const PartitionChangeVerdict verdict =
      judge_partition_change({gain, kept_kernel, extra, kernel.launches, kernel.plan_won_before, noise});
  const bool plan_better = verdict.better, plan_wins = verdict.change;
  kernel.plan_won_before = plan_better;
  *why = account(proposed, cycle_names, bool(cycle), plan_kernel, kept_kernel, &bytes, extra) +
         (plan_wins     ? " -> " + proposed
          : plan_better ? " -> kept partition (" + proposed + " better once)"
                        : std::string(" -> kept partition"));
  if (plan_wins) return cycle ? std::optional<std::vector<sched::Chunk>>(proposal) : std::nullopt;
  return recorded;
}

double staging_seconds(const StagingEstimate& bytes) {
  return double(bytes.to_device + bytes.to_host) / kSplitStagingRate;
}

SplitRecord record_split_partition(const Launch& L, const std::vector<sched::Chunk>& chunks) {
  SplitRecord record;
  if (!enabled(L)) return record;
  LocalityState& st = state();
  const unsigned n = static_cast<unsigned>(runtime().devices.size());
  std::deque<std::string>& past = st.history[shape_key(L)];
  past.push_back(L.kernel->name);
  if (past.size() > kHistory) past.pop_front();
  // A shape's first split launch stages its inputs into fresh device
  // buffers (allocation, first touch): no measure of a move's rate.
  record.first_of_shape = !st.shapes.count(shape_key(L));
  ShapeState& shape = st.shapes[shape_key(L)];
  shape.owner.assign(L.total_groups, -1);
  std::vector<uint64_t> groups(n, 0);
  for (const sched::Chunk& c : chunks) {
    for (uint64_t g = c.first_group; g < c.first_group + c.group_count && g < L.total_groups; ++g)
      shape.owner[g] = int(c.device);
    if (c.device < n) groups[c.device] += c.group_count;
  }
  // An incomplete record (a chunk missing) is no partition to keep.
  if (std::find(shape.owner.begin(), shape.owner.end(), -1) != shape.owner.end()) {
    st.shapes.erase(shape_key(L));
  } else if (std::vector<sched::Chunk> runs = chunks_of(shape.owner);
             runs.size() > size_t(std::count_if(groups.begin(), groups.end(), [](uint64_t g) { return g > 0; }))) {
    // Fragments (steals across a device, packages dealt in turn): each
    // border is a halo at every launch. The next launch gets one block per
    // device, in device order, of the sizes they ran: what moves once to
    // get there stays put afterwards.
    uint64_t g = 0;
    for (unsigned d = 0; d < n; ++d)
      for (uint64_t i = 0; i < groups[d]; ++i) shape.owner[g++] = int(d);
  }
  st.kernels[rate_key(L)].launches += 1;
  record.rate_key = rate_key(L);
  return record;
}

void record_split_times(const SplitRecord& record, const std::vector<sched::ChunkTiming>& timings,
                        uint64_t bytes_moved, double staging_seconds) {
  if (record.rate_key.empty()) return;
  LocalityState& st = state();
  const unsigned n = static_cast<unsigned>(runtime().devices.size());
  std::vector<double> seconds(n, 0);
  std::vector<uint64_t> groups(n, 0);
  for (const sched::ChunkTiming& t : timings)
    if (t.chunk.device < n) seconds[t.chunk.device] += t.seconds, groups[t.chunk.device] += t.chunk.group_count;
  KernelAtShape& kernel = st.kernels[record.rate_key];
  std::vector<double>& rates = kernel.seconds_per_group;
  std::vector<double>& noise = kernel.noise;
  rates.resize(n, 0);
  noise.resize(n, 0);
  for (unsigned d = 0; d < n; ++d) {
    if (!groups[d] || seconds[d] <= 0) continue;
    const double r = seconds[d] / double(groups[d]);
    noise[d] = updated_noise(noise[d], rates[d], r);
    rates[d] = rates[d] > 0 ? 0.5 * rates[d] + 0.5 * r : r;
  }
  // Small transfers measure launch overheads, not the copy rate.
  if (bytes_moved >= (256u << 10) && staging_seconds > 0 && !record.first_of_shape)
    st.copy_rate = 0.5 * st.copy_rate + 0.5 * double(bytes_moved) / staging_seconds;
}

void record_split(const Launch& L, const std::vector<sched::ChunkTiming>& timings, uint64_t bytes_moved,
                  double staging_seconds) {
  std::vector<sched::Chunk> chunks;
  for (const sched::ChunkTiming& t : timings) chunks.push_back(t.chunk);
  record_split_times(record_split_partition(L, chunks), timings, bytes_moved, staging_seconds);
}

OwnerPlacement::OwnerPlacement(const Launch& L, unsigned devices) : launch_(&L), devices_(devices) {
  remaining_ = L.total_groups;
  if (!enabled(L)) return;
  auto it = state().shapes.find(shape_key(L));
  if (it != state().shapes.end() && it->second.owner.size() == L.total_groups) {
    owner_ = it->second.owner;
    for (int& o : owner_)
      if (o >= int(devices)) o = -1;
  } else {
    // First launch of the shape: equal contiguous blocks, so that packages
    // dealt in NDRange order do not interleave the devices from the start
    // (their borders would stay, each one a halo at every launch).
    owner_.resize(L.total_groups);
    for (uint64_t g = 0; g < L.total_groups; ++g) owner_[g] = int(g * devices / L.total_groups);
  }
  placed_.assign(owner_.size(), false);
  const int64_t n = int64_t(owner_.size());
  low_.assign(devices + 1, 0);
  high_.assign(devices + 1, n - 1);
  first_.assign(devices + 1, n);
  last_.assign(devices + 1, -1);
  left_.assign(devices + 1, 0);
  for (int64_t g = 0; g < n; ++g) {
    const int o = owner_[g];
    top_owner_ = std::max(top_owner_, o);
    first_[o + 1] = std::min(first_[o + 1], g);
    last_[o + 1] = std::max(last_[o + 1], g);
    ++left_[o + 1];
  }
  active_ = true;
}

int64_t OwnerPlacement::lowest_unplaced(int who) {
  int64_t& g = low_[who + 1];
  const int64_t n = int64_t(owner_.size());
  while (g < n && (placed_[g] || owner_[g] != who)) ++g;
  return g;
}

int64_t OwnerPlacement::highest_unplaced(int who) {
  int64_t& g = high_[who + 1];
  while (g >= 0 && (placed_[g] || owner_[g] != who)) --g;
  return g;
}

std::optional<sched::Chunk> OwnerPlacement::place(unsigned device, uint64_t size, bool may_decline) {
  if (!remaining_ || !active_) return std::nullopt;
  size = std::max<uint64_t>(1, size);
  const int64_t n = int64_t(owner_.size());
  // Each owner consumes its groups from one end (the highest-numbered owner
  // from the top, the others from the bottom); other devices take from the
  // opposite end, so what remains of an owner's groups stays together and a
  // steal moves a partition boundary rather than cutting a hole.
  auto from_top = [&](int who) { return who == top_owner_; };
  // The run `who` would give from one end; `commit` marks it placed.
  auto find = [&](int who, bool downward) -> std::optional<sched::Chunk> {
    const int64_t g = downward ? highest_unplaced(who) : lowest_unplaced(who);
    if (g < 0 || g >= n) return std::nullopt;
    const int64_t step = downward ? -1 : 1;
    int64_t e = g;
    uint64_t count = 0;
    while (e >= 0 && e < n && !placed_[e] && owner_[e] == who && count < size) e += step, ++count;
    const uint64_t first = downward ? uint64_t(e + 1) : uint64_t(g);
    return sched::Chunk{device, first, count};
  };
  auto commit = [&](const sched::Chunk& c) {
    for (uint64_t g = c.first_group; g < c.first_group + c.group_count; ++g) {
      placed_[g] = true;
      --left_[owner_[g] + 1];
    }
    remaining_ -= c.group_count;
    return c;
  };
  if (auto c = find(int(device), from_top(int(device)))) return commit(*c);
  if (auto c = find(-1, false)) return commit(*c);
  // Steal: from the end of another device's remaining groups nearest to
  // this device's own groups (a neighbour's border: the partition border
  // moves, no hole is cut); ties go to the device with the most left.
  int64_t mine_lo = device + 1 < first_.size() ? first_[device + 1] : n;
  int64_t mine_hi = device + 1 < last_.size() ? last_[device + 1] : -1;
  if (mine_hi < 0) mine_lo = mine_hi = n / 2;
  auto distance = [&](int64_t g) { return std::min(std::llabs(g - mine_lo), std::llabs(g - mine_hi)); };
  int victim = -1;
  bool downward = false;
  int64_t best = 0;
  for (unsigned v = 0; v < devices_; ++v) {
    if (!left_[v + 1]) continue;
    for (bool down : {false, true}) {
      const int64_t dist = distance(down ? highest_unplaced(int(v)) : lowest_unplaced(int(v)));
      if (victim < 0 || dist < best || (dist == best && left_[v + 1] > left_[unsigned(victim) + 1]))
        victim = int(v), downward = down, best = dist;
    }
  }
  if (victim < 0) return std::nullopt;
  std::optional<sched::Chunk> c = find(victim, downward);
  if (!c) return std::nullopt;
  if (may_decline) {
    LocalityState& st = state();
    auto known = st.kernels.find(rate_key(*launch_));
    const std::vector<double>* rates = known != st.kernels.end() ? &known->second.seconds_per_group : nullptr;
    if (rates && rates->size() > std::max<unsigned>(device, victim) && (*rates)[device] > 0 &&
        (*rates)[victim] > 0) {
      const StagingEstimate e = staging_bytes(*launch_, {*c});
      const double mine = (*rates)[device] * double(c->group_count) +
                          double(e.to_device + e.to_host) / st.copy_rate;
      const double theirs = (*rates)[victim] * double(left_[unsigned(victim) + 1]);
      if (mine >= theirs) return std::nullopt;
    }
  }
  return commit(*c);
}

}  // namespace libsplit

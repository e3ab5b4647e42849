// Speculative probes: a small slice of a launch run on another device IN
// ADDITION to the real work, only to measure that device. A probe reads a
// copy of the launch's inputs taken on the host before the real work is
// enqueued, writes only the device's private scratch copy of each buffer
// (BufferStore::probe_mem: never valid data, never merged, never seen by the
// app), runs on the device's probe queue, and nobody waits for it: its time
// reaches the scheduler from its completion callback (launch_reports.cpp).
// Only launches whose regions are all known are probed (the inputs of a
// slice are then exact); sub-buffer arguments are not.
#include "launch.h"

#include "completion.h"
#include "device_wait.h"
#include "executables.h"
#include "indirect_regions.h"
#include "real_api.h"

#include <atomic>
#include <cstring>

namespace libsplit {

struct StagedProbe {
  sched::Chunk chunk;
  std::map<BufferStore*, cl_mem> scratch;  // on chunk.device
  struct Piece {
    cl_mem scratch;
    Range range;
    size_t offset;  // into bytes
  };
  std::vector<Piece> pieces;
  std::vector<uint8_t> bytes;  // the slice's inputs, copied from the host
  double staging_seconds = 0;
};

struct StagedProbes {
  std::vector<StagedProbe> probes;
};

namespace {

cl_mem scratch_buffer(BufferStore& s, unsigned device) {
  Runtime& rt = runtime();
  if (s.probe_mem.size() < rt.devices.size()) s.probe_mem.resize(rt.devices.size(), nullptr);
  if (!s.probe_mem[device]) {
    cl_int err = CL_SUCCESS;
    s.probe_mem[device] = real().clCreateBuffer(rt.context(rt.devices[device].slot),
                                                CL_MEM_READ_WRITE, s.size, nullptr, &err);
  }
  return s.probe_mem[device];
}

cl_command_queue probe_queue(unsigned device) {
  Device& d = runtime().devices[device];
  if (!d.probe_queue) {
    cl_int err = CL_SUCCESS;
    d.probe_queue = create_profiling_queue(d, runtime().context(d.slot), &err);
  }
  return d.probe_queue;
}

// A copy rate in bytes per second, smoothed over the copies large enough to
// time (1 MB and up), starting from a deliberately low estimate.
class MeasuredRate {
 public:
  explicit MeasuredRate(double initial) : rate_(initial) {}
  void record(size_t bytes, double seconds) {
    if (bytes < (1u << 20) || seconds <= 0) return;
    rate_.store(0.5 * rate_.load() + 0.5 * double(bytes) / seconds);
  }
  double get() const { return rate_.load(); }

 private:
  std::atomic<double> rate_;
};

// Host copies of probe staging (fresh pages fault in as they are copied),
// and blocking reads back from the devices, with the fixed cost of one.
MeasuredRate staging_rate{2e9};
MeasuredRate read_back_rate{1e9};
constexpr double kReadBackLatency = 100e-6;

// Copies the inputs of chunk c on the host when that is estimated to cost at
// most `room` seconds (*cost = the estimate); false when it cannot be probed.
bool stage(const Launch& L, const sched::Chunk& c, double room, StagedProbe& probe,
           double* cost) {
  probe.chunk = c;
  const cl_ulong t0 = now_ns();
  std::map<BufferStore*, IntervalSet> inputs;
  for (const BufferArg& b : L.buffers) {
    if (b.mem->parent) return false;
    if (!b.reads) continue;
    std::optional<IntervalSet> reads = L.slice_bytes(b, c, false);
    if (!reads) return false;
    for (const Range& r : reads->ranges()) inputs[b.mem->store.get()].add(r);
  }
  size_t total = 0, on_devices = 0, reads = 0;
  for (auto& [s, set] : inputs)
    for (const Range& r : set.ranges()) {
      total += r.size();
      for (const Range& m : s->host_valid.missing(r)) on_devices += m.size(), ++reads;
    }
  // One work-group may read far more than its share (a column of a
  // row-major matrix spans the whole matrix): decide before copying. Bytes
  // only a device holds are read back first, a blocking read that also
  // waits for the work queued there (on the H100 node 1.3 MB cost 1-2 ms).
  *cost = double(total) / staging_rate.get() + double(on_devices) / read_back_rate.get() +
          double(reads) * kReadBackLatency;
  if (*cost > room) return false;
  const cl_ulong t_read = now_ns();
  for (auto& [s, set] : inputs)
    for (const Range& r : set.ranges())
      if (ensure_host(*s, r) != CL_SUCCESS) return false;
  const cl_ulong t_copy = now_ns();
  if (on_devices > 0) read_back_rate.record(on_devices, (t_copy - t_read) * 1e-9);
  for (const BufferArg& b : L.buffers) {
    BufferStore* s = b.mem->store.get();
    cl_mem m = scratch_buffer(*s, c.device);
    if (!m) return false;
    probe.scratch[s] = m;
  }
  probe.bytes.resize(total);
  size_t at = 0;
  for (auto& [s, set] : inputs)
    for (const Range& r : set.ranges()) {
      std::memcpy(probe.bytes.data() + at, s->shadow + r.begin, r.size());
      probe.pieces.push_back({probe.scratch[s], r, at});
      at += r.size();
    }
  probe.staging_seconds = (now_ns() - t0) * 1e-9;
  staging_rate.record(total, (now_ns() - t_copy) * 1e-9);
  return true;
}

struct ProbeDone {
  std::shared_ptr<StagedProbes> staged;  // keeps the input bytes alive
  size_t index;
  sched::LaunchKey key;
  uint64_t launch;
  std::string kernel;
};

void CL_CALLBACK probe_done(cl_event e, cl_int status, void* user) {
  DriverCallbackScope scope;
  std::unique_ptr<ProbeDone> done(static_cast<ProbeDone*>(user));
  const StagedProbe& p = done->staged->probes[done->index];
  const double seconds = status == CL_COMPLETE
                            ? injected_slowdown(p.chunk.device, done->launch, done->kernel) * event_seconds(e)
                            : 0;
  real().clReleaseEvent(e);
  post_probe_report(done->key, {p.chunk, seconds, p.staging_seconds});
  log_line(1, "probe of launch " + std::to_string(done->launch) + " " + done->kernel + " | dev" +
                  std::to_string(p.chunk.device) + " " + std::to_string(p.chunk.group_count) +
                  " groups " + ms(seconds) + " ms, staging " + ms(p.staging_seconds) + " ms");
}

}  // namespace

std::shared_ptr<StagedProbes> stage_probes(const Launch& L, const std::vector<sched::Chunk>& wanted,
                                           double room) {
  auto staged = std::make_shared<StagedProbes>();
  limit_index_reads(L, room);  // index reads are staging time too
  const bool probeable = L.compiled && L.regions_known();
  for (const sched::Chunk& c : wanted) {
    StagedProbe probe;
    double cost = 0;
    const bool ready = probeable && device_ready(L.kernel, c.device);
    if (ready && c.group_count > 0 && c.first_group + c.group_count <= L.total_groups &&
        stage(L, c, room, probe, &cost)) {
      room -= probe.staging_seconds;
      staged->probes.push_back(std::move(probe));
    } else {
      // Every probe handed out is reported once: this one could not run.
      if (probeable && !ready)
        log_line(2, "probe of launch " + std::to_string(L.id) + " " + L.kernel->name + " on dev" +
                        std::to_string(c.device) + " not run: the program is not built there yet");
      if (cost > room)
        log_line(2, "probe of launch " + std::to_string(L.id) + " " + L.kernel->name + " on dev" +
                        std::to_string(c.device) + " not run: staging its inputs would cost ~" +
                        ms(cost) + " ms, the exploration budget has " + ms(room) + " ms");
      post_probe_report(L.key, {c, 0, probe.staging_seconds});
    }
  }
  return staged;
}

void start_probes(const Launch& L, std::shared_ptr<StagedProbes> staged) {
  for (size_t i = 0; i < staged->probes.size(); ++i) {
    StagedProbe& p = staged->probes[i];
    const unsigned d = p.chunk.device;
    cl_int err = CL_SUCCESS;
    cl_command_queue dq = probe_queue(d);
    cl_kernel dk = dq ? device_kernel(L.kernel, d, &err) : nullptr;
    for (size_t j = 0; dk && err == CL_SUCCESS && j < p.pieces.size(); ++j) {
      const StagedProbe::Piece& piece = p.pieces[j];
      err = real().clEnqueueWriteBuffer(dq, piece.scratch, CL_FALSE, piece.range.begin,
                                        piece.range.size(), p.bytes.data() + piece.offset, 0,
                                        nullptr, nullptr);
    }
    cl_event e = nullptr;
    if (dk && err == CL_SUCCESS) err = set_device_args(dk, L.args, d, &p.scratch);
    if (dk && err == CL_SUCCESS) err = launch_chunk(dq, dk, L, p.chunk, &e);
    if (!dk || err != CL_SUCCESS || !e) {
      post_probe_report(L.key, {p.chunk, 0, p.staging_seconds});
      continue;
    }
    real().clFlush(dq);
    auto* done = new ProbeDone{staged, i, L.key, L.id, L.kernel->name};
    if (real().clSetEventCallback(e, CL_COMPLETE, probe_done, done) != CL_SUCCESS) {
      probe_done(e, wait_device_event(e), done);
    }
  }
}

}  // namespace libsplit

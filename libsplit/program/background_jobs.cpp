#include "background_jobs.h"

#include "child_process.h"
#include "device_wait.h"
#include "real_api.h"
#include "runtime.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace libsplit {

namespace {

// Set when the app ends: background jobs make no further driver call.
std::atomic<bool> g_exiting{false};

// See become_background_build.
thread_local bool t_background_job = false;

// Background jobs still running (a driver torn down under a running build
// crashes). At the app's end (before_exit) the jobs stop at their next step and the
// process waits for the step under way (a driver call), at most kExitWait.
std::mutex g_jobs_mutex;
// Never destroyed: a job still running when before_exit gave up waiting for
// it wakes this after exit() has run the static destructors.
std::condition_variable& g_jobs_cv = *new std::condition_variable;
unsigned g_jobs = 0;
constexpr auto kExitWait = std::chrono::seconds(10);

}  // namespace

void run_background_job(cl_program p, std::function<void()> job) {
  {
    std::lock_guard lock(g_jobs_mutex);
    ++g_jobs;
  }
  hold_for_job(p);
  std::thread([p, job = std::move(job)] {
    job();
    release_for_job(p);
    // The waiter is woken under the lock: before_exit reads the count under
    // it, so the app's exit cannot run while the job is still inside
    // notify_all (it did, TSan: the static destructors destroyed the
    // condition variable under a job's broadcast).
    std::lock_guard lock(g_jobs_mutex);
    --g_jobs;
    g_jobs_cv.notify_all();
  }).detach();
}

bool app_exiting() { return g_exiting; }

void become_background_build() { t_background_job = true; }

bool in_background_build() { return t_background_job; }

void before_exit() {
  g_exiting = true;
  if (unsigned stopped = stop_helpers())
    log_line(2, "exit: stopped " + std::to_string(stopped) + " helper(s) building or compiling in the background");
  {
    std::unique_lock lock(g_jobs_mutex);
    if (g_jobs > 0) {
      const cl_ulong t0 = now_ns();
      bool done = g_jobs_cv.wait_for(lock, kExitWait, [] { return g_jobs == 0; });
      log_line(1, std::string("exit: ") + (done ? "waited " : "gave up after ") +
                      std::to_string((now_ns() - t0) / 1000000) + " ms for background preparation");
    }
  }
  // Commands libsplit queued may still run in driver threads (a probe on a
  // PoCL device compiles its kernel there at the first run): the process
  // must not tear the drivers down under them. On the GPU node 2 of 22 runs
  // of syr2k large crashed in LLVM's code generation inside a PoCL worker
  // thread after main returned.
  if (Runtime* rt = runtime_if_started(); rt && rt->splitting && rt->attached) {
    const cl_ulong t0 = now_ns();
    rt->stop_opening();  // the devices opening in the background: not torn down under it
    // A lost device's queues never finish (PoCL-Remote: its server died):
    // nothing runs there any more, so nothing is torn down under it.
    for (unsigned d = 0; d < rt->devices.size(); ++d)
      for (cl_command_queue q : {rt->devices[d].queue, rt->devices[d].probe_queue})
        if (q && !device_lost(d)) finish_device_queue(q);
    log_line(2, "exit: device queues finished in " + std::to_string((now_ns() - t0) / 1000) + " us");
  }
}

}  // namespace libsplit

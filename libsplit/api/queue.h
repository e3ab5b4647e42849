// The enqueue machinery shared by every clEnqueue* implementation.
#pragma once

#include "objects.h"

#include <functional>

namespace libsplit {

// CL_SUCCESS or the error a native runtime returns for this queue / wait list.
cl_int check_queue_and_waits(cl_command_queue q, cl_uint num_waits, const cl_event* waits);

// Queues `run` on q after `waits`; hands the event to the app when out_event
// is non-null; blocks until completion when `blocking`. run() executes on the
// queue's worker under the runtime's exec lock and returns CL_SUCCESS or an
// error (the event then ends with that negative status).
cl_int enqueue(cl_command_queue q, cl_command_type type, cl_uint num_waits, const cl_event* waits,
               cl_event* out_event, bool blocking, std::function<cl_int()> run);

// Keeps objects alive while a command is queued.
struct Retained {
  std::vector<cl_mem> mems;
  std::vector<cl_kernel> kernels;
  std::vector<cl_sampler> samplers;
  Retained() = default;
  Retained(const Retained&) = delete;
  Retained& operator=(const Retained&) = delete;
  void add(cl_mem m) {
    if (m) retain(m), mems.push_back(m);
  }
  void add(cl_kernel k) { retain(k), kernels.push_back(k); }
  void add(cl_sampler s) { retain(s), samplers.push_back(s); }
  ~Retained() {
    for (cl_mem m : mems) release(m);
    for (cl_sampler s : samplers) release(s);
    for (cl_kernel k : kernels) release(k);
  }
};

}  // namespace libsplit

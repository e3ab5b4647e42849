// clEnqueueNDRangeKernel and clEnqueueTask: the launch validated as the
// app's device validates it, its arguments captured, then queued; the
// command runs execute_launch (launch/launch.h) on the queue's worker.
#include "api.h"
#include "executables.h"
#include "launch.h"
#include "program_checks.h"
#include "queue.h"
#include "real_api.h"

#include <algorithm>
#include <memory>

namespace libsplit {

namespace {

_cl_kernel::WorkGroupLimits work_group_limits(cl_kernel k, cl_device_id device) {
  {
    std::lock_guard lock(k->mutex);
    if (k->wg_limits.device == device) return k->wg_limits;
  }
  _cl_kernel::WorkGroupLimits limits;
  limits.device = device;
  real().clGetKernelWorkGroupInfo(k->native, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                  sizeof limits.required, limits.required, nullptr);
  size_t max = 0;
  if (real().clGetKernelWorkGroupInfo(k->native, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max, &max,
                                      nullptr) == CL_SUCCESS)
    limits.max = max;
  std::lock_guard lock(k->mutex);
  k->wg_limits = limits;
  return limits;
}

// The launch's local size (spec.local, spec.uniform, spec.local_chosen),
// validated as the app's device validates it, with the app's own kernel:
// devices (or partition-ready kernels) with lower limits are left out of
// the launch instead (launch.h device_takes_local_size,
// kernel_takes_local_size). A minimum over every device
// refused launches the native runtime takes (particlefilter's 512 items
// on NVIDIA: -54).
cl_int choose_local_size(cl_command_queue q, cl_kernel k, cl_uint work_dim, const size_t* global_size,
                         const size_t* local_size, LaunchSpec& spec) {
  Runtime& rt = runtime();
  const _cl_kernel::WorkGroupLimits limits = work_group_limits(k, q->device);
  const size_t* reqd = limits.required;
  const int queue_device = rt.device_index(q->device);
  const Device& app_device = rt.devices[queue_device >= 0 ? unsigned(queue_device) : q->home];
  size_t max_wg = app_device.max_work_group_size;
  if (limits.max && app_device.kernel_limit_enforced) max_wg = std::min(max_wg, limits.max);
  if (local_size) {
    size_t product = 1;
    for (unsigned d = 0; d < work_dim; ++d) product *= local_size[d];
    if (product > max_wg) {
      log_line(1, "launch of " + k->name + " refused (CL_INVALID_WORK_GROUP_SIZE): " + std::to_string(product) +
                      " work-items per group, above " + std::to_string(max_wg) + " (device " +
                      std::to_string(app_device.max_work_group_size) + ", the app's kernel there " +
                      (limits.max ? std::to_string(limits.max) : std::string("unknown")) + ")");
      return CL_INVALID_WORK_GROUP_SIZE;
    }
    for (unsigned d = 0; d < work_dim; ++d) {
      if (local_size[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
      if (reqd[0] && local_size[d] != reqd[d]) return CL_INVALID_WORK_GROUP_SIZE;
      if (local_size[d] > app_device.max_work_item_sizes[d]) return CL_INVALID_WORK_ITEM_SIZE;
      spec.local[d] = local_size[d];
      if (global_size[d] % local_size[d]) spec.uniform = false;
    }
    if (!spec.uniform && !non_uniform_allowed(q->device, k->program)) return CL_INVALID_WORK_GROUP_SIZE;
  } else if (reqd[0]) {
    for (unsigned d = 0; d < work_dim; ++d) {
      spec.local[d] = reqd[d];
      if (global_size[d] % reqd[d]) return CL_INVALID_WORK_GROUP_SIZE;
    }
  } else {
    spec.local_chosen = true;
    // Largest divisor of the global size up to 64 (and every device's limit)
    // in dimension 0, 1 elsewhere: every slice then has whole groups.
    size_t limit = std::min<size_t>({64, max_wg, rt.min_max_work_group_size()});
    for (size_t l = limit; l >= 1; --l)
      if (global_size[0] % l == 0) {
        spec.local[0] = l;
        break;
      }
  }
  return CL_SUCCESS;
}

// The kernel's arguments as set now, each buffer and sampler still alive,
// held (with the kernel) by `hold` until the launch has run.
cl_int capture_args(cl_kernel k, std::vector<ArgValue>* args, Retained& hold) {
  {
    std::lock_guard lock(k->mutex);
    for (auto& a : k->args) {
      if (a.kind == ArgValue::Kind::Unset) return CL_INVALID_KERNEL_ARGS;
      // Arguments do not retain their buffer: one the app released is gone.
      if (a.kind == ArgValue::Kind::Mem && a.mem && !(is_live_mem(a.mem) && valid(a.mem)))
        return CL_INVALID_KERNEL_ARGS;
      if (a.kind == ArgValue::Kind::Sampler && !(is_live_sampler(a.sampler) && valid(a.sampler)))
        return CL_INVALID_KERNEL_ARGS;
    }
    *args = k->args;
  }
  hold.add(k);
  for (auto& a : *args) {
    if (a.kind == ArgValue::Kind::Mem) hold.add(a.mem);
    if (a.kind == ArgValue::Kind::Sampler) hold.add(a.sampler);
  }
  return CL_SUCCESS;
}

}  // namespace

namespace api {

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint work_dim,
                              const size_t* global_offset, const size_t* global_size,
                              const size_t* local_size, cl_uint n, const cl_event* waits,
                              cl_event* ev) {
  if (!valid(q)) return CL_INVALID_COMMAND_QUEUE;
  if (!valid(k)) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (work_dim < 1 || work_dim > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global_size) {
    // OpenCL 2.1+: a null global size enqueues a command that does nothing.
    if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
    return enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false, nullptr);
  }
  LaunchSpec spec;
  spec.dims = work_dim;
  Runtime& rt = runtime();
  const bool timed = rt.controls.log >= 3;
  const cl_ulong validate_start = timed ? now_ns() : 0;
  bool any_zero = false;
  for (unsigned d = 0; d < work_dim; ++d) {
    spec.global[d] = global_size[d];
    spec.offset[d] = global_offset ? global_offset[d] : 0;
    any_zero |= global_size[d] == 0;
  }
  if (cl_int err = choose_local_size(q, k, work_dim, global_size, local_size, spec)) return err;
  if (cl_int err = check_queue_and_waits(q, n, waits)) return err;
  if (cl_int err = check_executable(k, q->home)) return err;
  std::vector<ArgValue> args;
  auto hold = std::make_shared<Retained>();
  if (cl_int err = capture_args(k, &args, *hold)) return err;
  if (any_zero) return enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false, nullptr);
  if (timed)
    log_line(3, "host time of enqueue validation: " +
                    std::to_string((now_ns() - validate_start) / 1000) + " us");
  const cl_ulong enqueue_start = timed ? now_ns() : 0;
  cl_int err = enqueue(q, CL_COMMAND_NDRANGE_KERNEL, n, waits, ev, false,
                       [=, args = std::move(args)]() mutable {
                         // Run once: the launch takes the arguments over.
                         return (void)hold, execute_launch(q, k, spec, std::move(args));
                       });
  if (timed)
    log_line(3, "host time of enqueue: " + std::to_string((now_ns() - enqueue_start) / 1000) + " us");
  return err;
}

cl_int clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n, const cl_event* waits, cl_event* ev) {
  size_t one = 1;
  return api::clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, n, waits, ev);
}

}  // namespace api
}  // namespace libsplit

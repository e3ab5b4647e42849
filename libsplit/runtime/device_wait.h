// Waiting for libsplit's own work on a device without hanging on a device
// that is gone (issue 26). A PoCL-Remote device whose server died never
// completes the commands it had in flight: the driver's clFinish and
// clWaitForEvents wait forever (PoCL v6.0 keeps trying to reconnect), but it
// reports the device unavailable (CL_DEVICE_AVAILABLE false) at once. So on
// remote devices these waits watch the event (its completion callback) and
// the device (every 10 ms) instead, and a device found unavailable is lost
// for good: every later wait on it returns CL_DEVICE_NOT_AVAILABLE at once. Devices of this host keep the driver's
// own blocking waits (the fastest on NVIDIA, and they do not vanish).
#pragma once

#include <CL/cl.h>

#include <vector>

namespace libsplit {

// clFinish of libsplit's device queue dq: CL_SUCCESS, or the driver's error,
// or CL_DEVICE_NOT_AVAILABLE where dq's device was lost.
cl_int finish_device_queue(cl_command_queue dq);

// finish_device_queue of each queue (null ones skipped), the remote ones
// waited together: their statuses, in the order of `queues`.
std::vector<cl_int> finish_device_queues(const std::vector<cl_command_queue>& queues);

// clWaitForEvents of one native event of libsplit's: its final execution
// status (CL_COMPLETE, or negative: the command failed, the device was lost).
cl_int wait_device_event(cl_event native);

// A blocking clEnqueueReadBuffer / clEnqueueWriteBuffer on runtime device
// d's queue (the driver blocks inside the call, where no wait of ours can
// watch the device): on a remote device, enqueued non-blocking and waited
// for as above. CL_SUCCESS or the error (CL_DEVICE_NOT_AVAILABLE: lost).
cl_int read_device_buffer(unsigned d, cl_mem mem, size_t offset, size_t size, void* ptr);
cl_int write_device_buffer(unsigned d, cl_mem mem, size_t offset, size_t size, const void* ptr);

// Several reads from libsplit's device buffers at once, each as
// read_device_buffer; those on remote devices are waited for together.
// CL_SUCCESS when all succeeded, else the first error.
struct DeviceRead {
  unsigned device;
  cl_mem mem;
  size_t offset, size;
  void* ptr;
};
cl_int read_device_buffers(const std::vector<DeviceRead>& reads);

// Whether runtime device d was found lost (its waits then return at once).
bool device_lost(unsigned d);

// Whether a remote device is lost now (asks the driver; false at once on a
// node without remote devices).
bool any_device_lost();

}  // namespace libsplit

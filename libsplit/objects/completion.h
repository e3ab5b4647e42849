// Commands whose device work is still running when their run() returns.
//
// A launch that runs whole on one device only enqueues its kernel on that
// device's in-order queue: every later command that touches the same data
// goes through the same device queue, so nothing needs to wait for the
// kernel on the host. The app's event must still complete only when the
// device is done, and an app queue stays in order: a command completes
// after every command enqueued before it. This file keeps that promise with
// native event callbacks instead of a host thread blocked in clFinish.
#pragma once

#include "objects.h"

#include <functional>

namespace libsplit {

// Called from inside a command's run(): the command completes only once
// `native` (a vendor event on the in-order `device_queue`; this takes over
// one reference) has completed.
// `on_complete` runs then (on a driver thread, or on a thread waiting in
// clFinish), before the app's event `app` is marked complete (measurements,
// scheduler reports, device times); it must not take the runtime's exec lock.
void complete_after(cl_command_queue device_queue, cl_event native,
                    std::function<void(cl_event native, cl_event app)> on_complete = nullptr);

// Called from inside a command's run() instead of complete_after() when the
// run only needs its device work to be ordered, not observed: no native
// event, no callback (a driver callback costs more than a short kernel).
// If the app can observe the command (it kept the event, or the call
// blocks), finish_command() adds a native marker on the device queue then;
// otherwise the work is remembered on the app queue, and the next observed
// command of that queue, or clFinish, covers it.
void note_device_work(cl_command_queue device_queue);

// Ends the command whose run() just returned `status` on queue q: marks the
// app event `e` (whose reference this takes over) final now, or once the
// native events given to complete_after() by this run() and every earlier
// pending command of q have completed.
void finish_command(cl_command_queue q, cl_event e, cl_int status);

// True while q has commands waiting for device completion (q->mutex held).
bool has_pending_completions(cl_command_queue q);

// Waits natively (clWaitForEvents) for the device work of q's pending
// commands and completes them, instead of waiting for the driver's callback
// thread: clFinish and blocking calls then return as fast as natively.
void help_complete(cl_command_queue q);
// The same for the commands of app event e's queue up to e (clWaitForEvents):
// nothing when e's command has not run yet or already completed.
void help_complete_event(cl_event e);

// Set on a thread while it runs libsplit's handler of a driver callback
// (native completion, probe end). Such a handler must never wait on a queue
// or enqueue on one: the driver may need the very thread it runs on (a
// marker finished from inside a callback hung clpeak with the log on).
class DriverCallbackScope {
 public:
  DriverCallbackScope();
  ~DriverCallbackScope();
  DriverCallbackScope(const DriverCallbackScope&) = delete;
  DriverCallbackScope& operator=(const DriverCallbackScope&) = delete;
};
bool in_driver_callback();

// Called before a call that waits or enqueues: with
// LIBSPLIT_INJECT_FAULTS=check_callbacks (tests) inside a driver callback,
// says which call and aborts, so that the rule above fails a test.
void check_may_wait(const char* what);

}  // namespace libsplit

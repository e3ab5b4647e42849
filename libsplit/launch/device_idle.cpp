#include "device_idle.h"

namespace libsplit {

double DeviceIdle::ran(unsigned device, uint64_t launch, uint64_t start_ns, uint64_t end_ns) {
  std::lock_guard lock(mutex_);
  if (device >= last_.size()) last_.resize(device + 1);
  Last& last = last_[device];
  const bool follows = last.launch + 1 == launch && last.launch > 0 && start_ns >= last.end_ns && start_ns > 0;
  const double idle = follows ? double(start_ns - last.end_ns) * 1e-9 : -1.0;
  // Reports may come out of order (driver callbacks): keep the latest.
  if (launch > last.launch && end_ns > 0) last = {launch, end_ns};
  return idle;
}

double idle_unless_moved(unsigned device, uint64_t launch, uint64_t start_ns, uint64_t end_ns,
                         double transfer_seconds) {
  const double idle = device_idle().ran(device, launch, start_ns, end_ns);
  return transfer_seconds > 0 ? -1.0 : idle;
}

DeviceIdle& device_idle() {
  static auto* idle = new DeviceIdle;  // used by exit-time callbacks
  return *idle;
}

}  // namespace libsplit

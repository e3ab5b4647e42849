// The app's end, before anything is torn down. Background jobs (program
// preparation) call into the OpenCL drivers; once exit() starts, static
// objects of the drivers and of LLVM inside them are destroyed in an order no
// atexit handler of ours can precede (they are created lazily, after ours
// would be registered). So libsplit runs its end-of-process work when main
// returns (wrapping main through __libc_start_main) or when the app calls
// exit(): both happen while every library is still whole.
#include "background_jobs.h"
#include "launch.h"

#include <dlfcn.h>

#include <cstdlib>

namespace {

using MainFn = int (*)(int, char**, char**);
MainFn g_app_main = nullptr;

int main_then_finish(int argc, char** argv, char** envp) {
  int status = g_app_main(argc, argv, envp);
  libsplit::before_exit();
  libsplit::report_pending_launches();
  return status;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int __libc_start_main(
    MainFn main, int argc, char** argv, void (*init)(), void (*fini)(), void (*rtld_fini)(),
    void* stack_end) {
  using StartFn = int (*)(MainFn, int, char**, void (*)(), void (*)(), void (*)(), void*);
  auto real_start = reinterpret_cast<StartFn>(dlsym(RTLD_NEXT, "__libc_start_main"));
  g_app_main = main;
  return real_start(main_then_finish, argc, argv, init, fini, rtld_fini, stack_end);
}

__attribute__((visibility("default"), noreturn)) void exit(int status) {
  using ExitFn = void (*)(int);
  static auto real_exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "exit"));
  libsplit::before_exit();
  libsplit::report_pending_launches();
  real_exit(status);
  __builtin_unreachable();
}

}  // extern "C"

#include "deferred_writes.h"

#include "runtime.h"

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace libsplit {
namespace {

// Entry life cycle. Only a thread holding the exec lock moves Free ->
// Recording -> Pending; anyone (a flushing command, the SIGSEGV handler of
// any thread, a store destructor) may claim Pending -> Flushing -> Free with
// a CAS, so the handler takes no lock and allocates nothing.
enum State : int { Free, Recording, Pending, Flushing };

struct Entry {
  std::atomic<int> state{Free};
  std::atomic<long> flusher{0};  // thread id while Flushing
  uintptr_t begin = 0, end = 0;  // page-aligned, write-protected app range
  uint8_t* dst = nullptr;        // shadow bytes receiving [begin, end)
  const BufferStore* store = nullptr;
};

constexpr int kEntries = 256;
Entry g_table[kEntries];
std::atomic<int> g_pending{0};
struct sigaction g_previous;
uintptr_t g_page = 4096;
int g_log = 0;

// Ranges unprotected lately: a thread may fault on a page just before
// another thread's flush frees its entry; its handler then finds no entry
// and must let the store retry instead of passing the fault on.
constexpr unsigned kRecent = 64;
struct RecentRange {
  std::atomic<uintptr_t> begin{0}, end{0};
};
RecentRange g_recent[kRecent];
std::atomic<unsigned> g_recent_next{0};
// The address this thread last retried for a recent range: a second fault
// there means the page is protected for another reason (no endless retry).
__attribute__((tls_model("initial-exec"))) thread_local uintptr_t t_retried = 0;

long thread_id() { return static_cast<long>(syscall(SYS_gettid)); }

void remember_unprotected(uintptr_t begin, uintptr_t end) {
  RecentRange& r = g_recent[g_recent_next.fetch_add(1, std::memory_order_relaxed) % kRecent];
  r.begin.store(0, std::memory_order_relaxed);
  r.end.store(end, std::memory_order_relaxed);
  r.begin.store(begin, std::memory_order_release);
}

bool recently_unprotected(uintptr_t addr) {
  for (RecentRange& r : g_recent) {
    uintptr_t begin = r.begin.load(std::memory_order_acquire);
    if (begin && begin <= addr && addr < r.end.load(std::memory_order_relaxed)) return true;
  }
  return false;
}

// Claims and performs e if it is pending; waits for it when another thread
// is recording or flushing it. Returns false when the caller itself is
// flushing e (a fault while reading the source: not ours to fix).
bool settle(Entry& e) {
  for (;;) {
    int st = e.state.load(std::memory_order_acquire);
    if (st == Free) return true;
    if (st == Pending) {
      int expected = Pending;
      if (!e.state.compare_exchange_strong(expected, Flushing, std::memory_order_acq_rel))
        continue;
      e.flusher.store(thread_id(), std::memory_order_relaxed);
      size_t len = e.end - e.begin;
      std::memcpy(e.dst, reinterpret_cast<const void*>(e.begin), len);
      mprotect(reinterpret_cast<void*>(e.begin), len, PROT_READ | PROT_WRITE);
      remember_unprotected(e.begin, e.end);
      e.flusher.store(0, std::memory_order_relaxed);
      e.state.store(Free, std::memory_order_release);
      g_pending.fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
    if (st == Flushing && e.flusher.load(std::memory_order_relaxed) == thread_id()) return false;
    // Recording or Flushing by another thread: it finishes without our help.
  }
}

void chain(int sig, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler == SIG_IGN) return;
  if (g_previous.sa_handler == SIG_DFL) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  g_previous.sa_handler(sig);
}

void on_segv(int sig, siginfo_t* info, void* context) {
  uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  bool ours = false;
  if (g_pending.load(std::memory_order_relaxed) > 0) {
    for (Entry& e : g_table) {
      int st = e.state.load(std::memory_order_acquire);
      if (st == Free || addr < e.begin || addr >= e.end) continue;
      if (!settle(e)) break;
      ours = true;
    }
  }
  if (!ours && t_retried != addr && recently_unprotected(addr)) {
    t_retried = addr;
    return;  // flushed by another thread meanwhile: retry the store
  }
  t_retried = 0;
  if (ours) {
    if (g_log >= 2) {
      static const char msg[] = "libsplit: deferred write trapped: app store into a pending "
                                "write's source, copied it first\n";
      ssize_t ignored = write(2, msg, sizeof msg - 1);
      (void)ignored;
    }
    return;  // the faulting store retries on the now writable page
  }
  chain(sig, info, context);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    g_log = runtime().controls.log;
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous);
  });
}

bool overlaps(const Entry& e, uintptr_t begin, uintptr_t end) {
  return begin < e.end && e.begin < end;
}

}  // namespace

void deferred_write(BufferStore& s, uint64_t begin, const void* ptr, size_t size) {
  install_handler();
  auto src = reinterpret_cast<uintptr_t>(ptr);
  uintptr_t first = (src + g_page - 1) & ~(g_page - 1);
  uintptr_t last = (src + size) & ~(g_page - 1);
  uint8_t* dst = s.shadow + begin;
  before_shadow_change(s, Range{begin, begin + size});
  // Earlier pending writes into the same bytes, or from the same pages (whose
  // protection this write would otherwise take over), go first.
  for (Entry& e : g_table) {
    if (e.state.load(std::memory_order_acquire) == Free) continue;
    bool same_dst = e.store == &s && e.dst < dst + size && dst < e.dst + (e.end - e.begin);
    if (same_dst || overlaps(e, src & ~(g_page - 1), src + size + g_page)) settle(e);
  }
  Entry* slot = nullptr;
  if (first < last) {
    for (Entry& e : g_table) {
      int expected = Free;
      if (e.state.compare_exchange_strong(expected, Recording, std::memory_order_acq_rel)) {
        slot = &e;
        break;
      }
    }
  }
  // A destination inside the protected pages (a USE_HOST_PTR buffer written
  // from its own memory) would fault during the copy: copy now.
  auto dst_at = reinterpret_cast<uintptr_t>(dst);
  bool dst_in_src = dst_at < last && first < dst_at + size;
  if (!slot || dst_in_src) {
    if (slot) slot->state.store(Free, std::memory_order_release);
    std::memmove(dst, ptr, size);
    return;
  }
  std::memcpy(dst, ptr, first - src);
  std::memcpy(dst + (last - src), reinterpret_cast<const void*>(last), src + size - last);
  slot->begin = first;
  slot->end = last;
  slot->dst = dst + (first - src);
  slot->store = &s;
  if (mprotect(reinterpret_cast<void*>(first), last - first, PROT_READ) != 0) {
    std::memcpy(slot->dst, reinterpret_cast<const void*>(first), last - first);
    slot->state.store(Free, std::memory_order_release);
    return;
  }
  g_pending.fetch_add(1, std::memory_order_relaxed);
  slot->state.store(Pending, std::memory_order_release);
  log_line(2, "deferred write: " + std::to_string(last - first) + " of " + std::to_string(size) +
                  " bytes write-protected, copy deferred");
}

void deferred_flush_all() {
  if (g_pending.load(std::memory_order_relaxed) == 0) return;
  for (Entry& e : g_table) settle(e);
}

void deferred_flush_store(const BufferStore& s) {
  if (g_pending.load(std::memory_order_relaxed) == 0) return;
  for (Entry& e : g_table)
    if (e.state.load(std::memory_order_acquire) != Free && e.store == &s) settle(e);
}

}  // namespace libsplit

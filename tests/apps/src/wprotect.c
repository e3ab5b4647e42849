/* wprotect: host arrays reused right after blocking writes, written the way
 * that stresses a runtime which defers writes by write-protecting the app's
 * pages (libsplit's LIBSPLIT_DEFERRED_WRITES, paper Fig. 2): page-aligned and
 * unaligned sources, one source written to two buffers, a source freed and
 * its memory reused, a source unmapped right after its blocking write, two
 * threads storing into a source at once, and an app that has its own SIGSEGV
 * handler and relies on it for an unrelated page. The kernels must see the
 * data as of each write (OpenCL 1.2 5.2.2). Case 5 stores into the
 * source of a non-blocking write before it completed (the result is
 * undefined, so nothing of it is printed): a deferring runtime must copy the
 * old bytes first rather than crash. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "app_common.h"

static const char* kSource =
    "__kernel void combine(__global const int* a, __global const int* b, __global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] * 10 + b[i];\n"
    "}\n";

enum { N = 16384 };

static volatile sig_atomic_t app_handler_runs = 0;
static char* guard_page = NULL;
static long page_size = 4096;

/* The app's own handler: makes its guard page writable on first touch. */
static void on_segv(int sig, siginfo_t* info, void* context) {
  char* addr = (char*)info->si_addr;
  (void)sig;
  (void)context;
  if (guard_page && addr >= guard_page && addr < guard_page + page_size) {
    mprotect(guard_page, (size_t)page_size, PROT_READ | PROT_WRITE);
    ++app_handler_runs;
    return;
  }
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
}

static void scribble(cl_int* v, size_t n, cl_int value) {
  size_t i;
  for (i = 0; i < n; ++i) v[i] = value + (cl_int)(i % 7);
}

struct half { cl_int* v; cl_int value; };
static void* scribble_half(void* arg) {
  struct half* h = (struct half*)arg;
  scribble(h->v, N / 2, h->value);
  return NULL;
}

static void fill(cl_int* v, unsigned mod) {
  int i;
  for (i = 0; i < N; ++i) v[i] = (cl_int)(app_rand() % mod);
}

int main(int argc, char** argv) {
  cl_int err;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel k;
  cl_mem ba, bb, bout;
  static cl_int out[N];
  cl_int* aligned;
  cl_int* heap;
  size_t global = N, local = 128;
  struct sigaction action;

  page_size = sysconf(_SC_PAGESIZE);
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, NULL);
  guard_page = (char*)mmap(NULL, (size_t)page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  aligned = (cl_int*)mmap(NULL, N * sizeof(cl_int), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (guard_page == MAP_FAILED || aligned == MAP_FAILED) return 2;

  app_open_output(argc, argv);
  app_setup(&dev, &ctx, &q);
  prog = app_build(ctx, dev, kSource, "");
  k = app_kernel(prog, "combine");
  ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY, N * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);
  bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY, N * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);
  bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_int), NULL, &err);
  CHECK_ERR(err);
  CHECK(clSetKernelArg(k, 0, sizeof ba, &ba));
  CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
  CHECK(clSetKernelArg(k, 2, sizeof bout, &bout));

  /* 1. Blocking writes from a page-aligned array, reused before the launch. */
  fill(aligned, 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_TRUE, 0, N * sizeof(cl_int), aligned, 0, NULL, NULL));
  fill(aligned, 10u);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_TRUE, 0, N * sizeof(cl_int), aligned, 0, NULL, NULL));
  scribble(aligned, N, -4000);
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("aligned_reused", out, sizeof out);

  /* 2. One unaligned heap source written to both buffers (at an offset for
   *    one), then stored into by two threads at once before the launch. */
  heap = (cl_int*)malloc(N * sizeof(cl_int) + 12);
  if (!heap) return 2;
  heap = (cl_int*)((char*)heap + 12);
  fill(heap, 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_FALSE, 0, N * sizeof(cl_int), heap, 0, NULL, NULL));
  CHECK(clEnqueueWriteBuffer(q, bb, CL_TRUE, 100 * sizeof(cl_int), (N - 100) * sizeof(cl_int),
                             heap, 0, NULL, NULL));
  {
    pthread_t t;
    struct half low = {heap, 7}, high = {heap + N / 2, 9};
    if (pthread_create(&t, NULL, scribble_half, &high) != 0) return 2;
    scribble_half(&low);
    pthread_join(t, NULL);
  }
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  app_dump("shared_source_threads", out, sizeof out);

  /* 3. A source freed right after its blocking write; the memory is reused
   *    by a new allocation that is filled before the launch. */
  fill(heap, 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_TRUE, 0, N * sizeof(cl_int), heap, 0, NULL, NULL));
  free((char*)heap - 12);
  {
    cl_int* reused = (cl_int*)malloc(N * sizeof(cl_int) + 12);
    if (!reused) return 2;
    scribble(reused, N + 3, 123);
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    app_dump("freed_source", out, sizeof out);
    free(reused);
  }

  /* 3b. A page-aligned source unmapped right after its blocking write (as
   *     free does with a large malloc block): the write must have read it. */
  {
    cl_int* mapped = (cl_int*)mmap(NULL, N * sizeof(cl_int), PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return 2;
    fill(mapped, 1000u);
    CHECK(clEnqueueWriteBuffer(q, ba, CL_TRUE, 0, N * sizeof(cl_int), mapped, 0, NULL, NULL));
    munmap(mapped, N * sizeof(cl_int));
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    app_dump("unmapped_source", out, sizeof out);
  }

  /* 4. A pending non-blocking write at release: the buffer goes away
   *    untouched; the source is reused once clFinish returned. */
  fill(aligned, 1000u);
  CHECK(clEnqueueWriteBuffer(q, ba, CL_FALSE, 0, N * sizeof(cl_int), aligned, 0, NULL, NULL));
  CHECK(clReleaseMemObject(ba));
  CHECK(clFinish(q));
  scribble(aligned, N, 42);
  app_dump("aligned_after_release", aligned, N * sizeof(cl_int));

  /* 5. Stores into the source of a non-blocking write that has not completed
   *    (undefined contents of bb afterwards: not printed). */
  fill(aligned, 1000u);
  CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, N * sizeof(cl_int), aligned, 0, NULL, NULL));
  scribble(aligned, N, 77);
  CHECK(clFinish(q));

  /* 6. The app's own handler still serves its own faults. Last: here the
   *    handler libsplit chains to is not the app's but one installed in
   *    between (seen with PoCL: its in-process LLVM compiler's), which puts
   *    the app's handler back on a fault it does not own; libsplit's is then
   *    no longer called. */
  guard_page[5] = 1;
  app_print("app_handler_runs", app_handler_runs);
  printf("app_handler_runs = %d\n", (int)app_handler_runs);

  clReleaseMemObject(bb);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  app_close_output();
  return 0;
}

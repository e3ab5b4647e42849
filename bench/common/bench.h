// Boilerplate shared by the benchmark applications: argument parsing, device
// choice, program build with the build log, timing, result checking and the
// output format the harness (scripts/bench) reads. Everything else an app
// does is plain OpenCL written in the app itself.
//
// Output contract (last lines of every app):
//   [iter=<i> ms=<t>]   one per iteration, only with --per-iter
//   PASS | FAIL         result of the CPU reference check
//   time_ms=<t>         wall time of the whole kernel loop
#pragma once

#include <CL/cl.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { BENCH_SMALL = 0, BENCH_MEDIUM = 1, BENCH_LARGE = 2 } bench_size;

typedef struct {
  bench_size size;
  int iters;
  int device;    // index among the devices of all platforms, numbered in order
  int per_iter;  // print per-iteration times
  int check;     // run the CPU reference check (--no-check turns it off)
  const char* dump;  // --dump FILE: the result buffer's bytes (bench_dump), NULL = none
} bench_options;

// Parses --size small|medium|large, --iters N, --device N, --per-iter,
// --no-check, --help. Prints usage and exits on a bad argument.
bench_options bench_parse_args(int argc, char** argv, const char* app_name,
                               int default_iters);

// With --dump FILE, writes the `bytes` of the app's result (as read back from
// the device) to FILE, for bit-for-bit comparisons between runs; exits on an
// I/O error. Does nothing otherwise.
void bench_dump(const bench_options* opts, const void* result, size_t bytes);

// Picks the small, medium or large value for the chosen preset.
#define BENCH_PRESET(opts, s, m, l) \
  ((opts).size == BENCH_SMALL ? (s) : (opts).size == BENCH_MEDIUM ? (m) : (l))

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
} bench_cl;

// Returns device `index`, numbering the devices of all platforms in order (all
// device types, in the platform's order). Exits with a message on failure.
cl_device_id bench_pick_device(int index);

// Opens device `index` (numbered across all platforms), with a
// context and an in-order queue. Exits with a message on failure.
bench_cl bench_open(int index);
void bench_close(bench_cl* cl);

// Exits with the error code and `what` when err != CL_SUCCESS.
void bench_check_cl(cl_int err, const char* what);
#define BENCH_CL(call) bench_check_cl((call), #call)

// Builds `source` for `device`; on failure prints the build log and exits.
cl_program bench_build(cl_context context, cl_device_id device,
                       const char* source, const char* options);

// Creates kernel `name` of `program` or exits.
cl_kernel bench_kernel(cl_program program, const char* name);

// clCreateBuffer that exits on failure.
cl_mem bench_buffer(cl_context context, cl_mem_flags flags, size_t bytes,
                    void* host);

// clSetKernelArg for an lvalue (buffer handle or scalar), exits on failure.
#define BENCH_ARG(kernel, index, value) \
  BENCH_CL(clSetKernelArg((kernel), (index), sizeof(value), &(value)))

// Rounds n up to a multiple of m (global sizes padded to the local size).
size_t bench_round_up(size_t n, size_t m);

// Monotonic wall clock in milliseconds.
double bench_now_ms(void);

// Sorts v (n values) in place and returns the value at fraction q of the
// way up (0.5: the median, 0.9: the 90th percentile).
double bench_quantile(double* v, size_t n, double q);

// The timed loop of the one-kernel apps: `iters` launches of `kernel`, each
// followed by clFinish; iter_ms[i] gets launch i's wall time. Returns the
// wall time of the whole loop.
double bench_time_kernel(const bench_cl* cl, cl_kernel kernel, cl_uint dims,
                         const size_t* global, const size_t* local, int iters,
                         double* iter_ms);

// Deterministic pseudo-random floats in [lo, hi).
void bench_fill(float* data, size_t n, unsigned seed, float lo, float hi);

// Compares got against ref with |got-ref| <= atol + rtol*|ref|. Prints the
// first few mismatches under `what`; returns 1 when everything matches.
int bench_compare(const char* what, const float* got, const float* ref,
                  size_t n, double rtol, double atol);

// Largest |x| of an array (to scale absolute tolerances).
double bench_max_abs(const float* data, size_t n);

// Prints the per-iteration times (with --per-iter), then PASS/FAIL (or
// "CHECK SKIPPED" with --no-check), then time_ms. Returns the exit status.
int bench_finish(const bench_options* opts, const double* iter_ms, int iters,
                 double total_ms, int ok);

#ifdef __cplusplus
}
#endif

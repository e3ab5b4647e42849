// scan_sort: long chains of small dependent launches.
// Covers: a Hillis-Steele inclusive scan (log2(n) launches, each reading
// in[i - offset] with offset a kernel argument: the read region of a slice
// reaches into the other slices) with ping-pong buffers, then a bitonic sort
// (78 launches, compare-exchange with partner i ^ j: a data-independent but
// non-affine access pattern, every launch in place on one buffer), key-value
// sorting with a payload buffer, a final gather through the sorted payload.
#include "cpp_common.hpp"

#include <utility>

static const char* kSource = R"CLC(
__kernel void scan_step(__global const int* in, __global int* out, int offset) {
  int i = get_global_id(0);
  out[i] = i >= offset ? in[i] + in[i - offset] : in[i];
}

__kernel void bitonic(__global uint* keys, __global int* payload, int j, int k) {
  uint i = get_global_id(0);
  uint partner = i ^ (uint)j;
  if (partner > i) {
    uint a = keys[i], b = keys[partner];
    bool ascending = (i & (uint)k) == 0;
    if ((a > b) == ascending) {
      keys[i] = b;
      keys[partner] = a;
      int t = payload[i];
      payload[i] = payload[partner];
      payload[partner] = t;
    }
  }
}

__kernel void gather(__global const int* values, __global const int* order,
                     __global int* out) {
  int i = get_global_id(0);
  out[i] = values[order[i]];
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int n = 4096;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program(context, kSource);
    program.build("-cl-std=CL1.2");
    cl::Kernel scan(program, "scan_step"), sort(program, "bitonic"), gather(program, "gather");

    std::vector<int> values(n), out(n), payload(n);
    std::vector<cl_uint> keys(n);
    for (int i = 0; i < n; ++i) {
      values[i] = static_cast<int>(app_rand() % 100);
      keys[i] = app_rand() % 50000;  // repeated keys on purpose: ties must not matter
      payload[i] = i;
    }
    // Ties: the payload of equal keys could come out in either order, so the
    // key is made unique by its low bits.
    for (int i = 0; i < n; ++i) keys[i] = keys[i] * 4096u + static_cast<cl_uint>(i);

    cl::Buffer buf[2] = {cl::Buffer(context, values.begin(), values.end(), false),
                         cl::Buffer(context, CL_MEM_READ_WRITE, n * sizeof(int))};
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int> run_scan(scan);
    int src = 0;
    for (int offset = 1; offset < n; offset *= 2) {
      run_scan(cl::EnqueueArgs(queue, cl::NDRange(n), cl::NDRange(128)), buf[src], buf[1 - src],
               offset);
      src = 1 - src;
    }
    cl::copy(queue, buf[src], out.begin(), out.end());
    dump("scan", out);

    cl::Buffer dkeys(context, keys.begin(), keys.end(), false);
    cl::Buffer dpayload(context, payload.begin(), payload.end(), false);
    sort.setArg(0, dkeys);
    sort.setArg(1, dpayload);
    int launches = 0;
    for (int k = 2; k <= n; k *= 2) {
      for (int j = k / 2; j > 0; j /= 2) {
        sort.setArg(2, j);
        sort.setArg(3, k);
        queue.enqueueNDRangeKernel(sort, cl::NullRange, cl::NDRange(n), cl::NDRange(64));
        ++launches;
      }
    }
    app_print("sort_launches", launches);
    cl::copy(queue, dkeys, keys.begin(), keys.end());
    cl::copy(queue, dpayload, payload.begin(), payload.end());
    dump("sorted_keys", keys);
    dump("sorted_payload", payload);

    cl::Buffer dvalues(context, values.begin(), values.end(), true);
    cl::Buffer dout(context, CL_MEM_WRITE_ONLY, n * sizeof(int));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer> run_gather(gather);
    run_gather(cl::EnqueueArgs(queue, cl::NDRange(n)), dvalues, dpayload, dout);
    cl::copy(queue, dout, out.begin(), out.end());
    dump("values_in_key_order", out);
  });
}

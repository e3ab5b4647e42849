// threads: two host threads driving their own queues at the same time.
// Covers: one context shared by threads, a queue / kernel object / buffers
// per thread, both threads launching iterative work concurrently, a third
// phase on the main thread combining both results (cross-queue data via
// clFinish on both queues first), the C++ bindings' cl::copy.
#include "cpp_common.hpp"

#include <thread>

static const char* kSource = R"CLC(
__kernel void relax(__global const float* in, __global float* out, int n, float w) {
  int i = get_global_id(0);
  float l = in[max(i - 1, 0)], r = in[min(i + 1, n - 1)];
  out[i] = (1.0f - w) * in[i] + w * 0.5f * (l + r);
}
__kernel void combine(__global const float* a, __global const float* b, __global float* out) {
  int i = get_global_id(0);
  out[i] = a[i] - b[i];
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int n = 8192, iterations = 16;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::Program program(context, kSource, true);
    std::vector<float> init(n);
    for (float& v : init) v = static_cast<float>(app_rand() % 128);

    struct Worker {
      cl::CommandQueue queue;
      cl::Kernel kernel;
      cl::Buffer buf[2];
      float weight;
      std::string error;
    };
    std::vector<Worker> workers;
    for (int t = 0; t < 2; ++t)
      workers.push_back({cl::CommandQueue(context, device), cl::Kernel(program, "relax"),
                         {cl::Buffer(context, init.begin(), init.end(), false),
                          cl::Buffer(context, CL_MEM_READ_WRITE, n * sizeof(float))},
                         t == 0 ? 0.5f : 0.25f,
                         {}});
    std::vector<std::thread> threads;
    for (Worker& w : workers)
      threads.emplace_back([&w, n, iterations] {
        try {
          for (int it = 0; it < iterations; ++it) {
            w.kernel.setArg(0, w.buf[it % 2]);
            w.kernel.setArg(1, w.buf[(it + 1) % 2]);
            w.kernel.setArg(2, n);
            w.kernel.setArg(3, w.weight);
            w.queue.enqueueNDRangeKernel(w.kernel, cl::NullRange, cl::NDRange(n),
                                         cl::NDRange(128));
          }
          w.queue.finish();
        } catch (const cl::Error& e) {
          w.error = std::string(e.what()) + " " + std::to_string(e.err());
        }
      });
    for (std::thread& t : threads) t.join();
    for (Worker& w : workers)
      if (!w.error.empty()) throw cl::Error(CL_INVALID_OPERATION, w.error.c_str());

    std::vector<float> result(n);
    for (size_t t = 0; t < workers.size(); ++t) {
      cl::copy(workers[t].queue, workers[t].buf[0], result.begin(), result.end());
      dump(t == 0 ? "thread0" : "thread1", result);
    }
    cl::CommandQueue queue(context, device);
    cl::Buffer diff(context, CL_MEM_WRITE_ONLY, n * sizeof(float));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer> combine(program, "combine");
    combine(cl::EnqueueArgs(queue, cl::NDRange(n), cl::NDRange(64)), workers[0].buf[0],
            workers[1].buf[0], diff);
    cl::copy(queue, diff, result.begin(), result.end());
    dump("difference", result);
  });
}

// volume3d: 3D NDRanges.
// Covers: a 3D 7-point stencil iterated with ping-pong buffers and a given
// 3D local size, a 3D launch with a global offset and NULL local size,
// 3D rect reads/writes with row and slice pitches (enqueueReadBufferRect
// with a 3D region), a 3D kernel using get_group_id / get_num_groups in all
// dimensions.
#include "cpp_common.hpp"

static const char* kSource = R"CLC(
int at(int x, int y, int z, int nx, int ny) { return (z * ny + y) * nx + x; }

__kernel void diffuse(__global const float* in, __global float* out, int nx, int ny, int nz) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  float c = in[at(x, y, z, nx, ny)];
  float s = in[at(max(x - 1, 0), y, z, nx, ny)] + in[at(min(x + 1, nx - 1), y, z, nx, ny)] +
            in[at(x, max(y - 1, 0), z, nx, ny)] + in[at(x, min(y + 1, ny - 1), z, nx, ny)] +
            in[at(x, y, max(z - 1, 0), nx, ny)] + in[at(x, y, min(z + 1, nz - 1), nx, ny)];
  out[at(x, y, z, nx, ny)] = 0.25f * c + 0.125f * s;
}

__kernel void label(__global int* out, int nx, int ny) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  out[at(x, y, z, nx, ny)] = (int)(get_global_offset(0) + 10 * get_global_offset(1) +
                                   100 * get_global_offset(2)) + x * 7 + y * 11 + z * 13;
}

__kernel void groups(__global int* out, int nx, int ny) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  out[at(x, y, z, nx, ny)] =
      (int)(get_group_id(0) + 10 * get_group_id(1) + 100 * get_group_id(2) +
            1000 * (get_num_groups(0) + get_num_groups(1) + get_num_groups(2)));
}
)CLC";

int main(int argc, char** argv) {
  return run_app(argc, argv, [] {
    const int nx = 32, ny = 24, nz = 16, volume = nx * ny * nz;
    cl::Device device = first_device();
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program(context, kSource, true);

    std::vector<float> field(volume);
    for (float& v : field) v = static_cast<float>(app_rand() % 64);
    cl::Buffer f[2] = {cl::Buffer(context, field.begin(), field.end(), false),
                       cl::Buffer(context, CL_MEM_READ_WRITE, volume * sizeof(float))};
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int, int, int> diffuse(program, "diffuse");
    for (int it = 0; it < 6; ++it)
      diffuse(cl::EnqueueArgs(queue, cl::NDRange(nx, ny, nz), cl::NDRange(8, 4, 4)), f[it % 2],
              f[(it + 1) % 2], nx, ny, nz);
    cl::copy(queue, f[0], field.begin(), field.end());
    dump("diffused", field);

    // A 3D box read out of the volume with row and slice pitches.
    std::vector<float> box(10 * 6 * 5);
    queue.enqueueReadBufferRect(f[0], CL_TRUE, {3 * sizeof(float), 5, 7}, {0, 0, 0},
                                {10 * sizeof(float), 6, 5}, nx * sizeof(float),
                                nx * ny * sizeof(float), 10 * sizeof(float),
                                10 * 6 * sizeof(float), box.data());
    dump("box", box);

    std::vector<int> labels(volume, -1);
    cl::Buffer dl(context, labels.begin(), labels.end(), false);
    // A 3D box written into the label volume, then an offset launch over it.
    std::vector<int> patch(8 * 4 * 4, 99);
    queue.enqueueWriteBufferRect(dl, CL_TRUE, {0, 0, 0}, {0, 0, 0}, {8 * sizeof(int), 4, 4},
                                 nx * sizeof(int), nx * ny * sizeof(int), 0, 0, patch.data());
    cl::KernelFunctor<cl::Buffer, int, int> label(program, "label");
    label(cl::EnqueueArgs(queue, cl::NDRange(4, 2, 3), cl::NDRange(16, 12, 8), cl::NullRange), dl,
          nx, ny);
    cl::copy(queue, dl, labels.begin(), labels.end());
    dump("labels", labels);

    cl::KernelFunctor<cl::Buffer, int, int> groups(program, "groups");
    groups(cl::EnqueueArgs(queue, cl::NDRange(nx, ny, nz), cl::NDRange(4, 4, 2)), dl, nx, ny);
    cl::copy(queue, dl, labels.begin(), labels.end());
    dump("groups", labels);
  });
}

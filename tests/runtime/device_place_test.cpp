// Where a device runs (device_place.h), from the strings drivers report: a
// PoCL-Remote device is remote whatever type it mirrors (issue 26).
#include "device_place.h"

#include <gtest/gtest.h>

using namespace libsplit;

namespace {
// CL_DEVICE_VERSION as seen here (PoCL 6.0 built by scripts/build-pocl-remote.sh,
// Debian's PoCL 3.1, NVIDIA 5xx), and the remote driver's form for a GPU server.
constexpr const char* kPoclCpu = "OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-znver4";
constexpr const char* kRemoteCpu =
    "OpenCL 3.0 PoCL HSTR: cpu-x86_64-pc-linux-gnu-znver4 HSTR: pocl-remote: cpu-znver4-AMD EPYC";
constexpr const char* kRemoteGpu = "OpenCL 3.0 CUDA HSTR: pocl-remote: NVIDIA H100 80GB HBM3";
constexpr const char* kNvidia = "OpenCL 3.0 CUDA";
}  // namespace

TEST(DevicePlace, LocalCpuDevicesRunOnTheHostsCores) {
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_CPU, kPoclCpu), DevicePlace::host_cores);
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_CPU, "OpenCL 1.2 pthread"), DevicePlace::host_cores);
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT, ""), DevicePlace::host_cores);
}

TEST(DevicePlace, PoclRemoteDevicesAreRemoteWhateverTheirType) {
  EXPECT_TRUE(is_pocl_remote(kRemoteCpu));
  EXPECT_TRUE(is_pocl_remote(kRemoteGpu));
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_CPU, kRemoteCpu), DevicePlace::remote);
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_GPU, kRemoteGpu), DevicePlace::remote);
  EXPECT_STREQ(place_name(DevicePlace::remote), "remote");
}

TEST(DevicePlace, GpusAndAcceleratorsAreTheirOwnHardware) {
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_GPU, kNvidia), DevicePlace::own_hardware);
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_ACCELERATOR, "OpenCL 1.2"), DevicePlace::own_hardware);
  // Only the driver's marker counts, not a device merely named "remote".
  EXPECT_FALSE(is_pocl_remote("OpenCL 3.0 PoCL HSTR: remote-lab-cpu"));
  EXPECT_EQ(device_place(CL_DEVICE_TYPE_CPU, "OpenCL 3.0 pocl-remote"), DevicePlace::host_cores);
}

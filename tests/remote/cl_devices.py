#!/usr/bin/env python3
"""Lists the OpenCL platforms and devices the ICD loader gives this process (a tiny clinfo
through ctypes, no pyopencl): one line per device, "<platform> | <device> | <version>"."""
import ctypes
import sys

CL_PLATFORM_NAME = 0x0902
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_NAME = 0x102B
CL_DEVICE_VERSION = 0x102F


def info(fn, obj, param):
    size = ctypes.c_size_t()
    if fn(obj, param, 0, None, ctypes.byref(size)) != 0:
        return "?"
    buf = ctypes.create_string_buffer(size.value)
    fn(obj, param, size, buf, None)
    return buf.value.decode(errors="replace")


def main():
    cl = ctypes.CDLL("libOpenCL.so.1")
    cl.clGetPlatformIDs.argtypes = [ctypes.c_uint, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint)]
    cl.clGetDeviceIDs.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_uint, ctypes.c_void_p,
                                  ctypes.POINTER(ctypes.c_uint)]
    for fn in (cl.clGetPlatformInfo, cl.clGetDeviceInfo):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p,
                       ctypes.POINTER(ctypes.c_size_t)]
    n = ctypes.c_uint()
    if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) != 0 or n.value == 0:
        print("no OpenCL platform")
        return 1
    platforms = (ctypes.c_void_p * n.value)()
    cl.clGetPlatformIDs(n.value, platforms, None)
    count = 0
    for p in platforms:
        pname = info(cl.clGetPlatformInfo, p, CL_PLATFORM_NAME)
        nd = ctypes.c_uint()
        if cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, None, ctypes.byref(nd)) != 0:
            continue
        devices = (ctypes.c_void_p * nd.value)()
        cl.clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd.value, devices, None)
        for d in devices:
            print(f"{pname} | {info(cl.clGetDeviceInfo, d, CL_DEVICE_NAME)} | "
                  f"{info(cl.clGetDeviceInfo, d, CL_DEVICE_VERSION)}")
            count += 1
    return 0 if count else 1


if __name__ == "__main__":
    sys.exit(main())

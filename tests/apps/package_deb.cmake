# Makes the Debian package from the build tree (cpack -G DEB), checks its
# control fields and files, and unpacks it into WORKDIR/root with dpkg-deb -x
# (a throwaway root: the system's dpkg database is not touched). The apps
# driver apps_package_test then runs apps under WORKDIR/root/usr/bin/libsplit-run.
#   cmake -DCPACK=cpack -DCONFIG=<build>/CPackConfig.cmake -DWORKDIR=DIR
#         -DBIN_DIR=bin -DSHIM_DIR=lib/libsplit -DTOOL_DIR=libexec/libsplit
#         -DDATA_DIR=share/libsplit -DDOC_DIR=share/doc/libsplit -P package_deb.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var CPACK CONFIG WORKDIR BIN_DIR SHIM_DIR TOOL_DIR DATA_DIR DOC_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_deb.cmake: -D${var}=... is missing")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
run("cpack" ${CPACK} -G DEB --config ${CONFIG} -B ${WORKDIR}/out)
file(GLOB debs ${WORKDIR}/out/*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one .deb in ${WORKDIR}/out, found ${count}: ${debs}\n${output}")
endif()
file(SIZE ${debs} size)
message(STATUS "package: ${debs} (${size} bytes)")

# Depends: the runtime libraries of the binaries (from dpkg-shlibdeps) and
# Clang's resource headers, which libsplit-cc reads at run time.
run("dpkg-deb -f" dpkg-deb -f ${debs} Depends)
string(STRIP "${output}" depends)
message(STATUS "Depends: ${depends}")
foreach(pkg libc6 libstdc\\+\\+6 libllvm16 libclang-cpp16 ocl-icd-libopencl1 libclang-common-16-dev)
  if(NOT depends MATCHES "(^|, )${pkg}( |,|$)")
    message(FATAL_ERROR "Depends lacks ${pkg}: ${depends}")
  endif()
endforeach()

run("dpkg-deb -x" dpkg-deb -x ${debs} ${WORKDIR}/root)
set(usr ${WORKDIR}/root/usr)
foreach(file ${BIN_DIR}/libsplit-run ${BIN_DIR}/libsplit-info ${BIN_DIR}/libsplit-sim
             ${SHIM_DIR}/libsplit.so ${TOOL_DIR}/libsplit-cc ${DATA_DIR}/plot_trace.py
             ${DATA_DIR}/show_convergence.py ${DOC_DIR}/README.md ${DOC_DIR}/libsplit/README.md)
  if(NOT EXISTS ${usr}/${file})
    message(FATAL_ERROR "the package lacks usr/${file}")
  endif()
endforeach()

# The installed binaries load without the build tree's RPATH, and run.
foreach(binary ${BIN_DIR}/libsplit-run ${BIN_DIR}/libsplit-info ${SHIM_DIR}/libsplit.so
               ${TOOL_DIR}/libsplit-cc)
  run("ldd" ldd ${usr}/${binary})
  if(output MATCHES "not found")
    message(FATAL_ERROR "usr/${binary} has unresolved libraries:\n${output}")
  endif()
endforeach()
run("libsplit-cc --help" ${usr}/${TOOL_DIR}/libsplit-cc --help)
run("libsplit-info --controls" ${usr}/${BIN_DIR}/libsplit-info --controls)

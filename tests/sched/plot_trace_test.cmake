# Simulate a trace, plot it, and check that every PNG exists and is not empty.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${SIM} --scheduler broyden --model hetero3 --launches 8
                        --trace ${WORKDIR}/trace.csv
                RESULT_VARIABLE sim_result OUTPUT_QUIET)
if(NOT sim_result EQUAL 0)
  message(FATAL_ERROR "libsplit-sim failed: ${sim_result}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env MPLBACKEND=Agg
                        ${PYTHON} ${SCRIPT} ${WORKDIR}/trace.csv ${WORKDIR}/png
                RESULT_VARIABLE plot_result)
if(NOT plot_result EQUAL 0)
  message(FATAL_ERROR "plot_trace.py failed: ${plot_result}")
endif()
foreach(name subkernel_times speedup granularity)
  set(png ${WORKDIR}/png/simulated_kernel_${name}.png)
  if(NOT EXISTS ${png})
    message(FATAL_ERROR "missing ${png}")
  endif()
  file(SIZE ${png} size)
  if(size LESS 1000)
    message(FATAL_ERROR "${png} is only ${size} bytes")
  endif()
endforeach()

# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk_default_cuda_architectures(<nvcc> <out_var>)
#
# The default CMAKE_CUDA_ARCHITECTURES: machine code for sm_80, 86, 89, 90 and 120 and PTX for the
# newest of them, e.g. "80-real;86-real;89-real;90-real;120-real;120-virtual" with CUDA 12.8 and
# later. Architectures this nvcc does not list (`nvcc --list-gpu-arch`, CUDA 11.0 and later) are
# left out, so an older toolkit builds what it can (CUDA 12.4: up to sm_90, PTX for compute_90).
function(cuzk_default_cuda_architectures nvcc out_var)
  set(wanted 80 86 89 90 120)
  execute_process(COMMAND "${nvcc}" --list-gpu-arch
                  OUTPUT_VARIABLE listed RESULT_VARIABLE rc ERROR_QUIET)
  set(archs "")
  set(newest "")
  foreach(a IN LISTS wanted)
    # Where nvcc cannot list its architectures, keep them all and let it say which it lacks.
    if(rc EQUAL 0 AND NOT listed MATCHES "(^|\n)compute_${a}(\n|$)")
      message(STATUS "cuzk: this nvcc does not know sm_${a}; it is left out of the CUDA architectures")
      continue()
    endif()
    list(APPEND archs "${a}-real")
    set(newest "${a}")
  endforeach()
  if(newest STREQUAL "")
    message(FATAL_ERROR "cuzk: ${nvcc} knows none of sm_80, 86, 89, 90, 120: set CMAKE_CUDA_ARCHITECTURES")
  endif()
  list(APPEND archs "${newest}-virtual")
  set(${out_var} "${archs}" PARENT_SCOPE)
endfunction()

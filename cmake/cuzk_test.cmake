# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk_test(NAME name SOURCES ... LIBS ... LABELS ...)
#
# One GoogleTest executable per layer; each TEST becomes its own CTest entry carrying the labels
# (unit, interop, gpu, slow), so `ctest -L unit` or `ctest -LE gpu` select by kind.
function(cuzk_test)
  if(NOT CUZK_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} cuzk_warnings GTest::gtest_main)
  target_compile_definitions(${T_NAME} PRIVATE CUZK_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  gtest_discover_tests(${T_NAME} PROPERTIES LABELS "${T_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()

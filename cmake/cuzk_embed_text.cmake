# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk_embed_text(NAME SOURCE HEADER): HEADER (a path under the build tree) is made at build time
# from SOURCE (a file beside the calling CMakeLists.txt) by cmake/embed_text.cmake, one string
# constant NAME, so that a text the binary carries (the status page, the witness glue) stays
# editable as itself. Add HEADER to the target's sources.
function(cuzk_embed_text NAME SOURCE HEADER)
  add_custom_command(
    OUTPUT ${HEADER}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${CMAKE_CURRENT_SOURCE_DIR}/${SOURCE} -DOUTPUT=${HEADER} -DNAME=${NAME}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    DEPENDS ${SOURCE} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    COMMENT "embedding ${SOURCE}")
endfunction()

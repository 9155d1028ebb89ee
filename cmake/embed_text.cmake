# SPDX-License-Identifier: MIT OR Apache-2.0
# Turns a text file into a C++ header with one string constant, so that a file served by the
# binary (the status page) stays editable as itself. Run as a script at build time:
#   cmake -DINPUT=page.html -DOUTPUT=page.hpp -DNAME=status_page_html -P embed_text.cmake
# The text goes into a raw string literal; a file that contains the delimiter is refused.
file(READ "${INPUT}" text)
set(delim "cuzk_embed")
string(FIND "${text}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains )${delim}\", which would end the raw string literal")
endif()
get_filename_component(source_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${source_name} by cmake/embed_text.cmake: edit that file, not this one.\n"
  "#pragma once\n\n#include <string_view>\n\n"
  "inline constexpr std::string_view ${NAME} = R\"${delim}(${text})${delim}\";\n")
# Rewritten only when it changed, so that an unchanged page recompiles nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")

// SPDX-License-Identifier: MIT OR Apache-2.0
// The log's one line per event: what a client sent (a refused witness path with a newline and a
// forged line after it) stays inside its own line.
#include "service/logging.hpp"

#include <gtest/gtest.h>

namespace cuzk::service {
namespace {

TEST(logging, control_bytes_are_written_as_escapes_and_text_as_it_is) {
  EXPECT_EQ(as_one_line("engine: job queued id=1 circuit=poseidon"), "engine: job queued id=1 circuit=poseidon");
  const std::string forged =
      "witness path \"/x\n2026-12-08T00:00:00.000 info engine: job ended id=1 state=done\": refused";
  const std::string line = as_one_line(forged);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line, "witness path \"/x\\x0a2026-12-08T00:00:00.000 info engine: job ended id=1 state=done\": refused");
  EXPECT_EQ(as_one_line(std::string("\t\r\x01\x1f\x7f", 5)), "\\x09\\x0d\\x01\\x1f\\x7f");
  EXPECT_EQ(as_one_line(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(as_one_line("caf\xc3\xa9 \xe2\x80\xae"), "caf\xc3\xa9 \xe2\x80\xae");  // UTF-8 letters as they are
}

}  // namespace
}  // namespace cuzk::service

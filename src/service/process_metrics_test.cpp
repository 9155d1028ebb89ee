// SPDX-License-Identifier: MIT OR Apache-2.0
// The process's own /metrics lines: /proc parsed (a command name with spaces and parentheses
// included), this process read live with plausible numbers, and the whole /metrics document (the
// engine's families, cuzk_build_info, process_*) in the Prometheus text format: every sample's
// family declared once with HELP and TYPE before its samples, names and values well formed.
#include "service/process_metrics.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "base/version.hpp"
#include "service/status_json.hpp"

namespace cuzk::service {
namespace {

TEST(process_metrics, proc_stat_fields_are_counted_from_the_last_parenthesis) {
  // Fields 14, 15 (utime, stime), 22 (starttime), 23 (vsize) and 24 (rss) of a real line's shape.
  const std::string line =
      "4242 (cuzk (a) b) S 1 4242 4242 0 -1 4194560 3216 0 0 0 150 25 0 0 20 0 9 0 987654 123456789 2048 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";
  const auto f = parse_proc_stat(line);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->utime_ticks, 150u);
  EXPECT_EQ(f->stime_ticks, 25u);
  EXPECT_EQ(f->start_ticks, 987654u);
  EXPECT_EQ(f->vsize_bytes, 123456789u);
  EXPECT_EQ(f->rss_pages, 2048u);
  EXPECT_FALSE(parse_proc_stat("4242 (cuzk) S 1 2 3"));
  EXPECT_FALSE(parse_proc_stat("no parenthesis at all"));
  EXPECT_EQ(parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"), 1700000000u);
  EXPECT_FALSE(parse_boot_time("cpu 1 2 3\n"));
}

TEST(process_metrics, this_process_reads_plausibly) {
  const auto s = read_process_stats();
  ASSERT_TRUE(s) << "/proc is there on Linux";
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(s->start_time_seconds, now + 1);
  EXPECT_GT(s->start_time_seconds, now - 24 * 3600) << "a test process started more than a day ago?";
  EXPECT_GT(s->resident_bytes, 1u << 20);
  EXPECT_GE(s->virtual_bytes, s->resident_bytes);
  EXPECT_GE(s->open_fds, 3u);  // stdin, stdout, stderr
  EXPECT_GE(s->max_fds, s->open_fds);
  EXPECT_GE(s->cpu_seconds, 0.0);
}

TEST(process_metrics, build_info_names_the_version_and_revision) {
  const std::string text = build_info_text();
  EXPECT_NE(text.find("# TYPE cuzk_build_info gauge\n"), std::string::npos);
  EXPECT_NE(text.find(std::string("cuzk_build_info{version=\"") + version() + "\",revision=\"" + revision() +
                      "\"} 1\n"),
            std::string::npos)
      << text;
}

// The text format's rules this exporter relies on (what `promtool check metrics` checks first).
void expect_exposition_format(const std::string& text) {
  const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+)");
  const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))");
  const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? ([-+]?[0-9.eE+-]+|\+Inf|NaN))");
  std::map<std::string, std::string> types;  // family -> type
  std::map<std::string, bool> helped;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, help)) {
      EXPECT_FALSE(helped[m[1]]) << "HELP twice: " << line;
      helped[m[1]] = true;
    } else if (std::regex_match(line, m, type)) {
      EXPECT_FALSE(types.contains(m[1])) << "TYPE twice: " << line;
      types[m[1]] = m[2];
    } else {
      ASSERT_TRUE(std::regex_match(line, m, sample)) << "not a sample line: " << line;
      std::string family = m[1];
      if (!types.contains(family))
        for (const char* suffix : {"_bucket", "_sum", "_count"})
          if (family.size() > std::strlen(suffix) && family.ends_with(suffix) &&
              types.contains(family.substr(0, family.size() - std::strlen(suffix))))
            family = family.substr(0, family.size() - std::strlen(suffix));
      EXPECT_TRUE(types.contains(family)) << "a sample before its TYPE: " << line;
      EXPECT_TRUE(helped[family]) << "a sample without HELP: " << line;
    }
  }
}

TEST(process_metrics, the_whole_metrics_document_keeps_the_text_format) {
  engine::engine_snapshot s;
  s.counters.circuits["poseidon"].counters.submitted = 2;
  s.counters.circuits["poseidon"].phases[0].count = 1;
  const std::string text =
      prometheus_text(s) + build_info_text() + process_metrics_text(read_process_stats());
  expect_exposition_format(text);
  for (const char* family :
       {"process_cpu_seconds_total counter", "process_resident_memory_bytes gauge",
        "process_virtual_memory_bytes gauge", "process_open_fds gauge", "process_max_fds gauge",
        "process_start_time_seconds gauge", "cuzk_build_info gauge"})
    EXPECT_NE(text.find(std::string("# TYPE ") + family + "\n"), std::string::npos) << family;
  EXPECT_EQ(process_metrics_text(std::nullopt), "");
}

}  // namespace
}  // namespace cuzk::service

// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/status_page.hpp"

#include "service/status_page_html.hpp"  // generated from status_page.html

namespace cuzk::service {

std::string_view status_page_html() { return cuzk_status_page_html; }

namespace {

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  return out;
}

}  // namespace

std::string not_found_html(std::string_view path) {
  return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>404 - cuzk</title></head>\n"
         "<body style=\"font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #2b2b2b\">\n"
         "<h1 style=\"font-size: 1.2rem\">Nothing at <code>" +
         html_escape(path) +
         "</code></h1>\n<p>This is the cuzk daemon's HTTP endpoint (read-only; jobs go through gRPC). It serves:</p>\n"
         "<ul>\n"
         "<li><a href=\"/\">/</a> - the status page</li>\n"
         "<li><a href=\"/status\">/status</a> - the same as JSON</li>\n"
         "<li><a href=\"/metrics\">/metrics</a> - Prometheus metrics</li>\n"
         "<li><a href=\"/trace\">/trace</a> - recent jobs as a Chrome trace (chrome://tracing, Perfetto)</li>\n"
         "<li><a href=\"/healthz\">/healthz</a> - 200 ok, or 503 while draining</li>\n"
         "</ul>\n</body></html>\n";
}

}  // namespace cuzk::service

// SPDX-License-Identifier: MIT OR Apache-2.0
// The pages a person reaches with a browser: `/` (status_page.html, embedded at build time), a
// small status page that reads /status every 2 s, and the 404 page, which lists the endpoints
// instead of answering with nothing.
#pragma once

#include <string>
#include <string_view>

namespace cuzk::service {

// The status page: one self-contained HTML file, no external fetches.
std::string_view status_page_html();

// The 404 page for `path`: what is there instead. `path` is escaped.
std::string not_found_html(std::string_view path);

}  // namespace cuzk::service

// SPDX-License-Identifier: MIT OR Apache-2.0
// What this build of cuzk is: the project's version from CMakeLists.txt and, when the source tree
// was a git checkout at configure time, `git describe` of it. A source tarball has no .git, so its
// build reports the version alone. The revision is taken when CMake configures the build, not at
// every compile, so a build folder configured before later commits reports the older revision until
// it is configured again (cmake -S . -B build).
//
// Shown by `cuzk --version`, in /status and `cuzk status` ("version", "revision") and in /metrics
// (cuzk_build_info).
#pragma once

#include <string>

namespace cuzk {

// "0.1.0"
const char* version() noexcept;
// `git describe --tags --always --dirty` at configure time ("v0.1.0-3-g48188a9", "48188a9-dirty"),
// or "" where there was no git checkout.
const char* revision() noexcept;
// "cuzk 0.1.0 (git 48188a9-dirty)", or "cuzk 0.1.0" without a revision.
std::string version_line();

}  // namespace cuzk

// SPDX-License-Identifier: MIT OR Apache-2.0
// The two pieces every file writer in cuzk needs around POSIX calls: a write that finishes, and
// an io_error that carries the system's reason.
//
// write(2) may write fewer bytes than asked (a signal, a full pipe, a quota), so a single call is
// not a complete write; the formats layer's atomic file replacement and the engine's witness spool
// both loop the same way, so the loop lives here once. sys_error reads errno, so call it right
// after the failing call, before anything else can overwrite errno.
//
// Thread safety: both are safe from any thread (errno is per thread).
#pragma once

#include <cstddef>
#include <string>

#include "base/result.hpp"

namespace cuzk {

// io_error "<path>: <what>: <strerror(errno)>".
status sys_error(const std::string& path, const char* what);

// Writes all `size` bytes of `data` to `fd`, retrying on EINTR and on short writes. false (errno
// set by write(2)) on the first other failure.
bool write_all(int fd, const void* data, std::size_t size) noexcept;

}  // namespace cuzk

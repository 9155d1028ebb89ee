// SPDX-License-Identifier: MIT OR Apache-2.0
// Chunks of one loop run on threads started for it, not on thread_pool::global().
//
// For loops over GiBs that run beside a proof (a witness file's read and the check of its values,
// engine/jobs/witness_dirs.cpp, witness.cpp): the global pool runs one parallel_for at a time, so a
// check of seconds there holds the proof's own loops (the GPU prover's witness staging, under the
// device's kernel gate) behind it, and several checks at once queue on each other. Starting a few
// threads costs ~10-100 us, nothing beside a GiB.
//
// Thread safety: a free function; `body` runs on several threads at once, on disjoint chunks.
#pragma once

#include <cstddef>
#include <functional>

namespace cuzk {

// body(begin, end) for the chunks [k * chunk, min(n, (k + 1) * chunk)) of [0, n), on up to
// `threads` threads (the caller one of them; fewer where there are fewer chunks or hardware
// threads, and where the system refuses to start one), each taking the next chunk when it ends
// its last. Returns when every chunk has run. body must not throw. chunk 0 is taken as 1.
void run_chunks_on_own_threads(std::size_t n, std::size_t chunk, unsigned threads,
                               const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace cuzk

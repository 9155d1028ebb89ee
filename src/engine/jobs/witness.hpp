// SPDX-License-Identifier: MIT OR Apache-2.0
// A partition's witness: checked against its key at submit, read into the prover's form at run.
//
// At submit, an inline witness is checked in the request's own bytes (check_inline_witness)
// before it is spooled, and a path's file once read (open_witness, check_witness): the header
// (curve and nVars against the key's header) and every value against r, so a malformed or
// mismatched witness is rejected before it is queued, with the first bad field named. At run time
// read_witness() gives the values (at offset 76 in a .wtns) as 8-byte-aligned integers for the
// MSMs: a client's file, read into memory 4 bytes in, is used where it lies (no second buffer and
// no copy: at 2^25 two fresh GiBs per partition were most of a read's time); a spooled file's
// mapping, and a file whose values lie elsewhere, are copied.
//
// Both open the file through open_witness(): the engine's own spooled file as it is, named
// "inline witness" in messages as at submit (never by its path in the daemon's data directory), a
// client's path only as witness_dirs.hpp allows.
//
// Thread safety: free functions over files; any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/bulk_array.hpp"
#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "engine/jobs/witness_dirs.hpp"
#include "engine/jobs/key_summary.hpp"
#include "formats/wtns.hpp"

namespace cuzk::engine {

// Both scalar fields are 255-bit, so both curves' witness values are bigint<4>; the curve tag
// says which field they belong to.
static_assert(std::is_same_v<bn254::fr::repr, bls12_381::fr::repr>);
struct any_witness {
  formats::curve_id curve = formats::curve_id::bn254;
  bulk_array<bn254::fr::repr> values;  // plain integers < r, w[0] = 1
};

// Where a partition's .wtns is: the engine's spool (its own file), or a path a client sent.
enum class witness_origin : uint8_t { spooled, client_path };

// The largest .wtns a key's witness can be: its header and nVars values, with room for sections a
// writer may add. A client's path past it is refused before it is read.
uint64_t max_witness_bytes(const key_summary& key);

// A .wtns held in memory (a client's file once read), `name` in its messages.
result<formats::wtns> witness_from_bytes(std::vector<uint8_t> bytes, const std::string& name);

// Inline bytes from a request, checked where they lie, before anything is written or copied: the
// size against max_witness_bytes(key) first, then the header against the key (curve and nVars),
// then every value against r. So a 200 MB witness for another circuit costs no spool file, no
// fsync and no second copy; it is refused on its header. `what` names it in messages
// ("partition 2"): invalid_argument (size, header), format_error, out_of_range.
status check_inline_witness(std::span<const uint8_t> bytes, const key_summary& key, const std::string& what);

// A witness file open for reading: the .wtns over the engine's spool file's mapping, or over a
// client's file read into memory of the engine's own (`bytes`, which `wtns` borrows from
// witness_file_lead on: the two move together; the bytes' address does not change when they do).
struct witness_file {
  bulk_array<uint8_t> bytes;
  formats::wtns wtns;
};

// Where in witness_file::bytes a client's file starts: the 76-byte header of every .wtns circom
// and snarkjs write then ends on an 8-byte boundary, and the values after it are aligned.
inline constexpr std::size_t witness_file_lead = 4;

// The .wtns at `path`; a client's path read through `dirs` (refused unless they allow it).
result<witness_file> open_witness(const std::string& path, witness_origin origin, const witness_dirs& dirs,
                                  const key_summary& key);

// `what` names the witness in messages ("partition 2").
// The values of a witness sent inline whose submit passed check_inline_witness() on these very
// bytes: the header is read and matched to the key again (a few bytes), the values are not checked
// against r a second time (a pass over the whole witness, on the proof's path).
result<any_witness> read_checked_inline_witness(std::span<const uint8_t> bytes, const key_summary& key,
                                                const std::string& what);

status check_witness(const formats::wtns& w, const key_summary& key, const std::string& what);
result<any_witness> read_witness(const formats::wtns& w, const key_summary& key);
// As above, and the values in place where the file's bytes hold them aligned (they then move into
// the witness; `file` is left without them).
result<any_witness> read_witness(witness_file&& file, const key_summary& key);

// The host memory one witness of the key holds as read (nVars values): what a batch, a read-ahead
// or a witness computed ahead reserves beyond one proof's working set.
inline uint64_t witness_memory_bytes(const key_summary& key) { return uint64_t{key.n_vars} * sizeof(bn254::fr::repr); }

// `s` with every mention of `path` replaced by `stand_in`. A spooled file (witness_spool.hpp) holds a client's inline
// witness, and its path (under the daemon's data directory) is none of the client's business
// (docs/HARDENING.md, finding 15): errors that reach a client name it as the submit does ("inline witness");
// the daemon's log keeps the path.
status hide_path(const status& s, const std::string& path, const std::string& stand_in);

// "xxh3-128:<32 hex digits>" of a witness's bytes: what tells a retry (the same bytes) from another
// request reusing its request id. Not a cryptographic hash: the request id is the client's own key,
// so only an accidental reuse needs catching, and the value must not change between builds (it is
// stored with the job). It is computed on every inline submit, on the path a client waits on: XXH3
// reads a 128 MiB witness in ~10 ms where the byte-serial FNV-1a used before took ~280 ms.
std::string witness_digest(std::span<const uint8_t> bytes);

// Whether `bytes` are the bytes `stored` is the digest of, in the scheme `stored` names: jobs stored
// before XXH3 carry "fnv1a64:" digests and are still compared as such. An empty `stored` (a job
// stored before digests were kept) matches anything; a scheme not known here matches nothing.
bool witness_digest_matches(const std::string& stored, std::span<const uint8_t> bytes);

}  // namespace cuzk::engine

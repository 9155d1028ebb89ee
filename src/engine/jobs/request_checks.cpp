// SPDX-License-Identifier: MIT OR Apache-2.0
// The checks of a submit request (see request_checks.hpp).
#include "engine/jobs/request_checks.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "base/in_order_async.hpp"
#include "engine/jobs/witness.hpp"

namespace cuzk::engine {

status check_request_id(const std::string& id) {
  if (id.size() > max_request_id_bytes)
    return status(errc::invalid_argument, "request id: expected at most " +
                                              std::to_string(max_request_id_bytes) + " bytes, found " +
                                              std::to_string(id.size()));
  const auto bad = std::find_if(id.begin(), id.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
  if (bad != id.end())
    return status(errc::invalid_argument, "request id: expected no control characters, found byte " +
                                              std::to_string(static_cast<unsigned char>(*bad)) +
                                              " at offset " + std::to_string(bad - id.begin()));
  return status::ok();
}

status check_path_text(const std::string& what, const std::string& path) {
  if (const auto nul = path.find('\0'); nul != std::string::npos)
    return status(errc::invalid_argument,
                  what + ": expected a path without NUL bytes, found one at offset " + std::to_string(nul));
  if (path.size() > max_path_bytes)
    return status(errc::invalid_argument, what + ": expected a path of at most " +
                                              std::to_string(max_path_bytes) + " bytes, found " +
                                              std::to_string(path.size()));
  return status::ok();
}

status check_request_shape(const job_request& req) {
  if (req.partitions.empty())
    return status(errc::invalid_argument, "job: expected at least one partition, found 0");
  CUZK_TRY(check_request_id(req.request_id));
  for (std::size_t k = 0; k < req.partitions.size(); ++k) {
    const std::string what = "partition " + std::to_string(k);
    CUZK_TRY(check_path_text(what, req.partitions[k].path));
    const bool has_bytes = !req.partitions[k].inline_bytes().empty(), has_path = !req.partitions[k].path.empty();
    if (has_bytes == has_path)
      return status(errc::invalid_argument, what + ": expected the .wtns bytes, a path or input JSON, found " +
                                                (has_bytes ? "both bytes and a path" : "none of them"));
  }
  return status::ok();
}

namespace {

// Partition k's witness sent in the request: checked in its bytes, before a byte is written.
status check_inline(const job_request& req, std::size_t k, const key_summary& key, const partition_checks& with) {
  const auto& p = req.partitions[k];
  const std::string what = "partition " + std::to_string(k);
  const auto bytes = p.inline_bytes();
  if (!p.input_json) return check_inline_witness(bytes, key, what);
  if (!with.input_json)
    return status(errc::failed_precondition,
                  what + ": input JSON: circuit " + req.circuit +
                      " has no witness generator: register it with its wasm (one that did not load at "
                      "the daemon's start is named in its log)");
  if (bytes.size() > max_input_json_bytes)
    return status(errc::invalid_argument, what + ": input JSON: expected at most " +
                                              std::to_string(max_input_json_bytes) + " bytes, found " +
                                              std::to_string(bytes.size()));
  return with.input_json({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, what + ": input JSON");
}

// Partition k's file, named by path: read through `dirs` and checked against the key.
status check_path(const job_request& req, std::size_t k, const key_summary& key, const witness_dirs& dirs) {
  const std::string what = "partition " + std::to_string(k);
  auto w = open_witness(req.partitions[k].path, witness_origin::client_path, dirs, key);
  return w ? check_witness(w->wtns, key, what) : w.error().with_context(what);
}

// The check of the witness each of the first `count` partitions names by path (ok for one sent
// inline), read and checked `reads_at_once` at a time before a caller takes the partitions in
// order: each is a read and a check of up to GiBs, and a PoRep job's ten in turn kept its submit
// waiting for seconds. After a refusal, later files are not read: the first refused partition in
// order is the one named.
std::vector<status> path_checks(const job_request& req, std::size_t count, const key_summary& key,
                                const partition_checks& with) {
  const auto by_path = [&](std::size_t k) { return req.partitions[k].inline_bytes().empty(); };
  std::atomic<std::size_t> refused_at{SIZE_MAX};
  return in_order_async<status>(
      count, with.reads_at_once,
      [&](std::size_t k) {
        if (!by_path(k) || k > refused_at.load()) return status::ok();
        status s = check_path(req, k, key, *with.dirs);
        if (!s) {
          std::size_t seen = refused_at.load();
          while (k < seen && !refused_at.compare_exchange_weak(seen, k)) {
          }
        }
        return s;
      },
      [&](std::size_t k) { return !by_path(k); });
}

}  // namespace

status check_witness_paths(const job_request& req, const key_summary& key, const partition_checks& with) {
  for (const status& s : path_checks(req, req.partitions.size(), key, with)) CUZK_TRY(s);
  return status::ok();
}

status check_witness_paths_from_last(const job_request& req, const key_summary& key, const witness_dirs& dirs,
                                     const std::function<bool(std::size_t)>& passed_elsewhere,
                                     const std::function<std::optional<std::size_t>()>& failed_elsewhere) {
  const std::size_t n = req.partitions.size();
  std::vector<status> checked(n);
  std::vector<bool> done(n, false);
  std::size_t refused = n;  // partitions after a refusal need no answer
  std::size_t next = n;     // from the last back
  for (;;) {
    std::size_t k = n;
    if (const auto f = failed_elsewhere(); f && *f < refused && !done[*f]) k = *f;
    while (k == n && next > 0)
      if (--next < refused && !done[next]) k = next;
    if (k == n) break;
    done[k] = true;
    if (!req.partitions[k].inline_bytes().empty() || passed_elsewhere(k)) continue;
    checked[k] = check_path(req, k, key, dirs);
    if (!checked[k]) refused = k;
  }
  for (const status& s : checked) CUZK_TRY(s);
  return status::ok();
}

status check_partitions(const job_request& req, const key_summary& key, const partition_checks& with,
                        request_fault& fault) {
  fault = request_fault::malformed;
  CUZK_TRY(check_request_shape(req));
  fault = request_fault::witness;
  const std::size_t n = req.partitions.size();
  const auto paths = with.paths ? path_checks(req, n, key, with) : std::vector<status>(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (req.partitions[k].inline_bytes().empty()) {
      CUZK_TRY(paths[k]);
      continue;
    }
    status s = check_inline(req, k, key, with);
    if (s.is_ok()) continue;
    // With the paths left for later, a refused path before k is still the one named, as when all
    // are checked here: the refusal is the request's first, whichever kind it is.
    if (!with.paths)
      for (const status& earlier : path_checks(req, k, key, with)) CUZK_TRY(earlier);
    return s;
  }
  fault = request_fault::none;
  return status::ok();
}

}  // namespace cuzk::engine

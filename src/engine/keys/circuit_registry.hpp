// SPDX-License-Identifier: MIT OR Apache-2.0
// The circuits a daemon proves: an id, the zkey on the daemon's disk, a default priority, the
// key's header (read once at registration, see key_summary.hpp) and, for a circuit registered with
// its witness generator (circom's .wasm), that generator compiled and loaded (input_witness.hpp).
//
// Ids are what callers name in a submit; they are restricted to [A-Za-z0-9._:-], 1..128
// characters, so they are safe in file names, metric labels and log fields.
//
// Thread safety: any thread; one mutex.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/input_witness.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/key_summary.hpp"

namespace cuzk::engine {

struct circuit_info {
  std::string id;
  std::string zkey_path;
  priority default_priority = priority::normal;
  key_summary key;
  std::string wasm_path;    // empty: the circuit takes witnesses only, not input JSON
  generator_ptr generator;  // set with wasm_path
};

class circuit_registry {
 public:
  // invalid_argument naming the id when it has characters outside the allowed set.
  static status check_id(const std::string& id);

  void put(circuit_info c);
  void erase(const std::string& id);
  std::optional<circuit_info> find(const std::string& id) const;
  std::vector<circuit_info> list() const;

 private:
  mutable std::mutex m_;
  std::map<std::string, circuit_info> circuits_;
};

}  // namespace cuzk::engine

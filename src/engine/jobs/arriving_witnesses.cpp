// SPDX-License-Identifier: MIT OR Apache-2.0
// The witnesses of a job that proves while its submit still stores or checks them (see
// arriving_witnesses.hpp).
#include "engine/jobs/arriving_witnesses.hpp"

#include <string>

namespace cuzk::engine {

std::optional<result<any_witness>> arriving_witnesses::read(std::size_t q, const key_summary& key) {
  std::shared_lock lk(bytes_m_);
  if (q >= bytes_.size() || bytes_[q].empty()) return std::nullopt;
  return read_checked_inline_witness(bytes_[q], key, "partition " + std::to_string(q));
}

}  // namespace cuzk::engine

// SPDX-License-Identifier: MIT OR Apache-2.0
// The circuit registry (see circuit_registry.hpp).
#include "engine/keys/circuit_registry.hpp"

namespace cuzk::engine {

status circuit_registry::check_id(const std::string& id) {
  if (id.empty() || id.size() > 128)
    return status(errc::invalid_argument,
                  "circuit id: expected 1 to 128 characters, found " + std::to_string(id.size()));
  for (char ch : id) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '.' || ch == '_' || ch == ':' || ch == '-';
    if (!ok)
      return status(errc::invalid_argument,
                    "circuit id \"" + id + "\": expected only letters, digits and . _ : -");
  }
  return status::ok();
}

void circuit_registry::put(circuit_info c) {
  std::lock_guard lk(m_);
  const std::string id = c.id;
  circuits_[id] = std::move(c);
}

void circuit_registry::erase(const std::string& id) {
  std::lock_guard lk(m_);
  circuits_.erase(id);
}

std::optional<circuit_info> circuit_registry::find(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = circuits_.find(id);
  if (it == circuits_.end()) return std::nullopt;
  return it->second;
}

std::vector<circuit_info> circuit_registry::list() const {
  std::lock_guard lk(m_);
  std::vector<circuit_info> out;
  for (const auto& [id, c] : circuits_) out.push_back(c);
  return out;
}

}  // namespace cuzk::engine

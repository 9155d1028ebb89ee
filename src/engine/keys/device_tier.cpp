// SPDX-License-Identifier: MIT OR Apache-2.0
// Slot names for the device tier (see device_tier.hpp).
#include "engine/keys/device_tier.hpp"

#include <cstdio>
#include <map>

namespace cuzk::engine {

std::vector<device_slot> make_device_slots(const std::vector<int>& ordinals, uint64_t budget) {
  std::vector<device_slot> out;
  std::map<int, int> seen;
  for (int o : ordinals) {
    const int k = seen[o]++;
    char name[48];
    if (k == 0)
      std::snprintf(name, sizeof name, "device:%d", o);
    else
      std::snprintf(name, sizeof name, "device:%d#%d", o, k);
    out.push_back({o, budget, name});
  }
  return out;
}

}  // namespace cuzk::engine

// SPDX-License-Identifier: MIT OR Apache-2.0
// wasm2c's C cut into translation units; see c_units.hpp.
#include "witness/c_units.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

namespace cuzk::witness {

namespace {

constexpr std::string_view instance_param = "(Z_circuit_instance_t*";

// The name of a function of the circuit (`w2c_...`) that `line` declares (ending ");") or begins
// to define (ending ") {"), with wasm2c's `static <type> w2c_<name>(Z_circuit_instance_t*` head;
// empty otherwise.
std::string_view function_named(std::string_view line, std::string_view ending) {
  if (!line.starts_with("static ") || !line.ends_with(ending)) return {};
  std::string_view rest = line.substr(7);
  bool typed = false;
  for (std::string_view type : {"u32 ", "u64 ", "f32 ", "f64 ", "void "}) {
    if (rest.starts_with(type)) {
      rest.remove_prefix(type.size());
      typed = true;
      break;
    }
  }
  if (!typed || !rest.starts_with("w2c_")) return {};
  const std::size_t open = rest.find('(');
  if (open == std::string_view::npos || rest.substr(open, instance_param.size()) != instance_param) return {};
  return rest.substr(0, open);
}

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether every `w2c_name(` that `body` calls is among `declared`.
bool calls_only_declared(std::string_view body, const std::unordered_set<std::string_view>& declared) {
  for (std::size_t at = body.find("w2c_"); at != std::string_view::npos; at = body.find("w2c_", at + 1)) {
    if (at > 0 && identifier_char(body[at - 1])) continue;
    std::size_t end = at + 4;
    while (end < body.size() && identifier_char(body[end])) ++end;
    if (end < body.size() && body[end] == '(' && !declared.contains(body.substr(at, end - at))) return false;
  }
  return true;
}

struct definition {
  std::size_t first_line, last_line;  // the head and the closing "}"
  std::size_t bytes;
  bool movable;
};

}  // namespace

std::vector<std::string> split_into_units(const std::string& c, unsigned units, std::size_t min_unit_bytes) {
  units = static_cast<unsigned>(std::min<std::size_t>(units, c.size() / std::max<std::size_t>(min_unit_bytes, 1)));
  if (units < 2) return {c};

  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < c.size();) {
    const std::size_t nl = c.find('\n', at);
    const std::size_t end = nl == std::string::npos ? c.size() : nl;
    lines.emplace_back(c.data() + at, end - at);
    at = end + 1;
  }
  const bool ends_with_newline = !c.empty() && c.back() == '\n';

  // The module state ends the prelude; func_types is shared by every unit's indirect calls.
  std::size_t state = lines.size(), func_types = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (state == lines.size() && lines[i].starts_with("static bool s_module_initialized")) state = i;
    if (lines[i].starts_with("static u32 func_types[") && lines[i].ends_with("];")) {
      func_types = i;
      break;
    }
  }
  if (state >= func_types || func_types == lines.size()) return {c};

  std::unordered_set<std::string_view> declared;
  std::vector<std::size_t> declarations;
  std::vector<definition> definitions;
  for (std::size_t i = func_types; i < lines.size(); ++i) {
    if (std::string_view name = function_named(lines[i], ");"); !name.empty()) {
      declared.insert(name);
      declarations.push_back(i);
      continue;
    }
    if (function_named(lines[i], ") {").empty()) continue;
    std::size_t last = i + 1;
    while (last < lines.size() && lines[last] != "}") ++last;
    if (last == lines.size()) return {c};
    const std::string_view body(lines[i].data(), lines[last].data() + 1 - lines[i].data());
    definitions.push_back({i, last, body.size(), false});
    i = last;
  }
  // What only the first unit has: the data and element segments (static there) and the stubs'
  // bodies (defined after the exports).
  std::size_t movable_bytes = 0;
  for (definition& d : definitions) {
    const std::string_view body(lines[d.first_line].data(), d.bytes);
    d.movable = declared.contains(function_named(lines[d.first_line], ") {")) &&
                body.find("data_segment_") == std::string_view::npos && body.find("elem_segment_") == std::string_view::npos &&
                body.find("_body(") == std::string_view::npos && calls_only_declared(body, declared);
    if (d.movable) movable_bytes += d.bytes;
  }

  // Runs of movable definitions, in the file's order, filling each unit up to an equal share.
  const std::size_t share = c.size() / units;
  std::vector<unsigned> unit_of(definitions.size(), 0);
  std::vector<std::size_t> load(units, 0);
  load[0] = c.size() - movable_bytes;
  unsigned u = 0;
  for (std::size_t k = 0; k < definitions.size(); ++k) {
    if (!definitions[k].movable) continue;
    if (load[u] > 0 && load[u] + definitions[k].bytes / 2 > share && u + 1 < units) ++u;
    unit_of[k] = u;
    load[u] += definitions[k].bytes;
  }
  if (u == 0) return {c};

  // Every declared function is called across units: none stays static.
  const auto unstatic = [&](std::size_t i) {
    const std::string_view l = lines[i];
    const bool function = !function_named(l, ");").empty() || declared.contains(function_named(l, ") {"));
    return function ? l.substr(7) : l;
  };
  std::vector<std::string> out(u + 1);
  std::vector<unsigned> moved_to(lines.size(), 0);
  for (std::size_t k = 0; k < definitions.size(); ++k)
    for (std::size_t i = definitions[k].first_line; i <= definitions[k].last_line; ++i) moved_to[i] = unit_of[k];
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (moved_to[i] != 0) continue;
    std::string_view l = i == func_types ? lines[i].substr(7) : unstatic(i);
    out[0].append(l);
    if (i + 1 < lines.size() || ends_with_newline) out[0] += '\n';
  }
  for (unsigned n = 1; n <= u; ++n) {
    std::string& t = out[n];
    t.reserve(load[n] + lines[state].data() - c.data() + declarations.size() * 80);
    t.append(c.data(), static_cast<std::size_t>(lines[state].data() - c.data()));
    t.append("extern ").append(lines[func_types].substr(7)).append("\n");
    for (std::size_t i : declarations) t.append(unstatic(i)).append("\n");
  }
  for (std::size_t k = 0; k < definitions.size(); ++k) {
    if (unit_of[k] == 0) continue;
    std::string& t = out[unit_of[k]];
    for (std::size_t i = definitions[k].first_line; i <= definitions[k].last_line; ++i) t.append(unstatic(i)).append("\n");
  }
  return out;
}

}  // namespace cuzk::witness

// SPDX-License-Identifier: MIT OR Apache-2.0
// Reading input.json by circom's rules; see circom_input.hpp.
#include "witness/circom_input.hpp"

#include <cmath>

#include "formats/snarkjs_json.hpp"
#include "witness/fnv1a.hpp"

namespace cuzk::witness {

namespace {

using formats::snarkjs_json::ojson;

// The largest integer JavaScript's numbers hold exactly: a JSON number past it reaches snarkjs
// already rounded.
constexpr double js_max_safe_integer = 9007199254740991.0;

// Arithmetic modulo the circuit's prime on n32 little-endian 32-bit words: enough to reduce a
// decimal or hex string of any length digit by digit, keeping the value below p throughout.
class residue {
 public:
  explicit residue(std::span<const uint32_t> prime) : p_(prime), v_(prime.size(), 0) {}

  // v = (v * radix + digit) mod p, for radix <= 16 (so v * radix + digit < 17 p, a few subtractions).
  void push_digit(uint32_t radix, uint32_t digit) {
    uint64_t carry = digit;
    for (auto& w : v_) {
      const uint64_t x = uint64_t{w} * radix + carry;
      w = static_cast<uint32_t>(x);
      carry = x >> 32;
    }
    auto top = static_cast<uint32_t>(carry);
    while (top != 0 || !below_p()) top -= subtract_p();
  }

  // v = p - v (v != 0), the residue of a negative value.
  void negate() {
    bool zero = true;
    for (const auto w : v_) zero = zero && w == 0;
    if (zero) return;
    int64_t borrow = 0;
    for (std::size_t i = 0; i < v_.size(); ++i) {
      const int64_t x = int64_t{p_[i]} - v_[i] - borrow;
      v_[i] = static_cast<uint32_t>(x);
      borrow = x < 0;
    }
  }

  const std::vector<uint32_t>& words() const noexcept { return v_; }

 private:
  bool below_p() const {
    for (std::size_t i = v_.size(); i-- > 0;)
      if (v_[i] != p_[i]) return v_[i] < p_[i];
    return false;
  }
  // v -= p over the words; returns the borrow out of the top word.
  uint32_t subtract_p() {
    int64_t borrow = 0;
    for (std::size_t i = 0; i < v_.size(); ++i) {
      const int64_t x = int64_t{v_[i]} - p_[i] - borrow;
      v_[i] = static_cast<uint32_t>(x);
      borrow = x < 0;
    }
    return static_cast<uint32_t>(borrow);
  }

  std::span<const uint32_t> p_;
  std::vector<uint32_t> v_;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One value: its residue words appended to `out`, or a message saying what was wrong with it
// (the caller adds the file and the signal).
status append_value(const ojson& v, std::span<const uint32_t> prime, std::vector<uint32_t>& out) {
  residue r(prime);
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    std::string_view digits = s;
    const bool negative = !digits.empty() && digits.front() == '-';
    if (negative) digits.remove_prefix(1);
    const bool hex = !negative && digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    if (hex) digits.remove_prefix(2);
    bool ok = !digits.empty();
    for (const char c : digits) {
      const int d = hex ? hex_digit(c) : (c >= '0' && c <= '9' ? c - '0' : -1);
      if (d < 0) {
        ok = false;
        break;
      }
      r.push_digit(hex ? 16 : 10, static_cast<uint32_t>(d));
    }
    if (!ok)
      return {errc::parse_error, "expected a decimal string (optionally negative) or a 0x-prefixed hex string, found " +
                                     v.dump()};
    if (negative) r.negate();
  } else if (v.is_number_integer() || v.is_number_float()) {
    const double d = v.get<double>();
    if (v.is_number_float() && (!std::isfinite(d) || std::floor(d) != d))
      return {errc::parse_error, "expected an integer, found " + v.dump()};
    if (std::fabs(d) > js_max_safe_integer)
      return {errc::out_of_range, "the number " + v.dump() +
                                      " is beyond 2^53, where JavaScript (and so snarkjs) rounds it: write it as a "
                                      "decimal string"};
    auto magnitude = static_cast<uint64_t>(std::fabs(d));
    // Most significant decimal digit first.
    char buf[24];
    int n = 0;
    do {
      buf[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    while (n-- > 0) r.push_digit(10, static_cast<uint32_t>(buf[n] - '0'));
    if (d < 0) r.negate();
  } else {
    std::string found = v.is_null() ? "null" : v.type_name();
    if (v.is_boolean()) found.append(" ").append(v.dump());
    return {errc::parse_error, "expected a field element (a decimal string, a 0x-hex string or an integer), found " + found};
  }
  out.insert(out.end(), r.words().begin(), r.words().end());
  return status::ok();
}

// Whether a leaf is a bus (a JSON object, or null, which JavaScript's typeof also calls "object").
bool is_bus(const ojson& v) { return v.is_object() || v.is_null(); }

void flatten(const ojson& v, const std::string& path, std::vector<std::pair<std::string, const ojson*>>& leaves) {
  if (!v.is_array()) {
    leaves.emplace_back(path, &v);
    return;
  }
  for (std::size_t i = 0; i < v.size(); ++i) flatten(v[i], path + "[" + std::to_string(i) + "]", leaves);
}

class reader {
 public:
  reader(const std::string& source, std::span<const uint32_t> prime) : source_(source), prime_(prime) {}

  // circom's qualify_input: objects name bus members, arrays of objects arrays of buses.
  status qualify(const std::string& prefix, const ojson& v) {
    if (v.is_array()) {
      std::vector<std::pair<std::string, const ojson*>> leaves;
      flatten(v, prefix, leaves);
      if (leaves.empty()) return add(prefix, leaves);
      // circom's own witness_calculator.js wants one JavaScript type per array; snarkjs (which
      // turns decimal strings into BigInts first) takes strings and numbers mixed, and so does
      // this. An array is either values or buses, never both.
      const bool buses = is_bus(*leaves.front().second);
      for (const auto& [path, leaf] : leaves) {
        if (is_bus(*leaf) != buses) {
          const auto& [first_path, first] = leaves.front();
          return {errc::parse_error, source_ + ": " + prefix + ": mixes values and objects (" + first_path + " is " +
                                         (buses ? "an object" : "a value") + ", " + path + " " +
                                         (buses ? "a value" : "an object") + ")"};
        }
      }
      if (!buses) return add(prefix, leaves);
      for (const auto& [path, leaf] : leaves) CUZK_TRY(qualify(path, *leaf));
      return status::ok();
    }
    if (v.is_object()) {
      for (const auto& [key, member] : v.items()) CUZK_TRY(qualify(prefix.empty() ? key : prefix + "." + key, member));
      return status::ok();
    }
    return add(prefix, {{prefix, &v}});
  }

  std::vector<input_signal> take() { return std::move(signals_); }

 private:
  status add(const std::string& name, const std::vector<std::pair<std::string, const ojson*>>& leaves) {
    input_signal s;
    s.name = name;
    s.name_hash = fnv1a_64(name);
    s.count = leaves.size();
    s.words.reserve(leaves.size() * prime_.size());
    for (const auto& [path, leaf] : leaves) {
      if (status ok = append_value(*leaf, prime_, s.words); !ok) return ok.with_context(source_ + ": " + path);
    }
    signals_.push_back(std::move(s));
    return status::ok();
  }

  const std::string& source_;
  std::span<const uint32_t> prime_;
  std::vector<input_signal> signals_;
};

}  // namespace

result<std::vector<input_signal>> parse_circom_input(std::string_view json_text, const std::string& source,
                                                     std::span<const uint32_t> prime) {
  auto doc = formats::snarkjs_json::parse(json_text, source);
  if (!doc) return doc.error();
  if (!doc->is_object())
    return status(errc::parse_error, source + ": expected a JSON object of input signals, found " +
                                         std::string(doc->type_name()));
  reader r(source, prime);
  CUZK_TRY(r.qualify("", *doc));
  return r.take();
}

}  // namespace cuzk::witness

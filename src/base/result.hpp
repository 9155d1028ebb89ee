// SPDX-License-Identifier: MIT OR Apache-2.0
// Errors as values.
//
// Every fallible operation in cuzk returns a `status` or a `result<T>`: a code plus a message
// that names what was being read, which field, what was expected and what was found. Nothing
// throws across a layer or across the CUDA boundary; only `main` and the network adapters catch
// what the standard library throws and turn it into a status.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace cuzk {

// The values are persisted (the job store keeps each failed job's code): append new codes at the
// end, never renumber, and move errc_count along.
enum class errc {
  ok = 0,
  invalid_argument,  // a caller passed something that can never be valid
  parse_error,       // text or bytes that do not follow the expected syntax
  out_of_range,      // a value that parsed but lies outside its domain (e.g. >= p)
  not_on_curve,
  not_in_subgroup,
  verification_failed,  // a well-formed proof that does not satisfy the verification equation
  format_error,         // a file whose structure is wrong (magic, sizes, sections)
  io_error,
  cuda_error,
  unsupported,
  internal,
  not_found,            // an id (circuit, job, key) that is not known
  already_exists,       // an id already taken by something else (e.g. a request id of another circuit)
  cancelled,            // the caller asked to stop
  deadline_exceeded,    // a deadline passed before the work could be done
  resource_exhausted,   // a budget (memory tier, queue) cannot take it
  unavailable,          // not now, try again later (e.g. the daemon is draining)
  failed_precondition,  // valid, but not in the current state (e.g. evict a key in use)
};
// One past the last code: every code is errc(0) .. errc(errc_count - 1).
inline constexpr int errc_count = static_cast<int>(errc::failed_precondition) + 1;

const char* errc_name(errc code) noexcept;  // "not_found"; "unknown" for a value past the last code
// The inverse of errc_name; nullopt for a name no code has.
std::optional<errc> errc_from_name(std::string_view name) noexcept;

class [[nodiscard]] status {
 public:
  status() = default;
  status(errc code, std::string message) : code_(code), message_(std::move(message)) {}

  static status ok() { return {}; }

  bool is_ok() const noexcept { return code_ == errc::ok; }
  explicit operator bool() const noexcept { return is_ok(); }
  errc code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  // "format_error: proof.json: pi_a[0]: expected a decimal string < q, found ..."
  std::string to_string() const;

  // Adds context in front of the message, e.g. the file name a lower layer did not know.
  status with_context(const std::string& context) const {
    return {code_, context + ": " + message_};
  }

 private:
  errc code_ = errc::ok;
  std::string message_;
};

// A value or the status that explains why there is none.
template <class T>
class [[nodiscard]] result {
 public:
  result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  result(status s) : v_(std::move(s)) {      // NOLINT(google-explicit-constructor)
    assert(!std::get<status>(v_).is_ok() && "an error result needs a non-ok status");
  }

  bool is_ok() const noexcept { return std::holds_alternative<T>(v_); }
  explicit operator bool() const noexcept { return is_ok(); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The error; only meaningful when !is_ok().
  const status& error() const { return std::get<status>(v_); }

 private:
  std::variant<T, status> v_;
};

}  // namespace cuzk

// Propagates a non-ok status from an expression returning `status`.
#define CUZK_TRY(expr)                          \
  do {                                          \
    ::cuzk::status cuzk_try_status_ = (expr);   \
    if (!cuzk_try_status_.is_ok()) return cuzk_try_status_; \
  } while (0)

// SPDX-License-Identifier: MIT OR Apache-2.0
// A parked outcome's file (see parked_result.hpp).
#include "engine/jobs/parked_result.hpp"

#include <nlohmann/json.hpp>
#include <span>

#include "engine/jobs/witness.hpp"

namespace cuzk::engine {

namespace {

// The first line's words before the digest; a later format changes the number.
constexpr std::string_view magic = "cuzk-parked-result 1 ";

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

status bad(const std::string& what) { return status(errc::format_error, "parked result: " + what); }

}  // namespace

std::string encode_parked_result(const parked_result& p) {
  const job_result& r = p.result;
  nlohmann::json proofs = nlohmann::json::array();
  for (const auto& x : r.proofs) proofs.push_back({{"proof", x.proof_json}, {"public", x.public_json}});
  nlohmann::json j{{"id", r.id},
                   {"request_id", r.request_id},
                   {"circuit", r.circuit},
                   {"key_digest", p.key_digest},
                   {"priority", static_cast<int>(r.prio)},
                   {"state", static_cast<int>(r.state)},
                   {"partitions", r.partitions},
                   {"error_code", static_cast<int>(r.error.code())},
                   {"error_message", r.error.message()},
                   {"proofs", std::move(proofs)},
                   {"seconds", r.times.seconds},
                   {"ran_on", r.ran_on},
                   {"h2d_bytes", r.h2d_bytes},
                   {"deadline_missed", r.deadline_missed},
                   {"attempts", r.attempts},
                   {"submitted_ms", to_unix_ms(r.submitted_at)}};
  if (r.deadline) j["deadline_ms"] = to_unix_ms(*r.deadline);
  if (r.finished_at) j["finished_ms"] = to_unix_ms(*r.finished_at);
  const std::string body = j.dump();
  return std::string(magic) + witness_digest(as_bytes(body)) + "\n" + body;
}

result<parked_result> decode_parked_result(std::string_view bytes) {
  const auto eol = bytes.find('\n');
  if (eol == std::string_view::npos || !bytes.starts_with(magic))
    return bad("expected a first line \"" + std::string(magic) + "<digest>\", found none");
  const std::string digest(bytes.substr(magic.size(), eol - magic.size()));
  const std::string_view body = bytes.substr(eol + 1);
  // A digest of another scheme (or none) matches nothing: only a body whose XXH3 digest is the one
  // written is read at all.
  if (digest.empty() || !witness_digest_matches(digest, as_bytes(body)))
    return bad("the body does not match its digest " + digest + " (the file was cut short or altered)");
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) return bad("the body is not a JSON object");
  parked_result p;
  job_result& r = p.result;
  try {
    r.id = j.at("id").get<job_id>();
    r.request_id = j.at("request_id").get<std::string>();
    r.circuit = j.at("circuit").get<std::string>();
    p.key_digest = j.at("key_digest").get<std::string>();
    const int prio = j.at("priority").get<int>();
    if (prio < 0 || prio >= priority_count)
      return bad("priority " + std::to_string(prio) + " is out of range");
    r.prio = static_cast<priority>(prio);
    const int state = j.at("state").get<int>();
    if (state < 0 || state > static_cast<int>(job_state::cancelled) ||
        !is_terminal(static_cast<job_state>(state)))
      return bad("state " + std::to_string(state) + " is not an end");
    r.state = static_cast<job_state>(state);
    r.partitions = j.at("partitions").get<uint32_t>();
    const int code = j.at("error_code").get<int>();
    if (code < 0 || code >= errc_count) return bad("error code " + std::to_string(code) + " is out of range");
    r.error =
        code == 0 ? status::ok() : status(static_cast<errc>(code), j.at("error_message").get<std::string>());
    for (const auto& x : j.at("proofs"))
      r.proofs.push_back({x.at("proof").get<std::string>(), x.at("public").get<std::string>()});
    const auto& seconds = j.at("seconds");
    if (!seconds.is_array() || seconds.size() > r.times.seconds.size())
      return bad("expected at most " + std::to_string(phase_count) + " phase times");
    for (std::size_t k = 0; k < seconds.size(); ++k) r.times.seconds[k] = seconds[k].get<double>();
    r.ran_on = j.at("ran_on").get<std::string>();
    r.h2d_bytes = j.at("h2d_bytes").get<double>();
    r.deadline_missed = j.at("deadline_missed").get<bool>();
    r.attempts = j.at("attempts").get<uint32_t>();
    r.submitted_at = from_unix_ms(j.at("submitted_ms").get<int64_t>());
    if (j.contains("deadline_ms")) r.deadline = from_unix_ms(j.at("deadline_ms").get<int64_t>());
    if (j.contains("finished_ms")) r.finished_at = from_unix_ms(j.at("finished_ms").get<int64_t>());
  } catch (const nlohmann::json::exception& e) {
    // A field missing or of another type: the digest matched, so the writer was not this format's.
    return bad(std::string("a field is missing or of the wrong type: ") + e.what());
  }
  if (r.state == job_state::done && r.proofs.size() != r.partitions)
    return bad("a done job of " + std::to_string(r.partitions) + " partitions with " +
               std::to_string(r.proofs.size()) + " proofs");
  if (r.state != job_state::done && !r.proofs.empty()) return bad("proofs for a job that did not end done");
  return p;
}

std::string parked_result_mismatch(const parked_result& p, const job_record& rec,
                                   const std::string& key_digest) {
  const job_result& r = p.result;
  const job_result& want = rec.info;
  if (r.id != want.id) return "job " + std::to_string(r.id) + ", not " + std::to_string(want.id);
  if (r.request_id != want.request_id)
    return "request id '" + r.request_id + "', not '" + want.request_id + "'";
  if (r.circuit != want.circuit) return "circuit " + r.circuit + ", not " + want.circuit;
  if (r.partitions != rec.witness_paths.size())
    return std::to_string(r.partitions) + " partitions, not " + std::to_string(rec.witness_paths.size());
  if (r.state == job_state::done && p.key_digest != key_digest)
    return "proved under the key of digest " + p.key_digest + ", the circuit's is " + key_digest;
  return {};
}

std::optional<job_result> take_parked_result(witness_spool& spool, const job_record& rec,
                                             const std::string& key_digest, std::string& why) {
  why.clear();
  auto bytes = spool.read_result(rec.info.id);
  if (bytes && !*bytes) return std::nullopt;
  if (!bytes) {
    why = bytes.error().to_string();
  } else if (auto p = decode_parked_result(**bytes); !p) {
    why = spool.result_path(rec.info.id) + ": " + p.error().to_string();
  } else if (std::string differs = parked_result_mismatch(*p, rec, key_digest); !differs.empty()) {
    why = spool.result_path(rec.info.id) + ": parked result: not this job's outcome: " + differs;
  } else {
    return std::move(p->result);
  }
  spool.remove_result(rec.info.id);
  return std::nullopt;
}

}  // namespace cuzk::engine

// Shared JSON helpers; see snarkjs_json.hpp.
#include "formats/snarkjs_json.hpp"

namespace cuzk::formats::snarkjs_json {

result<ojson> parse(std::string_view text, const std::string& name) {
  try {
    return ojson::parse(text);
  } catch (const ojson::exception& e) {
    return status(errc::parse_error, name + ": not valid JSON: " + e.what());
  }
}

std::string dump(const ojson& j) { return j.dump(1); }

result<const ojson*> member(const ojson& obj, const char* key, const std::string& name) {
  if (!obj.is_object())
    return status(errc::parse_error,
                  name + ": expected a JSON object, found " + std::string(obj.type_name()));
  const auto it = obj.find(key);
  if (it == obj.end()) return status(errc::parse_error, name + ": " + key + ": missing");
  return &*it;
}

status expect_string(const ojson& obj, const char* key, std::string_view expected, const std::string& name,
                     bool optional) {
  if (!obj.is_object())
    return {errc::parse_error, name + ": expected a JSON object, found " + std::string(obj.type_name())};
  const auto it = obj.find(key);
  if (it == obj.end()) {
    if (optional) return status::ok();
    return {errc::parse_error, name + ": " + key + ": missing"};
  }
  if (!it->is_string() || it->get_ref<const std::string&>() != expected) {
    return {errc::parse_error,
            name + ": " + key + ": expected \"" + std::string(expected) + "\", found " + it->dump()};
  }
  return status::ok();
}

}  // namespace cuzk::formats::snarkjs_json

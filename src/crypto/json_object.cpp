#include "crypto/json_object.hpp"

#include <set>

namespace svc::crypto {

std::optional<rapidjson::Document> parse_json_object(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  std::set<std::string_view> names;
  for (const auto& m : doc.GetObject()) {
    if (!names.emplace(m.name.GetString(), m.name.GetStringLength()).second) return std::nullopt;
  }
  return doc;
}

}  // namespace svc::crypto

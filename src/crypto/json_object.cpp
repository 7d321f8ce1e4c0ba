#include "crypto/json_object.hpp"

#include <set>

#include "core/json_depth.hpp"

namespace svc::crypto {

std::optional<rapidjson::Document> parse_json_object(std::string_view json) {
  if (!core::json_depth_within(json)) return std::nullopt;  // tokens come from clients
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

#pragma once
// The strict JSON-object reader for token contents (JWT header and claims,
// sealed-id plaintext): text an attacker may have shaped, read before or
// after a signature check.
//
// Also the member readers and writers both token formats (crypto/jwt,
// crypto/access_token) build their JSON with.
//
// Pure functions; thread-safe.

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

// `json` parsed as one JSON object whose member names are unique at the top
// level, or nullopt: a parse error, trailing text, any value other than an
// object, or a member name given twice. Duplicates are refused because
// parsers disagree on which one wins, so two readers could see two different
// tokens. Parsing is iterative (kParseIterativeFlag), and text nested deeper
// than core::kMaxJsonDepth is refused before it is parsed, so hostile nesting
// can exhaust the stack neither here nor in a later walk of the value. Names
// are compared as bytes (embedded NUL and escapes decoded), so "a" and
// "\u0061" are the same name. A raw NUL byte in `json` ends the text for
// rapidjson: what follows it is not read.
std::optional<rapidjson::Document> parse_json_object(std::string_view json);

inline std::string_view json_view(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

enum class Member { kOptional, kRequired };

// Reads a string member into `out`; false if it has another type, or is
// absent and kRequired (an absent optional member leaves `out` as it was).
inline bool read_string(const rapidjson::Document& doc, const char* name, std::string& out,
                        Member presence = Member::kOptional) {
  auto it = doc.FindMember(name);
  if (it == doc.MemberEnd()) return presence == Member::kOptional;
  if (!it->value.IsString()) return false;
  out = json_view(it->value);
  return true;
}

// Reads an integer member that fits in 64 bits (1.0 and 1e3 are doubles,
// hence refused); otherwise as read_string.
inline bool read_int(const rapidjson::Document& doc, const char* name, long long& out,
                     Member presence = Member::kOptional) {
  auto it = doc.FindMember(name);
  if (it == doc.MemberEnd()) return presence == Member::kOptional;
  if (!it->value.IsInt64()) return false;
  out = it->value.GetInt64();
  return true;
}

template <typename Writer>
void write_member(Writer& w, const char* name, std::string_view value) {
  w.Key(name);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

template <typename Writer>
void write_member(Writer& w, const char* name, long long value) {
  w.Key(name);
  w.Int64(value);
}

}  // namespace svc::crypto

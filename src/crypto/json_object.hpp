#pragma once
// The strict JSON-object reader for token contents (JWT header and claims,
// sealed-id plaintext): text an attacker may have shaped, read before or
// after a signature check.
//
// Pure function; thread-safe.

#include <rapidjson/document.h>

#include <optional>
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

}  // namespace svc::crypto

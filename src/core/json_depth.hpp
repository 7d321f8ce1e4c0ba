#pragma once

#include <cstddef>
#include <string_view>

namespace svc::core {

// The deepest nesting of arrays and objects any JSON a client sends may have;
// the top-level value counts as level 1, so {"data":[[1]]} is 3 levels deep.
// Requests (every route), tokens and sealed ids are checked against it
// before they are parsed, so code that walks a parsed value recursively
// (rapidjson's Accept, a writer) never goes deeper than this: a body of a
// hundred thousand "[" must not exhaust a worker's stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// True when no array or object in `json` is nested deeper than max_depth.
// Counts brackets outside string literals (escapes understood) without
// parsing: O(n), no allocation, and nothing recurses. For malformed text the
// answer is only about its brackets; the parser reports the rest.
bool json_depth_within(std::string_view json, std::size_t max_depth = kMaxJsonDepth);

}  // namespace svc::core

#include "http/dispatch.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_depth.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "db/failure.hpp"
#include "db/site_repo.hpp"
#include "http/api_error.hpp"
#include "http/routes.hpp"
#include "http/site_auth.hpp"

namespace svc::http {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == '~';
}

// Whether one path segment stands where a pattern's wildcard does.
bool wildcard_matches(char wildcard, std::string_view segment) {
  if (segment.empty()) return false;
  if (wildcard == '*') {
    return segment.size() <= 18 &&
           std::all_of(segment.begin(), segment.end(), [](char c) { return c >= '0' && c <= '9'; });
  }
  return segment.size() <= 128 && segment != "." && segment != ".." &&
         std::all_of(segment.begin(), segment.end(), is_name_char);
}

}  // namespace

bool path_matches(std::string_view pattern, std::string_view path) {
  if (pattern.find_first_of("*?") == std::string_view::npos) return pattern == path;
  // Segment by segment: a wildcard segment takes one path segment.
  while (!pattern.empty() && !path.empty()) {
    const size_t p_end = std::min(pattern.find('/', 1), pattern.size());
    const size_t s_end = std::min(path.find('/', 1), path.size());
    const std::string_view p_seg = pattern.substr(0, p_end), s_seg = path.substr(0, s_end);
    const bool wildcard = p_seg.size() == 2 && p_seg[0] == '/' && (p_seg[1] == '*' || p_seg[1] == '?');
    if (wildcard ? !(s_seg.size() > 1 && s_seg[0] == '/' && wildcard_matches(p_seg[1], s_seg.substr(1)))
                 : p_seg != s_seg) {
      return false;
    }
    pattern.remove_prefix(p_end);
    path.remove_prefix(s_end);
  }
  return pattern.empty() && path.empty();
}

std::vector<std::string_view> path_segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') path.remove_prefix(1);
    const size_t end = std::min(path.find('/'), path.size());
    out.push_back(path.substr(0, end));
    path.remove_prefix(end);
  }
  return out;
}

namespace {

const Route* find_route(std::span<const Route> routes, const std::string& path, const std::string& method,
                        bool& path_known) {
  path_known = false;
  for (const auto& r : routes) {
    if (!path_matches(r.path, path)) continue;
    path_known = true;
    if (method == r.method) return &r;
  }
  return nullptr;
}

std::string allowed_methods(std::span<const Route> routes, const std::string& path) {
  std::string out;
  for (const auto& r : routes) {
    if (path_matches(r.path, path)) out += (out.empty() ? "" : ", ") + std::string(r.method);
  }
  return out;
}

// Reads the body up to the route's limit; a longer body is a 413 without
// buffering the rest.
void read_body(Request& request, BodySource& source, const Route& route) {
  if (request.content_length > static_cast<long long>(route.body_limit)) {
    throw ApiError::failed(413, "Request body too large");
  }
  request.body = source.read(route.body_limit + 1);
  if (request.body.size() > route.body_limit) throw ApiError::failed(413, "Request body too large");
}

// RapidJSON rejects a high surrogate escape without its pair but lets a lone
// low one (\uDC00-\uDFFF) through, which would put invalid UTF-8 into the
// database and into replies.
bool has_lone_low_surrogate(const std::string& body) {
  bool after_high = false;
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    if (body[i] != '\\') {
      after_high = false;
      continue;
    }
    if (body[i + 1] != 'u' || i + 5 >= body.size()) {
      after_high = false;
      ++i;  // an escaped character, e.g. \\ or \"
      continue;
    }
    unsigned code = 0;
    try {
      code = static_cast<unsigned>(std::stoul(body.substr(i + 2, 4), nullptr, 16));
    } catch (const std::exception&) {
      return false;  // not hex: the parser reports it
    }
    bool low = code >= 0xDC00 && code <= 0xDFFF;
    if (low && !after_high) return true;
    after_high = code >= 0xD800 && code <= 0xDBFF;
    i += 5;
  }
  return false;
}

// A JSON route takes only `application/json` (any parameters, such as
// charset, and any letter case): a cross-site HTML form can send text/plain
// or form encodings without a CORS preflight, never application/json.
void require_json_content_type(const Request& request) {
  std::string_view type = request.header("content-type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  if (core::ascii_lower(type) != "application/json") throw ApiError::failed(415, "Unsupported Media Type");
}

// RapidJSON keeps every member of an object, duplicates included, and
// FindMember returns the first: a validator and a later reader could see
// different values. A body with a repeated name anywhere is refused; the
// error names the top-level member it occurs in. Iterative, like the parser.
void reject_duplicate_members(const rapidjson::Value& root) {
  auto duplicate_in = [](const rapidjson::Value& object) {
    std::set<std::string_view> names;
    for (const auto& m : object.GetObject()) {
      if (!names.insert(std::string_view(m.name.GetString(), m.name.GetStringLength())).second) return true;
    }
    return false;
  };
  if (duplicate_in(root)) {
    std::set<std::string_view> names;
    for (const auto& m : root.GetObject()) {
      std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (!names.insert(name).second) throw ApiError::validation(std::string(name), "Duplicate member name");
    }
  }
  for (const auto& top : root.GetObject()) {
    std::vector<const rapidjson::Value*> pending{&top.value};
    while (!pending.empty()) {
      const rapidjson::Value* v = pending.back();
      pending.pop_back();
      if (v->IsObject()) {
        if (duplicate_in(*v)) {
          throw ApiError::validation(std::string(top.name.GetString(), top.name.GetStringLength()),
                                     "Duplicate member name");
        }
        for (const auto& m : v->GetObject()) pending.push_back(&m.value);
      } else if (v->IsArray()) {
        for (const auto& e : v->GetArray()) pending.push_back(&e);
      }
    }
  }
}

bool all_ascii(std::string_view text) {
  unsigned char seen = 0;
  for (char c : text) seen |= static_cast<unsigned char>(c);
  return seen < 0x80;
}

void parse_json(Request& request) {
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ApiError::validation("body", "Request body must be a JSON object");
  }
  // The parser is iterative, but a handler may walk a value recursively
  // (send_push writes `data` back out with Accept): a body of a hundred
  // thousand "[" would overflow the worker's stack there. Refused before a
  // DOM is built, for every route.
  if (!core::json_depth_within(request.body)) {
    throw ApiError::validation(
        "body", "JSON must not be nested deeper than " + std::to_string(core::kMaxJsonDepth) + " levels");
  }
  // Iterative (no recursion on deep nesting) and strict about UTF-8, so no
  // invalid text reaches the database or a reply. A body of ASCII bytes only
  // (the usual one: tokens, ids, e-mail addresses) is valid UTF-8 as it
  // stands, so rapidjson's per-character check, about a twelfth of a
  // refresh-token's worker instructions, runs only when a byte is >= 0x80.
  if (all_ascii(request.body)) {
    request.json.Parse<rapidjson::kParseIterativeFlag>(request.body.data(), request.body.size());
  } else {
    request.json.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(request.body.data(),
                                                                                               request.body.size());
  }
  if (request.json.HasParseError() || request.body.find('\0') != std::string::npos ||
      has_lone_low_surrogate(request.body)) {
    throw ApiError::validation("body", "Malformed JSON");
  }
  if (!request.json.IsObject()) throw ApiError::validation("body", "Request body must be a JSON object");
  reject_duplicate_members(request.json);
}

Response route_request(std::span<const Route> routes, Request& request, BodySource& source, core::Context& ctx) {
  bool path_known = false;
  const Route* route = find_route(routes, request.path, request.method, path_known);
  if (!route) {
    if (!path_known) throw ApiError::failed(404, "Not found");
    Response r = Response::json(405, ApiError::failed(405, "Method not allowed").body());
    r.headers.emplace_back("Allow", allowed_methods(routes, request.path));
    return r;
  }
  // A site route checks its caller from the headers alone before any byte of
  // the body is read: whoever is no site gets the spec's 401 whatever the
  // body holds, and costs neither buffering nor JSON parsing.
  std::optional<db::Site> site;
  if (route->site_handler) site = authenticate_site(request, ctx);
  if (route->flags & kJsonBody) require_json_content_type(request);
  if (route->body_limit > 0) read_body(request, source, *route);
  if (route->flags & kJsonBody) parse_json(request);
  return site ? route->site_handler(request, ctx, *site) : route->handler(request, ctx);
}

}  // namespace

Response dispatch(std::span<const Route> routes, Request& request, BodySource& body, core::Context& ctx) {
  try {
    return route_request(routes, request, body, ctx);
  } catch (const ApiError& e) {
    Response r = Response::json(e.status(), e.body());
    r.headers = e.headers();
    // Every 429 says when to come back, in the header as well as the body.
    if (e.status() == 429) r.headers.emplace_back("Retry-After", std::to_string(std::max(1LL, e.retry_after())));
    return r;
  } catch (const std::exception& e) {
    core::LogLine("error", db::failure_event(e))  // db_unavailable: docs/operations.md
        .str("request_id", request.request_id)
        .str("method", request.method)
        .str("path", request.path)
        .str("error", e.what())
        .emit();
  } catch (...) {
    core::LogLine("error", "unhandled_exception")
        .str("request_id", request.request_id)
        .str("path", request.path)
        .str("error", "unknown exception")
        .emit();
  }
  return Response::json(500, ApiError::failed(500, kGenericError).body());
}

}  // namespace svc::http

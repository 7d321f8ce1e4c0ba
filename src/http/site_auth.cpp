#include "http/site_auth.hpp"

#include <sodium.h>

#include <algorithm>

#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/site_cache.hpp"

namespace svc::http {
namespace {

std::optional<long long> parse_site_id(std::string_view v) {
  auto n = core::parse_id(v);
  return n && *n > 0 ? n : std::nullopt;
}

}  // namespace

std::string hash_site_key(std::string_view key) {
  unsigned char h[32];
  crypto_generichash(h, sizeof h, reinterpret_cast<const unsigned char*>(key.data()), key.size(), nullptr, 0);
  char hex[sizeof h * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  return hex;
}

db::Site authenticate_site(const Request& request, core::Context& ctx) {
  auto unauthorized = [] { return ApiError::error(401, "Unauthorized"); };
  // nginx keys the rate limit on one of these headers and the worker must
  // authenticate the very same value: two site-id lines (joined into
  // "999, 1" by nginx or the worker, which parse_site_id refuses), or a
  // site-id and an x-site-id that name different sites, are refused.
  std::string_view header = request.header("site-id");
  std::string_view x_header = request.header("x-site-id");
  if (!header.empty() && !x_header.empty() && header != x_header) throw unauthorized();
  if (header.empty()) header = x_header;
  auto id = parse_site_id(header);
  if (!id) throw unauthorized();
  auto site = find_site(ctx, *id);
  if (!site || !site->active) throw unauthorized();
  if (!site->api_key_hash.empty() && !site_key_matches(request, *site)) throw unauthorized();
  return *site;
}

bool site_key_matches(const Request& request, const db::Site& site) {
  // Two x-site-key lines arrive joined ("k1, k2"). Refused outright rather
  // than left to the hash: an operator's own key could hold ", " (generated
  // keys are base64url and never do) and then match two half-keys.
  if (site.api_key_hash.empty() || request.header("x-site-key").empty()) return false;
  if (request.header("x-site-key").find(", ") != std::string_view::npos) return false;
  std::string given = hash_site_key(request.header("x-site-key"));
  return given.size() == site.api_key_hash.size() &&
         sodium_memcmp(given.data(), site.api_key_hash.data(), given.size()) == 0;
}

}  // namespace svc::http

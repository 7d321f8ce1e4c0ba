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
  std::string_view header = request.header("site-id");
  if (header.empty()) header = request.header("x-site-id");
  auto id = parse_site_id(header);
  if (!id) throw unauthorized();
  auto site = find_site(ctx, *id);
  if (!site || !site->active) throw unauthorized();
  if (!site->api_key_hash.empty() && !site_key_matches(request, *site)) throw unauthorized();
  return *site;
}

bool site_key_matches(const Request& request, const db::Site& site) {
  if (site.api_key_hash.empty() || request.header("x-site-key").empty()) return false;
  std::string given = hash_site_key(request.header("x-site-key"));
  return given.size() == site.api_key_hash.size() &&
         sodium_memcmp(given.data(), site.api_key_hash.data(), given.size()) == 0;
}

}  // namespace svc::http

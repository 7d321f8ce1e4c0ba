#include "manage/page.hpp"

#include "config/config.hpp"
#include "crypto/encoding.hpp"
#include "http/api_error.hpp"

namespace svc::manage {
namespace {

constexpr size_t kMacBytes = 16;

std::string cursor_mac(core::Context& ctx, std::string_view kind, long long site_id, std::string_view position) {
  std::string message = "svc-admin-cursor\n";
  message.append(kind).append("\n").append(std::to_string(site_id)).append("\n").append(position);
  return crypto::hmac_sha256(ctx.config.keys.id_key, message).substr(0, kMacBytes);
}

[[noreturn]] void invalid_cursor() { throw http::ApiError::validation("cursor", "Invalid cursor"); }

}  // namespace

std::string make_cursor(core::Context& ctx, std::string_view kind, long long site_id, std::string_view position) {
  return crypto::base64url_encode(position) + "." + crypto::base64url_encode(cursor_mac(ctx, kind, site_id, position));
}

std::string read_cursor(core::Context& ctx, std::string_view kind, long long site_id, std::string_view cursor) {
  if (cursor.empty()) return "";
  const size_t dot = cursor.find('.');
  if (dot == std::string_view::npos || cursor.size() > 1024) invalid_cursor();
  auto position = crypto::base64url_decode(cursor.substr(0, dot));
  auto mac = crypto::base64url_decode(cursor.substr(dot + 1));
  if (!position || !mac || position->empty() ||
      !crypto::constant_time_equal(*mac, cursor_mac(ctx, kind, site_id, *position))) {
    invalid_cursor();
  }
  return *position;
}

int page_limit(std::optional<long long> requested) {
  if (!requested) return kDefaultPage;
  if (*requested < 1 || *requested > kMaxPage) {
    throw http::ApiError::validation("limit", "limit must be between 1 and " + std::to_string(kMaxPage));
  }
  return static_cast<int>(*requested);
}

}  // namespace svc::manage

#include "manage_api/guard.hpp"

#include <algorithm>

#include "auth/mfa/bearer.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/query.hpp"
#include "http/routes.hpp"
#include "http/site_cache.hpp"
#include "manage/admins.hpp"
#include "oidc/params.hpp"

namespace svc::manage_api {
namespace {

// The token's session and its user's role on the site, in one statement:
// 401 when the session ended (as require_signed_in answers); "" = no grant.
std::string role_in_session(core::Context& ctx, const auth::SignedInUser& me, long long site_id) {
  if (me.sid.empty()) {  // a token from before sessions: the grant alone
    auto grant = manage::grant_of(ctx, site_id, me.table.str(), me.user.id);
    return grant ? grant->role : "";
  }
  auto row = manage::session_grant(ctx, me.sid, site_id);
  if (!row || row->revoked_at || row->user_id != me.user.id || row->auth_table != me.table.str()) {
    throw http::ApiError::failed(401, "Unauthorized");
  }
  return row->role;
}

// TOTP (after a password or an e-mail code: "mfa") or a passkey.
bool has_second_factor(const std::vector<std::string>& amr) {
  return std::any_of(amr.begin(), amr.end(),
                     [](const std::string& m) { return m == "mfa" || m == "hwk" || m == "swk"; });
}

}  // namespace

manage::Actor require_admin(const http::Request& request, core::Context& ctx, manage::Role needed, Change change) {
  auth::SignedInUser me = auth::require_token_user(request, ctx, auth::SessionCheck::kByCaller);
  const long long site_id = path_id(request, 2);
  const std::string granted = role_in_session(ctx, me, site_id);
  auto site = http::find_site(ctx, site_id);
  auto role = site && site->active && site->user_pool == me.user.pool_id ? manage::parse_role(granted) : std::nullopt;
  if (!role) throw http::ApiError::failed(403, "Forbidden");
  if (!has_second_factor(me.amr)) {
    throw http::ApiError::failed(403, "Second factor required for site administration");
  }
  manage::Actor actor;
  actor.site_id = site_id;
  actor.pool_id = site->user_pool;
  actor.role = *role;
  actor.user_id = me.user.id;
  actor.auth_table = me.table.str();
  actor.email = me.user.email;
  actor.ip = request.remote_addr;
  actor.request_id = request.request_id;
  manage::require_role(actor, needed);
  if (change == Change::kDestructive && ctx.clock.now() - me.auth_time > kRecentSignIn) {
    throw http::ApiError::failed(401, "Recent sign-in required, log in again");
  }
  return actor;
}

long long path_id(const http::Request& request, size_t index) {
  auto segments = http::path_segments(request.path);
  auto id = index < segments.size() ? core::parse_id(segments[index]) : std::nullopt;
  if (!id) throw http::ApiError::failed(404, "Not found");
  return *id;
}

std::string path_name(const http::Request& request, size_t index) {
  auto segments = http::path_segments(request.path);
  if (index >= segments.size()) throw http::ApiError::failed(404, "Not found");
  return std::string(segments[index]);
}

std::optional<std::string> query_param(const http::Request& request, const char* name) {
  auto values = http::query_values(request.query, name);
  if (values.empty()) return std::nullopt;
  auto decoded = values.size() == 1 ? oidc::form_decode(values.front()) : std::nullopt;
  if (!decoded) throw http::ApiError::validation(name, std::string(name) + " must be given once, percent-encoded");
  return decoded;
}

std::optional<long long> query_integer(const http::Request& request, const char* name) {
  auto text = query_param(request, name);
  if (!text) return std::nullopt;
  auto value = core::parse_id(*text);
  if (!value) throw http::ApiError::validation(name, std::string(name) + " must be a positive integer");
  return value;
}

}  // namespace svc::manage_api

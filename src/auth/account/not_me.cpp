// POST /auth/sessions/not-me {"token"}: the button of the "this wasn't me"
// page (web/account/not-me.html) that the new-device mail links to
// (auth/session/new_device.hpp). Ends every session of the user and starts
// a password reset; the token is spent once.

#include <optional>

#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/password/reset_service.hpp"
#include "auth/session/new_device.hpp"
#include "auth/session/sessions.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "db/session_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

http::ApiError invalid_token() { return http::ApiError::failed(400, "Sign-out token has expired or is invalid"); }

// The reset starts first: it is the one step that can refuse (the site
// gone, or no reset page for it), and it refuses before anything changed.
// Then the token is spent by one conditional write (of two presses, only
// one gets past it) and the sessions end.
void sign_out_everywhere(core::Context& ctx, const http::Request& request, const NotMeClaim& claim) {
  auto table = db::allowlisted(claim.table, ctx.config.auth.tables);
  db::SessionRepo sessions(ctx.db);
  if (!table || !sessions.not_me_unspent(claim.sid, claim.table, claim.user_id)) throw invalid_token();
  const auto user = db::UserRepo(ctx.db, *table).find_by_id(claim.user_id);
  if (!user) throw invalid_token();
  request_password_reset(ctx, request, user->email, claim.site_id, *table, std::nullopt, false);
  if (!sessions.spend_not_me(claim.sid, claim.table, claim.user_id, ctx.clock.now())) throw invalid_token();
  const int ended = end_sessions(ctx, claim.table, claim.user_id, "not_me");
  audit(ctx, request, "not_me", claim.table, claim.user_id, claim.site_id,
        "session " + claim.sid + ", " + std::to_string(ended) + " ended");
}

}  // namespace

http::Response sessions_not_me(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("token", 8192);
  fields.throw_if_errors();
  const auto claim = verify_not_me_token(ctx, *token);
  if (!claim) throw invalid_token();
  sign_out_everywhere(ctx, request, *claim);
  return http::Response::json(200, R"({"status":"Success","message":"Signed out everywhere"})");
}

}  // namespace svc::auth

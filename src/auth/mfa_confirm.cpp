#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa_bearer.hpp"
#include "auth/mfa_mail.hpp"
#include "auth/mfa_replies.hpp"
#include "auth/totp_factor.hpp"

namespace svc::auth {

http::Response mfa_totp_confirm(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto code = fields.required_string("code", 64);
  fields.throw_if_errors();
  require_own_code(request, ctx, me, *code, true);
  audit(ctx, request, "mfa_enabled", me.table.str(), me.user.id, me.app_id, "totp");
  queue_mfa_mail(ctx, request, me.app_id, me.table, me.user, MfaChange::kEnabled);
  return recovery_codes_reply(issue_recovery_codes(ctx, me.table.str(), me.user.id));
}

}  // namespace svc::auth

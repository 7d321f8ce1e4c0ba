#pragma once

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

// The /auth/* handlers: read fields → call one service → write the reply.
// Each throws http::ApiError for anything the client should see. A handler's
// file is named for its endpoint, in the folder of its capability (password/,
// tokens/, mfa/, passkey/, email/, lookup/); lookup/sms_code_handlers.cpp
// holds both SMS endpoints. The services sit beside their handlers.
namespace svc::auth {

http::Response login(const http::Request& request, core::Context& ctx);
http::Response sign_up(const http::Request& request, core::Context& ctx);
http::Response refresh_token(const http::Request& request, core::Context& ctx);
http::Response sign_out(const http::Request& request, core::Context& ctx);
http::Response request_pass(const http::Request& request, core::Context& ctx);
http::Response reset_pass(const http::Request& request, core::Context& ctx);
http::Response user_email(const http::Request& request, core::Context& ctx);
http::Response user_sms_code(const http::Request& request, core::Context& ctx);
// Addition to the spec: checks a code sent by user_sms_code (docs/api.md).
http::Response verify_sms_code(const http::Request& request, core::Context& ctx);
http::Response get_folder_limits(const http::Request& request, core::Context& ctx);
// Second factor (docs/api.md "Second factor"): the signed-in user's own
// TOTP factor (Bearer access token) and the login's second step.
http::Response mfa_totp_setup(const http::Request& request, core::Context& ctx);
http::Response mfa_totp_confirm(const http::Request& request, core::Context& ctx);
http::Response mfa_recovery_codes(const http::Request& request, core::Context& ctx);
http::Response mfa_disable(const http::Request& request, core::Context& ctx);
http::Response mfa_verify(const http::Request& request, core::Context& ctx);
// E-mail as identity (docs/api.md "Sign-in codes by e-mail", "Verified
// addresses"); all four in email/code_handlers.cpp.
http::Response email_code(const http::Request& request, core::Context& ctx);
http::Response email_code_verify(const http::Request& request, core::Context& ctx);
http::Response verify_email(const http::Request& request, core::Context& ctx);
http::Response verify_email_resend(const http::Request& request, core::Context& ctx);
// Passkeys (docs/api.md "Passkeys"): register, list and delete take a
// Bearer access token issued for an appID; login/options and login take
// none (or the mfa_token of the login's second step).
http::Response passkey_register_options(const http::Request& request, core::Context& ctx);
http::Response passkey_register(const http::Request& request, core::Context& ctx);
http::Response passkey_login_options(const http::Request& request, core::Context& ctx);
http::Response passkey_login(const http::Request& request, core::Context& ctx);
http::Response passkey_list(const http::Request& request, core::Context& ctx);
http::Response passkey_rename(const http::Request& request, core::Context& ctx);
http::Response passkey_delete(const http::Request& request, core::Context& ctx);
// Sessions (docs/api.md "Sessions"; Bearer access token): the user's open
// sessions, and ending one of them. In account/sessions.cpp.
http::Response sessions_list(const http::Request& request, core::Context& ctx);
http::Response session_revoke(const http::Request& request, core::Context& ctx);
// The "this wasn't me" button of the new-device mail's page (no Bearer: the
// mailed token): ends every session and starts a password reset. In
// account/not_me.cpp.
http::Response sessions_not_me(const http::Request& request, core::Context& ctx);
// Account self-service (docs/api.md "Account self-service"; issue 38): the
// signed-in user's password, address, deletion and export (account token),
// and the two links of an e-mail change. In account/self_service_handlers.cpp.
http::Response password_change(const http::Request& request, core::Context& ctx);
http::Response email_change(const http::Request& request, core::Context& ctx);
http::Response email_change_confirm(const http::Request& request, core::Context& ctx);
http::Response email_change_undo(const http::Request& request, core::Context& ctx);
http::Response account_delete(const http::Request& request, core::Context& ctx);
http::Response account_export(const http::Request& request, core::Context& ctx);
// GET /.well-known/jwks.json: the access tokens' public keys (RFC 7517).
http::Response jwks(const http::Request& request, core::Context& ctx);
// GET /auth/site?site=N: an active site's id and name, for the ready pages
// (lookup/site_info.cpp; docs/api.md "The name of a site").
http::Response site_info(const http::Request& request, core::Context& ctx);

}  // namespace svc::auth

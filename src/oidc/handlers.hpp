#pragma once
// The OpenID Connect provider's routes (issue 39, docs/oidc.md), registered
// in src/app/routes.cpp. /oidc/N/... paths name the site (issuer) N; the
// hosted pages' forms post to /auth/oidc/... (the sign-in runs Argon2id,
// so nginx sends it to the hashing pool like /auth/login).

#include <string>
#include <string_view>

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::oidc {

http::Response discovery(const http::Request& request, core::Context& ctx);
http::Response authorize(const http::Request& request, core::Context& ctx);
http::Response token(const http::Request& request, core::Context& ctx);
http::Response userinfo(const http::Request& request, core::Context& ctx);
http::Response revoke(const http::Request& request, core::Context& ctx);
http::Response introspect(const http::Request& request, core::Context& ctx);
http::Response end_session(const http::Request& request, core::Context& ctx);

// The hosted pages (oidc/sign_in.cpp).
http::Response sign_in_form(const http::Request& request, core::Context& ctx);
http::Response sign_in_submit(const http::Request& request, core::Context& ctx);
http::Response second_factor_submit(const http::Request& request, core::Context& ctx);
http::Response passkey_submit(const http::Request& request, core::Context& ctx);
http::Response consent_submit(const http::Request& request, core::Context& ctx);
// The forgotten-password form of the sign-in page and its answer: the
// reset request of /auth/request-pass for the waiting request's site.
http::Response forgot_form(const http::Request& request, core::Context& ctx);
http::Response forgot_submit(const http::Request& request, core::Context& ctx);
// Sign-in with a code by e-mail (oidc/email_code.cpp): the address form,
// the code mailed as by /auth/email-code, the code tried as by
// /auth/email-code/verify.
http::Response email_code_form(const http::Request& request, core::Context& ctx);
http::Response email_code_submit(const http::Request& request, core::Context& ctx);
http::Response email_code_verify(const http::Request& request, core::Context& ctx);

// Hosted registration (issue 51, oidc/register.cpp): the form and its
// answer; 403 page when the site's sign-up is closed.
http::Response register_form(const http::Request& request, core::Context& ctx);
http::Response register_submit(const http::Request& request, core::Context& ctx);

// Sign in with an upstream provider (issue 51, oidc/upstream.cpp):
//   POST /auth/oidc/upstream                          a button of the sign-in page
//   GET|POST /oidc/{site}/upstream/{name}/callback    the provider's answer (kOutbound)
// and the sign-in page's buttons (markup, one form per provider of the
// site, values escaped; "" when it has none).
http::Response upstream_start(const http::Request& request, core::Context& ctx);
http::Response upstream_callback(const http::Request& request, core::Context& ctx);
// The JSON API's form (sites without OpenID Connect): GET
// /auth/upstream/{name}/start?appID=N&return_to=URL (return_to within the
// site's reset URLs) ends on return_to with ?code= (or error and
// error_description); POST /auth/upstream/exchange {"code"} trades the code,
// once, within 60 s, for the login reply (amr fed), or the second-factor
// reply for a user with one.
http::Response upstream_api_start(const http::Request& request, core::Context& ctx);
http::Response upstream_exchange(const http::Request& request, core::Context& ctx);
// POST /auth/upstream/link {"provider"} (bearer account token, a site's
// sign-in): links an account at the provider to the signed-in user from the
// account centre: {"url"} of the provider's authorization endpoint, the flow
// bound to this browser's cookie (set here when missing) and to the user;
// its callback ends on a page saying what was linked, linking nothing when
// the account is linked to another user.
http::Response upstream_link_start(const http::Request& request, core::Context& ctx);
std::string provider_buttons(core::Context& ctx, long long site_id, const std::string& request_id,
                             const std::string& csrf);

// A PKCE code_verifier (RFC 7636 4.1): 43 to 128 unreserved characters.
bool is_pkce_verifier(std::string_view verifier);

}  // namespace svc::oidc

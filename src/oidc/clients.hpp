#pragma once
// OAuth 2.0 clients of the provider (svc_oauth_clients): how they are made
// and how the token, revocation and introspection endpoints tell who is
// calling (RFC 6749 2.3: client_secret_basic, client_secret_post, or none
// for a public client, which proves itself with PKCE instead).

#include <string>
#include <string_view>
#include <vector>

#include "core/context.hpp"
#include "db/oauth_repo.hpp"
#include "http/api_error.hpp"
#include "http/request.hpp"
#include "oidc/params.hpp"

namespace svc::oidc {

// {"error":error,"error_description":description} with `status` (RFC 6749
// 5.2); invalid_client also carries WWW-Authenticate: Basic.
http::ApiError oauth_error(int status, std::string_view error, std::string_view description);

// A fresh client id (16 random bytes, base64url: 22 characters) and secret
// (32 random bytes, base64url).
std::string new_client_id();
std::string new_client_secret();

// Why `uri` cannot be registered as a redirect or post-logout URI; "" when
// it can: absolute, no fragment, no spaces or controls, https, or http on a
// loopback host, or a private-use scheme (a native app, RFC 8252 7.1).
std::string redirect_uri_problem(std::string_view uri);

// The lower-cased scheme://host[:port] of an absolute hierarchical URI; ""
// when it has none.
std::string origin_of(std::string_view uri);

// Why `uri` cannot be a client's front-channel logout URI (Front-Channel
// Logout 1.0, 2); "" when it can: a redirect URI's rules, http(s) only, and
// the origin of one of `redirect_uris` (the end-session page lets exactly
// these origins be framed).
std::string frontchannel_uri_problem(std::string_view uri, const std::vector<std::string>& redirect_uris);

// The client calling an endpoint of `site_id` with `params` (a form body):
// HTTP Basic (client_id and secret form-encoded, RFC 6749 2.3.1) or
// client_id + client_secret in the body, never both; a public client gives
// its client_id and no secret. Throws oauth_error 401 invalid_client for an
// unknown client, another site's, a wrong or missing secret, a secret from a
// public client; 400 invalid_request for two methods at once.
db::OAuthClient authenticate_client(const http::Request& request, const Params& params, long long site_id,
                                    core::Context& ctx);

}  // namespace svc::oidc

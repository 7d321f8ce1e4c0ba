// GET /oidc/N/.well-known/openid-configuration (OpenID Connect Discovery 1.0
// section 4, RFC 8414 metadata names): what this issuer implements.

#include "http/json.hpp"
#include "oidc/handlers.hpp"
#include "oidc/issuer.hpp"

namespace svc::oidc {
namespace {

void array(http::JsonWriter& w, std::string_view key, std::initializer_list<std::string_view> items) {
  w.open_array(key);
  for (std::string_view item : items) w.s(item);
  w.close_array();
}

}  // namespace

http::Response discovery(const http::Request& http, core::Context& ctx) {
  const db::Site site = path_site(http, ctx);
  const std::string issuer = issuer_of(ctx.config, site.id);
  http::JsonWriter w;
  w.open().kv("issuer", issuer).kv("authorization_endpoint", issuer + "/authorize");
  w.kv("token_endpoint", issuer + "/token").kv("userinfo_endpoint", issuer + "/userinfo");
  w.kv("jwks_uri", issuer + "/jwks").kv("revocation_endpoint", issuer + "/revoke");
  w.kv("introspection_endpoint", issuer + "/introspect").kv("end_session_endpoint", issuer + "/end-session");
  array(w, "scopes_supported", {"openid", "email", "profile", "offline_access"});
  array(w, "response_types_supported", {"code"});
  array(w, "response_modes_supported", {"query"});
  array(w, "grant_types_supported", {"authorization_code", "refresh_token"});
  array(w, "subject_types_supported", {"public"});
  // Per client (svc-admin oauth-client create --id-token-alg); RS256 by default.
  array(w, "id_token_signing_alg_values_supported", {"RS256", "ES256", "EdDSA"});
  array(w, "token_endpoint_auth_methods_supported", {"client_secret_basic", "client_secret_post", "none"});
  array(w, "revocation_endpoint_auth_methods_supported", {"client_secret_basic", "client_secret_post", "none"});
  array(w, "introspection_endpoint_auth_methods_supported", {"client_secret_basic", "client_secret_post"});
  array(w, "code_challenge_methods_supported", {"S256"});
  array(w, "prompt_values_supported", {"none", "login", "consent"});
  array(w, "claims_supported",
        {"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "amr", "at_hash", "sid", "email", "email_verified",
         "name", "given_name", "family_name"});
  w.kv("authorization_response_iss_parameter_supported", true);
  w.kv("claims_parameter_supported", false).kv("request_parameter_supported", false);
  w.kv("request_uri_parameter_supported", false);
  // Front-Channel Logout 1.0: the end-session page frames each client's URI with iss and sid.
  w.kv("frontchannel_logout_supported", true).kv("frontchannel_logout_session_supported", true);
  w.kv("backchannel_logout_supported", false);
  w.close();
  http::Response r = http::Response::json(200, w.str());
  r.headers.emplace_back("Cache-Control", "public, max-age=300");
  return r;
}

}  // namespace svc::oidc

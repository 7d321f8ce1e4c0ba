#include "auth/handlers.hpp"
#include "auth/tokens/tokens.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {

http::Response refresh_token(const http::Request& request, core::Context& ctx) {
  auto invalid = [] { return http::ApiError::failed(400, "Invalid token format"); };
  // No payload object at all is a Validation error naming it; what is wrong
  // inside it keeps the spec's "Invalid token format".
  http::Fields outer(request.json);
  const rapidjson::Value* payload = outer.required_object("payload");
  outer.throw_if_errors();
  http::Fields inner(*payload);
  inner.required_string("access_token", 8192);  // may be expired; only its presence is required
  auto refresh = inner.required_string("refresh_token", 8192);
  if (!inner.ok()) throw invalid();

  Refreshed refreshed = refresh_session(request, *refresh, ctx);
  switch (refreshed.outcome) {
    case RefreshOutcome::kOk:
      break;
    case RefreshOutcome::kMalformed:
      throw invalid();
    case RefreshOutcome::kExpired:
      throw http::ApiError::failed(401, "Refresh token has expired");
    case RefreshOutcome::kRevoked:
      throw http::ApiError::failed(401, "Refresh token is no longer valid");
    case RefreshOutcome::kSessionRevoked:
      throw http::ApiError::failed(401, "Refresh token has been revoked");
    case RefreshOutcome::kOAuthGrant:
      throw http::ApiError::failed(400, "Refresh token belongs to an OAuth client: use its token endpoint");
  }
  http::JsonWriter w;
  w.open().kv("status", "Success").open("token");
  write_tokens(w, refreshed.tokens);
  w.close().close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth

#include "auth/handlers.hpp"
#include "auth/tokens/signing_keys.hpp"
#include "config/config.hpp"

namespace svc::auth {

// GET /.well-known/jwks.json: the public halves of every key not retired
// (auth/tokens/signing_keys.hpp), the newest first. Backends cache it for 5
// minutes; a new key is published that long (plus the workers' cache bound)
// before it signs (svc-admin signing-keys rotate). Legacy HS256 access
// tokens are verified with no published key: the set is then empty.
http::Response jwks(const http::Request&, core::Context& ctx) {
  http::Response reply =
      http::Response::json(200, ctx.config.tokens.legacy_hs256() ? R"({"keys":[]})" : current_key_set(ctx)->jwks);
  reply.headers.emplace_back("Cache-Control", "max-age=300");
  return reply;
}

}  // namespace svc::auth

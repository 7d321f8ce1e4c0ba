// The account centre's view of linked upstream accounts (docs/api.md
// "Sign in with …"): list them, and unlink one, never the last way the
// user can sign in (a password, a passkey of the site, or another linked
// account).

#include "auth/auth_common.hpp"
#include "auth/mfa/bearer.hpp"
#include "db/passkey_repo.hpp"
#include "db/upstream_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"
#include "upstream/handlers.hpp"
#include "webhooks/events.hpp"

namespace svc::upstream {

http::Response identities_list(const http::Request& request, core::Context& ctx) {
  const auth::SignedInUser me = auth::require_signed_in(request, ctx);
  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("identities");
  for (const auto& i : db::UpstreamRepo(ctx.db).identities_of(me.table.str(), me.user.id)) {
    w.open().kv("id", i.id).kv("provider", i.provider).kv("email", i.email).kv("created_at", i.created_at);
    w.kv("last_used_at", i.last_used_at).close();
  }
  // The site's providers, which the account centre offers to link.
  w.close_array().open_array("providers");
  if (me.app_id != 0) {
    for (const auto& p : db::UpstreamRepo(ctx.db).providers(me.app_id)) w.s(p.name);
  }
  w.close_array().close();
  return http::Response::json(200, w.str());
}

http::Response identity_unlink(const http::Request& request, core::Context& ctx) {
  const auth::SignedInUser me = auth::require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto id = fields.required_id("id");
  fields.throw_if_errors();
  db::UpstreamRepo repo(ctx.db);
  const auto mine = repo.identities_of(me.table.str(), me.user.id);
  const db::UserIdentity* target = nullptr;
  for (const auto& i : mine) {
    if (i.id == *id) target = &i;
  }
  if (!target) throw http::ApiError::failed(404, "No such linked account");
  // The stored hash as it is now (the signed-in user may come from a cache).
  const auto fresh = db::UserRepo(ctx.db, me.table).find_by_id(me.user.id);
  const bool other_way = (fresh && !fresh->password.empty()) || mine.size() > 1 ||
                         !db::PasskeyRepo(ctx.db).list(me.app_id, me.table.str(), me.user.id).empty();
  if (!other_way) throw http::ApiError::failed(409, "This is your only way to sign in: set a password first");
  db::WebhookData data = db::user_data(me.table.str(), me.user.id, me.user.email);
  data.reason = target->provider;
  webhooks::change_with_event(ctx.db, me.app_id, "user.identity_unlinked", data,
                              [&] { return repo.unlink(me.table.str(), me.user.id, target->id); });
  auth::audit(ctx, request, "identity_unlinked", me.table.str(), me.user.id, me.app_id, target->provider);
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("message", "Account unlinked").close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::upstream

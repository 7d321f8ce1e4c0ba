#include "manage/site_key.hpp"

#include "crypto/encoding.hpp"
#include "db/site_repo.hpp"
#include "http/site_auth.hpp"
#include "manage/audit.hpp"
#include "webhooks/events.hpp"

namespace svc::manage {

std::string generate_site_key() { return crypto::base64url_encode(crypto::random_bytes(32)); }

std::string rotate_site_key(core::Context& ctx, const Actor& actor) {
  require_role(actor, Role::kOwner);
  std::string key = generate_site_key();
  webhooks::atomically(ctx.db, [&] {
    db::SiteRepo(ctx.db).set_api_key_hash(actor.site_id, http::hash_site_key(key));
    audit(ctx, actor, "site_key.rotate", "site " + std::to_string(actor.site_id));
    return true;
  });
  return key;
}

}  // namespace svc::manage

#include "admin/key_commands.hpp"

#include <cstdio>
#include <ctime>

#include "admin/command_env.hpp"
#include "config/config.hpp"
#include "crypto/encoding.hpp"
#include "crypto/sealed_id.hpp"
#include "crypto/vapid.hpp"
#include "db/site_repo.hpp"

namespace svc::admin {
namespace {

int mint(const Args& args, const std::string& config_path, const char* id_option, crypto::IdPurpose purpose,
         const char* default_ttl) {
  args.allow_only({id_option, "ttl"});
  auto config = config::load_config(config_path);
  long long id = args.required_integer(id_option);
  if (id <= 0) throw UsageError(std::string("--") + id_option + " must be a positive id");
  long long exp = static_cast<long long>(std::time(nullptr)) + parse_duration(args.get("ttl").value_or(default_ttl));
  std::printf("%s\n", crypto::seal_id(id, exp, purpose, config.keys.id_key).c_str());
  return 0;
}

}  // namespace

int cmd_mint_user_id(const Args& args, const std::string& config_path) {
  return mint(args, config_path, "user", crypto::IdPurpose::User, "1h");
}

int cmd_mint_customer_id(const Args& args, const std::string& config_path) {
  return mint(args, config_path, "customer", crypto::IdPurpose::Customer, "30d");
}

int cmd_vapid_keys(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "force"});
  CommandEnv env(config_path);
  db::Site site = env.site(args.required_integer("site"));
  if (!site.vapid_public_key.empty() && !args.flag("force")) {
    std::fprintf(stderr,
                 "svc-admin: site %lld already has VAPID keys (use --force to replace them; browsers"
                 " then have to subscribe again)\n",
                 site.id);
    std::printf("%s\n", site.vapid_public_key.c_str());
    return 0;
  }
  auto keys = crypto::generate_vapid_keys();
  site.vapid_public_key = crypto::base64url_encode(keys.public_key);
  site.vapid_private_key = crypto::base64url_encode(keys.private_key);
  db::SiteRepo(env.db).update(site);
  std::printf("%s\n", site.vapid_public_key.c_str());
  return 0;
}

}  // namespace svc::admin

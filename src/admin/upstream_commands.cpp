#include "admin/upstream_commands.hpp"

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "admin/manage_env.hpp"
#include "core/text.hpp"
#include "db/upstream_repo.hpp"
#include "manage/providers.hpp"
#include "upstream/providers.hpp"

namespace svc::admin {
namespace {

// The service's fields as the options that set them.
const std::vector<std::pair<std::string, std::string>> kProviderOptions = {{"client_secret", "client-secret-file"},
                                                                           {"client_id", "client-id"},
                                                                           {"issuer", "issuer"},
                                                                           {"scopes", "scopes"},
                                                                           {"tenant", "tenant"},
                                                                           {"name", "name"},
                                                                           {"type", "type"}};

}  // namespace

int cmd_site_provider_add(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "name", "type", "issuer", "tenant", "api-url", "authorize-url", "token-url", "client-id",
                   "client-secret-file", "scopes", "trust-email", "team-id", "key-id"});
  upstream::ProviderSpec spec;
  spec.site_id = args.required_integer("site");
  spec.name = args.required("name");
  spec.type = args.get("type").value_or("");
  spec.issuer = args.get("issuer").value_or("");
  spec.tenant = args.get("tenant").value_or("");
  spec.api_url = args.get("api-url").value_or("");
  spec.authorize_url = args.get("authorize-url").value_or("");
  spec.token_url = args.get("token-url").value_or("");
  spec.client_id = args.required("client-id");
  spec.client_secret =
      std::string(core::trim_blanks(read_text_file("client-secret-file", args.required("client-secret-file"))));
  spec.scopes = args.get("scopes").value_or("");
  spec.team_id = args.get("team-id").value_or("");
  spec.key_id = args.get("key-id").value_or("");
  spec.trust_email = args.flag("trust-email") && parse_bool("trust-email", args.get("trust-email").value_or("true"));
  ManageEnv m(config_path);
  const db::UpstreamProvider p =
      naming_options(kProviderOptions, [&] { return manage::add_provider(m.ctx, m.act_on(spec.site_id), spec); });
  std::printf("provider %s (%s) on site %lld\n", p.name.c_str(), p.type.c_str(), p.site_id);
  std::printf("callback: %s\n", upstream::callback_uri(m.env.config, p.site_id, p.name).c_str());
  return 0;
}

int cmd_site_provider_list(const Args& args, const std::string& config_path) {
  args.allow_only({"site"});
  const long long site_id = args.required_integer("site");
  ManageEnv m(config_path);
  const auto& env = m.env;
  return print_listing(manage::list_providers(m.ctx, m.act_on(site_id)), "no providers",
                       "name\ttype\ttrust_email\tissuer\tcallback\tapple_key", [&](const db::UpstreamProvider& p) {
                         const std::string apple_key = p.team_id.empty() ? "-" : p.team_id + "/" + p.key_id;
                         std::printf("%s\t%s\t%s\t%s\t%s\t%s\n", p.name.c_str(), p.type.c_str(),
                                     p.trust_email ? "yes" : "no",
                                     core::mask_controls(upstream::identity_issuer(p)).c_str(),
                                     upstream::callback_uri(env.config, site_id, p.name).c_str(),
                                     core::mask_controls(apple_key).c_str());
                       });
}

int cmd_site_provider_remove(const Args& args, const std::string& config_path) {
  args.allow_only({"site", "name"});
  const long long site_id = args.required_integer("site");
  const std::string name = args.required("name");
  ManageEnv m(config_path);
  try {
    manage::remove_provider(m.ctx, m.act_on(site_id), name);
  } catch (const http::ApiError& e) {
    if (e.status() != 404) throw;
    throw std::runtime_error("site " + std::to_string(site_id) + " has no provider " + name);
  }
  std::printf("provider %s removed from site %lld\n", name.c_str(), site_id);
  return 0;
}

void apply_signup(const Args& args, db::Database& db, long long site_id) {
  auto v = args.get("signup");
  if (!v) return;
  if (*v != "open" && *v != "closed") throw UsageError("--signup is open or closed");
  db::UpstreamRepo(db).set_signup_open(site_id, *v == "open");
}

void print_signup(db::Database& db, long long site_id) {
  std::printf("signup:          %s\n", db::UpstreamRepo(db).signup_open(site_id) ? "open" : "closed");
}

}  // namespace svc::admin

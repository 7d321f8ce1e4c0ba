#include "manage/providers.hpp"

#include <stdexcept>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "http/api_error.hpp"
#include "manage/audit.hpp"

namespace svc::manage {
namespace {

// The field a refusal of upstream::add_provider names: its "--client-id"
// is the API's "client_id"; the message without the option.
http::ApiError refused(const std::string& message) {
  std::string field = "provider", text = message;
  if (message.rfind("--", 0) == 0) {
    const size_t end = message.find_first_of(": ", 2);
    field = message.substr(2, end - 2);
    for (char& c : field) c = c == '-' ? '_' : c;
    if (field == "client_secret_file") field = "client_secret";
    text = end == std::string::npos ? field + " is not valid" : field + message.substr(end);
  }
  return http::ApiError::validation(field, text);
}

}  // namespace

std::vector<db::UpstreamProvider> list_providers(core::Context& ctx, const Actor& actor) {
  return db::UpstreamRepo(ctx.db).providers(actor.site_id);
}

db::UpstreamProvider add_provider(core::Context& ctx, const Actor& actor, upstream::ProviderSpec spec) {
  require_role(actor, Role::kAdmin);
  spec.site_id = actor.site_id;
  if (upstream::valid_name(spec.name) && db::UpstreamRepo(ctx.db).provider(actor.site_id, spec.name)) {
    throw http::ApiError::failed(409, "The site has a provider of that name");
  }
  db::UpstreamProvider p;
  try {
    p = upstream::add_provider(ctx.config, ctx.db, spec, ctx.clock.now());
  } catch (const std::invalid_argument& e) {
    throw refused(e.what());
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.rfind("discovery", 0) == 0) throw http::ApiError::validation("issuer", what);
    if (what.find("already") != std::string::npos)
      throw http::ApiError::failed(409, "The site has a provider of that name");
    throw;
  }
  audit(ctx, actor, "providers.add", "provider " + p.name,
        p.type + ", " + upstream::identity_issuer(p) + (p.trust_email ? ", trusts its addresses" : ""));
  return p;
}

void remove_provider(core::Context& ctx, const Actor& actor, const std::string& name) {
  require_role(actor, Role::kAdmin);
  if (!db::UpstreamRepo(ctx.db).remove_provider(actor.site_id, name)) {
    throw http::ApiError::failed(404, "Provider not found");
  }
  audit(ctx, actor, "providers.remove", "provider " + name);
}

}  // namespace svc::manage

// /admin/sites/{site}/settings and /key: the Settings capability
// (manage/settings.hpp) and the site key (manage/site_key.hpp).
#include "config/config.hpp"
#include "http/api_error.hpp"
#include "manage/settings.hpp"
#include "manage/site_key.hpp"
#include "manage_api/body.hpp"
#include "manage_api/guard.hpp"
#include "manage_api/handlers_list.hpp"
#include "manage_api/replies.hpp"

namespace svc::manage_api {
namespace {

using manage::Role;

// {"status":"Success","settings":{...},"takes_effect_within_seconds":N}:
// workers cache a site for [server] site_cache_seconds.
http::Response settings_reply(core::Context& ctx, const manage::SiteSettings& s) {
  http::JsonWriter w;
  success(w);
  w.open("settings").kv("name", s.name).kv("email_from", s.email_from);
  write_nullable(w, "email_cc", s.email_cc);
  write_nullable(w, "email_bcc", s.email_bcc);
  w.kv("disable_email", s.disable_email)
      .kv("verify_email", s.verify_email)
      .kv("new_device_mail", s.new_device_mail)
      .kv("min_password_score", s.min_password_score);
  write_strings(w, "reset_urls", s.reset_urls);
  write_nullable(w, "passkey_rp_id", s.passkey_rp_id);
  write_strings(w, "passkey_origins", s.passkey_origins);
  w.close();
  w.kv("takes_effect_within_seconds", ctx.config.server.site_cache_seconds);
  return reply(w);
}

}  // namespace

http::Response settings_show(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kViewer);
  return settings_reply(ctx, manage::read_settings(ctx, actor));
}

http::Response settings_update(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kAdmin);
  const auto& body = request.json;
  only_members(body, {"name", "email_from", "email_cc", "email_bcc", "disable_email", "verify_email", "new_device_mail",
                      "min_password_score", "reset_urls", "passkey_rp_id", "passkey_origins"});
  manage::SettingsChange change;
  change.name = nullable_string(body, "name", 190);
  change.email_from = nullable_string(body, "email_from", 320);
  if (auto cc = nullable_string(body, "email_cc", 254)) change.email_cc = manage::CopyUser{*cc, 0};
  if (auto bcc = nullable_string(body, "email_bcc", 254)) change.email_bcc = manage::CopyUser{*bcc, 0};
  change.disable_email = optional_bool(body, "disable_email");
  change.verify_email = optional_bool(body, "verify_email");
  change.new_device_mail = optional_bool(body, "new_device_mail");
  change.min_password_score = optional_integer(body, "min_password_score");
  change.reset_urls = optional_strings(body, "reset_urls", 20, 2048);
  change.passkey_rp_id = nullable_string(body, "passkey_rp_id", 253);
  change.passkey_origins = optional_strings(body, "passkey_origins", 20, 2048);
  if (change.empty()) throw http::ApiError::validation("body", "Name at least one setting to change");
  return settings_reply(ctx, manage::update_settings(ctx, actor, change));
}

http::Response site_key_rotate(const http::Request& request, core::Context& ctx) {
  const manage::Actor actor = require_admin(request, ctx, Role::kOwner, Change::kDestructive);
  const std::string key = manage::rotate_site_key(ctx, actor);
  http::JsonWriter w;
  success(w);
  w.kv("site_key", key).kv("takes_effect_within_seconds", ctx.config.server.site_cache_seconds);
  return reply(w);
}

}  // namespace svc::manage_api

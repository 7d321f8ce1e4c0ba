// The /auth/passkey/* routes (docs/api.md "Passkeys"): read and check the
// fields, call auth/passkey/service.hpp, write the reply.

#include "auth/handlers.hpp"

#include "auth/app_id.hpp"
#include "auth/auth_common.hpp"
#include "auth/mfa/bearer.hpp"
#include "auth/mfa/mail.hpp"
#include "auth/passkey/service.hpp"
#include "auth/session/sessions.hpp"
#include "core/text.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "webhooks/events.hpp"

namespace svc::auth {
namespace {

http::Response ceremony_reply(const passkey::Ceremony& c) {
  http::JsonWriter w;
  w.open().kv("status", "Success").kv_raw("options", c.options_json).kv("challenge_token", c.challenge_token).close();
  return http::Response::json(200, w.str());
}

// One passkey as list and register show it; `key` "" inside an array.
void write_passkey(http::JsonWriter& w, const db::Passkey& k, std::string_view key = "") {
  if (key.empty()) {
    w.open();
  } else {
    w.open(key);
  }
  w.kv("id", k.id).kv("name", k.name).kv("created_at", k.created_at);
  if (k.last_used_at > 0) {
    w.kv("last_used_at", k.last_used_at);
  } else {
    w.kv_null("last_used_at");
  }
  w.kv("synced", k.backup_eligible).kv("backed_up", k.backed_up).close();
}

// A passkey's name: without leading and trailing blanks, at most 255
// bytes, no control characters (it is shown on one line of a page and in
// the notice mail). nullopt when absent (only with `required` false) or
// wrong, the error then added to `fields`.
std::optional<std::string> passkey_name(http::Fields& fields, bool required) {
  auto name = required ? fields.required_string("name", 255) : fields.optional_string("name", 255);
  if (!name) return std::nullopt;
  const std::string trimmed(core::trim_blanks(*name));
  if (required && trimmed.empty()) {
    fields.add("name", "name is required");
    return std::nullopt;
  }
  if (core::has_name_controls(trimmed)) {
    fields.add("name", "name must not contain control characters");
    return std::nullopt;
  }
  return trimmed;
}

http::Response passkey_reply(const db::Passkey& k) {
  http::JsonWriter w;
  w.open().kv("status", "Success");
  write_passkey(w, k, "passkey");
  w.close();
  return http::Response::json(200, w.str());
}

}  // namespace

http::Response passkey_register_options(const http::Request& request, core::Context& ctx) {
  const SignedInUser me = require_signed_in(request, ctx);
  require_enrolment_allowed(me, ctx);
  return ceremony_reply(passkey::open_registration(me, ctx));
}

http::Response passkey_register(const http::Request& request, core::Context& ctx) {
  const SignedInUser me = require_signed_in(request, ctx);
  require_enrolment_allowed(me, ctx);
  http::Fields fields(request.json);
  auto token = fields.required_string("challenge_token", 128);
  auto name = passkey_name(fields, false);
  auto response = passkey::read_registration(fields);
  fields.throw_if_errors();
  const std::string label = name && !name->empty() ? *name : "Passkey";
  return passkey_reply(passkey::finish_registration(me, *token, *response, label, request, ctx));
}

http::Response passkey_login_options(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto mfa_token = fields.optional_string("mfa_token", 128);
  if (mfa_token) {
    fields.throw_if_errors();
    return ceremony_reply(passkey::open_second_factor(ctx, *mfa_token));
  }
  auto app_id = fields.required_id("appID");
  std::optional<std::string> email;
  if (fields.optional_string("email", 254)) email = email_field(fields);
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  return ceremony_reply(passkey::open_login(ctx, *app_id, email, *table));
}

http::Response passkey_login(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto token = fields.required_string("challenge_token", 128);
  auto response = passkey::read_authentication(fields);
  fields.throw_if_errors();
  passkey::LoginResult result = passkey::finish_login(*token, *response, request, ctx);
  switch (result.outcome) {
    case passkey::LoginOutcome::kOk:
      break;
    case passkey::LoginOutcome::kExpired:
      throw http::ApiError::failed(401, "Passkey challenge expired, start again");
    case passkey::LoginOutcome::kRefused:
      throw http::ApiError::failed(401, "Passkey not accepted");
    case passkey::LoginOutcome::kThrottled:
      throw http::ApiError::too_many("Too many attempts", result.retry_after);
  }
  return session_reply(result.session, Profile::kWithRole);
}

http::Response passkey_list(const http::Request& request, core::Context& ctx) {
  const SignedInUser me = require_signed_in(request, ctx);
  passkey::relying_party(ctx, me.app_id);
  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("passkeys");
  for (const auto& k : db::PasskeyRepo(ctx.db).list(me.app_id, me.table.str(), me.user.id)) write_passkey(w, k);
  w.close_array().close();
  return http::Response::json(200, w.str());
}

// No notice mail, no webhook event and no session ends: a name changes
// nothing a sign-in depends on.
http::Response passkey_rename(const http::Request& request, core::Context& ctx) {
  const SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto id = fields.required_id("id");
  auto name = passkey_name(fields, true);
  fields.throw_if_errors();
  passkey::relying_party(ctx, me.app_id);
  auto renamed = db::PasskeyRepo(ctx.db).rename(me.app_id, me.table.str(), me.user.id, *id, *name);
  if (!renamed) throw http::ApiError::failed(404, "Passkey not found");
  audit(ctx, request, "passkey_renamed", me.table.str(), me.user.id, me.app_id, std::to_string(*id));
  return passkey_reply(*renamed);
}

http::Response passkey_delete(const http::Request& request, core::Context& ctx) {
  const SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto id = fields.required_id("id");
  fields.throw_if_errors();
  passkey::relying_party(ctx, me.app_id);
  if (!webhooks::change_with_event(
          ctx.db, me.app_id, "user.passkey_removed", db::user_data(me.table.str(), me.user.id, me.user.email),
          [&] { return db::PasskeyRepo(ctx.db).remove(me.app_id, me.table.str(), me.user.id, *id); })) {
    throw http::ApiError::failed(404, "Passkey not found");
  }
  audit(ctx, request, "passkey_removed", me.table.str(), me.user.id, me.app_id, std::to_string(*id));
  queue_mfa_mail(ctx, request, me.app_id, me.table, me.user, MfaChange::kPasskeyRemoved);
  end_sessions(ctx, me.table.str(), me.user.id, "passkey_removed", me.sid);  // every other session
  return http::Response::json(200, R"({"status":"Success"})");
}

}  // namespace svc::auth

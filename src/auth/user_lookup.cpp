#include <sodium.h>

#include <cstdio>

#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "crypto/encoding.hpp"
#include "crypto/sealed_id.hpp"
#include "db/sms_code_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "sms/sms_gateway.hpp"

namespace svc::auth {
namespace {

// The user named by the encrypted `userId` of the request. A token that does
// not decrypt (or is a customer id) is the spec's 500; an expired one 400.
db::User sealed_user(http::Fields& fields, core::Context& ctx) {
  auto token = fields.required_string("userId", 1024);
  fields.throw_if_errors();
  auto opened = crypto::open_id(*token, crypto::IdPurpose::User, ctx.config.keys.id_key);
  if (!opened) throw http::ApiError::failed(500, http::kGenericError);
  if (opened->exp <= ctx.clock.now()) throw http::ApiError::failed(400, "Token expired");
  const auto& table = ctx.config.auth.tables.front();
  auto user = db::UserRepo(ctx.db, *db::allowlisted(table, ctx.config.auth.tables)).find_by_id(opened->id);
  if (!user) throw http::ApiError::failed(404, "User not found");
  return *user;
}

std::string code_hash(core::Context& ctx, long long user_id, const std::string& code) {
  return crypto::hmac_sha256(ctx.config.keys.sms_key, std::to_string(user_id) + ":" + code);
}

}  // namespace

http::Response user_email(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  db::User user = sealed_user(fields, ctx);
  http::JsonWriter w;
  w.open().kv("status", "Success").kv("email", user.email).kv("role", user.role).close();
  return http::Response::json(200, w.str());
}

http::Response user_sms_code(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  db::User user = sealed_user(fields, ctx);
  if (user.mobile.empty()) throw http::ApiError::failed(400, "Mobile number missing");

  const auto& cfg = ctx.config.auth;
  const std::string& table = cfg.tables.front();
  const long long now = ctx.clock.now();
  db::SmsCodeRepo codes(ctx.db);
  char code[8];
  std::snprintf(code, sizeof code, "%06u", randombytes_uniform(1000000));
  if (!codes.store(user.id, table, code_hash(ctx, user.id, code), now + cfg.sms_code_ttl, now,
                   cfg.sms_resend_seconds)) {
    sodium_memzero(code, sizeof code);
    auto last = codes.find(user.id, table);
    long long wait = last ? std::max(1LL, last->created_at + cfg.sms_resend_seconds - now) : 1;
    http::JsonWriter w;
    w.open().kv("status", "Failed").kv("message", "Too many requests").kv("retry_after", wait).close();
    throw http::ApiError(429, w.str());
  }
  std::string text = ctx.config.sms.message;
  if (size_t at = text.find("[code]"); at != std::string::npos) text.replace(at, 6, code);
  sms::SmsResult sent = ctx.sms.send(user.mobile, text);
  sodium_memzero(code, sizeof code);
  if (!sent.ok) {
    codes.remove(user.id, table);  // a code nobody received must not stay valid
    core::LogLine("error", "sms_send_failed").str("request_id", request.request_id).num("user_id", user.id)
        .str("detail", sent.detail).emit();
    throw http::ApiError::failed(500, http::kGenericError);
  }
  audit(ctx, request, "sms_code_sent", table, user.id);
  return http::Response::json(200, R"({"status":"Success","message":"SMS code sent successfully"})");
}

http::Response verify_sms_code(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto code = fields.required_string("code", 16);
  if (code && (code->size() != 6 || code->find_first_not_of("0123456789") != std::string::npos)) {
    fields.add("code", "code must be 6 digits");
  }
  db::User user = sealed_user(fields, ctx);

  const auto& cfg = ctx.config.auth;
  const std::string& table = cfg.tables.front();
  db::SmsCodeRepo codes(ctx.db);
  auto current = codes.find(user.id, table);
  auto dead = [] {
    return http::ApiError(400, R"({"status":"Failed","message":"Code expired or invalid","attempts_left":0})");
  };
  if (!current || current->spent || current->attempts >= cfg.sms_max_attempts ||
      current->expires_at <= ctx.clock.now()) {
    throw dead();
  }
  std::string hash = code_hash(ctx, user.id, *code);
  if (crypto::constant_time_equal(hash, current->code_hash) && codes.spend(user.id, table, hash)) {
    audit(ctx, request, "sms_code_verified", table, user.id);
    return http::Response::json(200, R"({"status":"Success","message":"SMS code verified"})");
  }
  if (!codes.count_failure(user.id, table, cfg.sms_max_attempts)) throw dead();
  audit(ctx, request, "sms_code_failed", table, user.id);
  http::JsonWriter w;
  w.open().kv("status", "Failed").kv("message", "Invalid code")
      .kv("attempts_left", std::max(0, cfg.sms_max_attempts - current->attempts - 1)).close();
  throw http::ApiError(400, w.str());
}

}  // namespace svc::auth

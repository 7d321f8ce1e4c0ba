#include "auth/session/sessions.hpp"

#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/mfa/bearer.hpp"
#include "core/clock.hpp"
#include "core/text.hpp"
#include "db/session_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"
#include "http/validate.hpp"

namespace svc::auth {
namespace {

void write_session(http::JsonWriter& w, const db::SessionRow& s, const std::string& current) {
  w.open().kv("id", s.id).kv("created_at", s.created_at).kv("last_seen_at", s.last_seen_at);
  w.kv("ip", s.ip).kv("user_agent", s.user_agent);
  w.open_array("amr");
  for (std::string_view m : core::split_words(s.amr)) w.s(m);
  w.close_array();
  w.kv("current", s.id == current).close();
}

}  // namespace

http::Response sessions_list(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  auto rows = db::SessionRepo(ctx.db).open_sessions(me.table.str(), me.user.id, ctx.clock.now());
  http::JsonWriter w;
  w.open().kv("status", "Success").open_array("sessions");
  for (const db::SessionRow& row : rows) write_session(w, row, me.sid);
  w.close_array().close();
  return http::Response::json(200, w.str());
}

http::Response session_revoke(const http::Request& request, core::Context& ctx) {
  SignedInUser me = require_signed_in(request, ctx);
  http::Fields fields(request.json);
  auto id = fields.required_string("id", 64);
  fields.throw_if_errors();
  if (!end_session(ctx, me.table.str(), me.user.id, *id, "user")) {
    throw http::ApiError::failed(404, "Session not found");
  }
  audit(ctx, request, "session_revoked", me.table.str(), me.user.id, me.app_id, "session " + *id);
  return http::Response::json(200, R"({"status":"Success","message":"Session revoked"})");
}

}  // namespace svc::auth

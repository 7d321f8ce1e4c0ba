#include "auth/auth_common.hpp"
#include "auth/handlers.hpp"
#include "auth/password_policy.hpp"
#include "auth/tokens.hpp"
#include "crypto/password_hasher.hpp"
#include "db/version_repo.hpp"
#include "db/user_repo.hpp"
#include "http/api_error.hpp"
#include "http/json.hpp"

namespace svc::auth {
namespace {

std::optional<std::string> name_field(http::Fields& fields, const char* name) {
  auto value = fields.optional_string(name, 1024);
  if (value && utf8_length(*value) > kMaxNameChars) {
    fields.add(name, std::string(name) + " must be at most 50 characters");
    return std::nullopt;
  }
  return value;
}

}  // namespace

// Only email, password, firstname and lastname reach the row: role, id and
// any other field in the body are ignored (no mass assignment).
http::Response sign_up(const http::Request& request, core::Context& ctx) {
  http::Fields fields(request.json);
  auto email = email_field(fields);
  auto password = password_field(fields, "password", false);
  auto first = name_field(fields, "firstname");
  auto last = name_field(fields, "lastname");
  auto app_id = fields.optional_id("appID");
  auto table = auth_table(fields, ctx);
  fields.throw_if_errors();
  require_strong_password(*password);

  db::NewUser fresh;
  fresh.email = *email;
  fresh.password_hash = ctx.hasher.hash(*password);
  fresh.first_name = first.value_or("");
  fresh.last_name = last.value_or("");

  db::Transaction tx(ctx.db);
  db::UserRepo users(ctx.db, *table);
  auto id = users.insert(fresh);
  if (!id) throw http::ApiError::failed(409, "User with this email already exists");
  http::JsonWriter snapshot;
  snapshot.open()
      .kv("id", *id)
      .kv("user_email", fresh.email)
      .kv("first_name", fresh.first_name)
      .kv("last_name", fresh.last_name)
      .kv("primary_role", fresh.role)
      .close();
  db::VersionRepo(ctx.db).record(table->str(), *id, "insert", snapshot.str());
  tx.commit();
  audit(ctx, request, "sign_up", table->str(), *id, app_id.value_or(0));

  db::User user;
  user.id = *id;
  user.email = fresh.email;
  user.first_name = fresh.first_name;
  user.last_name = fresh.last_name;
  TokenPair tokens = issue_tokens(user, table->str(), app_id.value_or(0), ctx);
  http::JsonWriter w;
  w.open().kv("status", "Success").open("token");
  write_tokens(w, tokens);
  w.open("user")
      .kv("id", user.id)
      .kv("email", user.email)
      .kv("firstName", user.first_name)
      .kv("lastName", user.last_name)
      .close()
      .close()
      .close();
  return http::Response::json(200, w.str());
}

}  // namespace svc::auth

#pragma once

#include <string>

#include "core/context.hpp"
#include "db/user_repo.hpp"
#include "http/json.hpp"

namespace svc::auth {

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
};

// Signs a fresh access (typ "access", [auth] access_ttl) and refresh (typ
// "refresh", [auth] refresh_ttl) JWT for the user of `table`, carrying the
// user's token_version so a password reset revokes earlier refresh tokens.
TokenPair issue_tokens(const db::User& user, const std::string& table, long long app_id, core::Context& ctx);

// Writes "access_token" and "refresh_token" members into an open object.
void write_tokens(http::JsonWriter& w, const TokenPair& tokens);

}  // namespace svc::auth

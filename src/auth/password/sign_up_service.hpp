#pragma once

#include <optional>
#include <string>

#include "auth/tokens/tokens.hpp"
#include "core/context.hpp"
#include "db/table_name.hpp"
#include "http/request.hpp"

// Creating an account: the user row, its svc_versions snapshot, the audit row
// and the first tokens.
namespace svc::auth {

struct NewAccount {
  std::string email;
  std::string password;  // REQUIRES: already passed require_strong_password()
  std::string first_name;
  std::string last_name;
  db::TableName table;
  long long app_id = 0;  // 0 when the request names no application
  std::string locale;    // BCP 47, normalised; "" = none (account mail in the default language)
};

// Hashes the password, then inserts the user (role "user") and its
// svc_versions "insert" snapshot in one transaction, writes a sign_up audit
// row and issues tokens. On a site with verify_email the verification mail
// is queued in the same transaction (auth/email/verification.hpp). nullopt when the e-mail is already taken (nothing is
// written then). Database errors propagate and roll the transaction back.
std::optional<Session> register_user(const NewAccount& account, const http::Request& request, core::Context& ctx);

}  // namespace svc::auth

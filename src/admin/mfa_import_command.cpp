#include "admin/mfa_import_command.hpp"

#include <cstdio>

#include "admin/command_env.hpp"
#include "app/services.hpp"
#include "auth/mfa/totp_factor.hpp"
#include "core/text.hpp"
#include "crypto/totp.hpp"
#include "db/audit_repo.hpp"

namespace svc::admin {

int cmd_users_mfa_import(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "table", "site", "secret-file"});
  const std::string file = args.required("secret-file");
  // Authenticator exports write the secret in groups and either case.
  std::string text;
  for (char c : read_text_file("secret-file", file)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t' && c != '=')
      text += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
  }
  auto secret = crypto::base32_decode(text);
  if (!secret || secret->size() < 10) {
    throw UsageError("--secret-file must hold a base32 TOTP secret of at least 80 bits (16 characters)");
  }
  CommandEnv env(config_path);
  const NamedUser who = named_user(args, env);
  app::Services services(env.config);
  if (!auth::import_totp(services.context(), who.table, who.user, *secret)) {
    throw std::runtime_error("user " + who.user.email + " already has a second factor (users mfa-reset first)");
  }
  db::AuditEvent event;
  event.event = "mfa_imported";
  event.auth_table = who.table.str();
  event.user_id = who.user.id;
  event.pool_id = who.user.pool_id;
  event.detail = "svc-admin users mfa-import";
  db::AuditRepo(env.db).record(event);
  std::printf("second factor imported for %s\n", who.user.email.c_str());
  return 0;
}

}  // namespace svc::admin

#include "admin/session_commands.hpp"

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "admin/command_env.hpp"
#include "admin/listing.hpp"
#include "app/services.hpp"
#include "auth/session/sessions.hpp"
#include "core/clock.hpp"
#include "db/audit_repo.hpp"
#include "db/session_repo.hpp"
#include "db/table_name.hpp"
#include "db/user_repo.hpp"

namespace svc::admin {
namespace {

std::string utc(long long t) { return readable_time(t); }

void audit(CommandEnv& env, const std::string& table, long long user_id, const std::string& detail) {
  db::AuditEvent event;
  event.event = "sessions_revoked";
  event.auth_table = table;
  event.user_id = user_id;
  event.detail = detail;
  db::AuditRepo(env.db).record(event);
}

}  // namespace

int cmd_sessions_list(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "site", "table"});
  CommandEnv env(config_path);
  NamedUser who = named_user(args, env);
  const long long site = args.integer("site", 0);
  auto rows = db::SessionRepo(env.db).open_sessions(who.table.str(), who.user.id, std::time(nullptr));
  std::erase_if(rows, [&](const db::SessionRow& s) { return site != 0 && s.site_id != site; });
  return print_listing(
      rows, "no open sessions",
      "id                      site  created               last seen             ip               amr  user agent",
      [](const db::SessionRow& s) {
        std::printf("%-22s  %4lld  %s  %s  %-15s  %s  %s\n", s.id.c_str(), s.site_id, utc(s.created_at).c_str(),
                    utc(s.last_seen_at).c_str(), s.ip.c_str(), s.amr.c_str(), s.user_agent.c_str());
      });
}

int cmd_sessions_revoke(const Args& args, const std::string& config_path) {
  args.allow_only({"email", "id", "table", "site"});
  const bool by_id = args.get("id").has_value();
  if (by_id == args.get("email").has_value()) throw UsageError("sessions revoke takes --email E or --id ID");
  CommandEnv env(config_path);
  // Through auth/session's end_session(s): the session.revoked webhook
  // events go with the revocations.
  app::Services services(env.config);
  core::Context& ctx = services.context();
  if (by_id) {
    const std::string id = *args.get("id");
    auto row = db::SessionRepo(env.db).find(id);
    if (!row) throw std::runtime_error("no session with id " + id);
    const bool ended = auth::end_session(ctx, row->table, row->user_id, id, "operator");
    if (ended) audit(env, row->table, row->user_id, "svc-admin sessions revoke --id " + id);
    std::printf("%s\n", ended ? "session revoked" : "session had already ended");
    return 0;
  }
  NamedUser who = named_user(args, env);
  const int ended = auth::end_sessions(ctx, who.table.str(), who.user.id, "operator");
  audit(env, who.table.str(), who.user.id, "svc-admin sessions revoke --email: " + std::to_string(ended));
  std::printf("%d session(s) revoked\n", ended);
  return 0;
}

}  // namespace svc::admin

#include "admin/commands.hpp"

#include <cstdio>
#include <functional>
#include <vector>

#include "admin/command_env.hpp"
#include "admin/dkim_commands.hpp"
#include "admin/doctor.hpp"
#include "admin/key_commands.hpp"
#include "admin/mail_commands.hpp"
#include "admin/merge_query_commands.hpp"
#include "admin/outbox_commands.hpp"
#include "admin/retention_commands.hpp"
#include "admin/signing_key_commands.hpp"
#include "admin/site_commands.hpp"
#include "admin/sql_dir.hpp"
#include "admin/template_commands.hpp"
#include "admin/user_commands.hpp"
#include "config/config.hpp"
#include "crypto/encoding.hpp"
#include "db/migrations.hpp"

namespace svc::admin {
namespace {

constexpr long long kMaxBlockingRows = 100000;

void print_blocking(std::FILE* out, const db::BlockingStatement& b, long long max_rows) {
  std::fprintf(out, "%s: %s on %s (more than %lld rows: %lld counted, --max-blocking-rows %lld):\n  %s\n",
               b.migration.c_str(), b.reason.c_str(), b.table.c_str(), max_rows, b.rows, max_rows,
               db::one_line(b.statement).c_str());
}

// Prints what `migrate` would apply, statement by statement, and applies nothing.
int migrate_dry_run(const std::vector<db::Migration>& pending, const std::vector<db::BlockingStatement>& blocking,
                    long long max_rows) {
  std::printf("migrate: dry run, %zu pending\n", pending.size());
  for (const auto& m : pending) {
    std::printf("-- %s\n", m.name.c_str());
    for (const auto& statement : db::split_statements(m.sql)) std::printf("%s", statement.c_str());
  }
  for (const auto& b : blocking) {
    std::printf("would refuse: ");
    print_blocking(stdout, b, max_rows);
  }
  return 0;
}

int cmd_migrate(const Args& args, const std::string& config_path) {
  args.allow_only({"sql-dir", "dry-run", "max-blocking-rows", "allow-blocking"});
  const long long max_rows = args.integer("max-blocking-rows", kMaxBlockingRows);
  if (max_rows < 0) throw UsageError("--max-blocking-rows must be 0 or more");
  CommandEnv env(config_path);
  const std::string dir = args.get("sql-dir").value_or(default_sql_dir());
  auto migrations = db::load_migrations(dir);
  std::printf("migrate: %zu migration files in %s\n", migrations.size(), dir.c_str());
  const auto pending = db::pending_migrations(env.db, migrations);
  const auto blocking = db::blocking_statements(env.db, pending, max_rows);
  if (args.flag("dry-run")) return migrate_dry_run(pending, blocking, max_rows);
  if (!blocking.empty() && !args.flag("allow-blocking")) {
    for (const auto& b : blocking) {
      std::fprintf(stderr, "migrate: refused: ");
      print_blocking(stderr, b, max_rows);
    }
    std::fprintf(stderr,
                 "migrate: nothing applied. State ALGORITHM=INSTANT or ALGORITHM=INPLACE, LOCK=NONE (docs/deploy.md "
                 "\"Upgrades\"), or pass --allow-blocking in a maintenance window\n");
    return 1;
  }
  db::migrate(env.db, migrations, [](const std::string& line) { std::printf("%s\n", line.c_str()); });
  // The first access-token signing key, so a fresh install issues tokens.
  const std::string kid = ensure_signing_key(env.config, env.db);
  if (!kid.empty()) std::printf("signing key %s created (%s)\n", kid.c_str(), env.config.tokens.access_alg.c_str());
  return 0;
}

int cmd_keygen(const Args& args, const std::string&) {
  args.allow_only({});
  auto key = [] { return crypto::base64url_encode(crypto::random_bytes(32)); };
  std::printf(
      "# Fresh secrets for /etc/svc/svc.conf. Keep the file mode 0640 and owned by root:svc.\n"
      "[keys]\n"
      "jwt_kid = %s\n"
      "jwt_secret = %s\n"
      "id_key = %s\n"
      "sms_key = %s\n"
      "reset_key = %s\n"
      "signing_kek = %s\n"
      "mfa_key = %s\n"
      "mail_key = %s\n",
      crypto::hex_encode(crypto::random_bytes(4)).c_str(), key().c_str(), key().c_str(), key().c_str(), key().c_str(),
      key().c_str(), key().c_str(), key().c_str());
  return 0;
}

int cmd_hash_password(const Args& args, const std::string& config_path) {
  args.allow_only({});
  std::printf("%s\n", CommandEnv(config_path).hash_password_from_stdin("hash-password").c_str());
  return 0;
}

struct Command {
  std::vector<std::string> words;
  std::function<int(const Args&, const std::string&)> run;
  const char* help;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {{"migrate"},
       cmd_migrate,
       "migrate [--sql-dir DIR] [--dry-run] [--max-blocking-rows 100000] [--allow-blocking]\n"
       "                                 apply new sql/NNN_*.sql migrations; refuse a statement that\n"
       "                                 would copy or lock a larger table (--dry-run: print, apply nothing)"},
      {{"keygen"}, cmd_keygen, "keygen                           print a fresh [keys] section"},
      {{"doctor"},
       cmd_doctor,
       "doctor [--socket ADDR] [--nginx-snippet PATH] [--nginx-front-secret PATH] [--sql-dir DIR]\n"
       "               [--max-pending-age 1h] [--sender-max-age 10m] [--timeout 5]\n"
       "                                 check the deployment, one row per check"},
      {{"hash-password"}, cmd_hash_password, "hash-password < password         print an Argon2id hash"},
      {{"site", "create"}, cmd_site_create, "site create --name N [site options]   create a site (prints its id)"},
      {{"site", "set"}, cmd_site_set, "site set --site ID [site options]     change a site"},
      {{"site", "show"}, cmd_site_show, "site show --site ID                   show a site (no secrets)"},
      {{"site", "list"}, cmd_site_list, "site list                             list sites"},
      {{"signing-keys", "list"},
       cmd_signing_keys_list,
       "signing-keys list                     the access-token signing keys and their state"},
      {{"signing-keys", "rotate"},
       cmd_signing_keys_rotate,
       "signing-keys rotate [--alg ES256|EdDSA] [--now]   publish a new key; it signs after 300 s + the\n"
       "               workers' key cache (--now: at once); prints its kid"},
      {{"signing-keys", "retire"},
       cmd_signing_keys_retire,
       "signing-keys retire KID [--now]       unpublish KID once its last token expired (--now: at once)"},
      {{"mint-user-id"}, cmd_mint_user_id, "mint-user-id --user N [--ttl 1h]      print an encrypted user id"},
      {{"mint-customer-id"},
       cmd_mint_customer_id,
       "mint-customer-id --customer N [--ttl 30d]  print an encrypted customer id (web push)"},
      {{"vapid-keys"},
       cmd_vapid_keys,
       "vapid-keys --site N [--force]         make the site's VAPID keys, print the public key"},
      {{"dkim-keys"},
       cmd_dkim_keys,
       "dkim-keys --site N --selector S [--algorithm rsa-sha256|ed25519-sha256] [--force]\n"
       "               make the site's DKIM key, print the DNS TXT record to publish"},
      {{"user", "create"},
       cmd_user_create,
       "user create --email E [--first F --last L --role R --mobile M --table T] [--verified] < password\n"
       "               (--verified: the address is proven, as a verification link would)"},
      {{"users", "mfa-reset"},
       cmd_users_mfa_reset,
       "users mfa-reset --email E [--table T]   remove a user's second factor (lost device)"},
      {{"template", "set"},
       cmd_template_set,
       "template set --site N --event E --subject-file F --content-file F [--from ADDR] [--bcc LIST]\n"
       "               [--enabled true|false] [--locale de]   create or update a site's e-mail template\n"
       "               (--locale: one language of it; without: the default)"},
      {{"template", "enable"},
       cmd_template_enable,
       "template enable --site N --event E [--locale L]    let the API trigger it"},
      {{"template", "disable"},
       cmd_template_disable,
       "template disable --site N --event E [--locale L]   stop the API triggering it"},
      {{"template", "list"},
       cmd_template_list,
       "template list --site N | --builtin [--site N]\n"
       "                                      list a site's templates, or the built-in ones"},
      {{"template", "priority"},
       cmd_template_priority,
       "template priority --site N --event E --priority normal|bulk   mark a template bulk (claimed last;\n"
       "               every locale; bulk mail carries one-click unsubscribe)"},
      {{"merge-query", "set"},
       cmd_merge_query_set,
       "merge-query set --site N --name NAME --sql-file F   create or update a named merge SELECT"},
      {{"merge-query", "list"},
       cmd_merge_query_list,
       "merge-query list --site N             list a site's merge queries"},
      {{"outbox", "stats"},
       cmd_outbox_stats,
       "outbox stats                          rows per status, oldest Pending age"},
      {{"outbox", "retry"},
       cmd_outbox_retry,
       "outbox retry ID                       re-queue a Failed row (attempts 0, due now)"},
      {{"outbox", "list"},
       cmd_outbox_list,
       "outbox list [--status Pending|Sent|Failed] [--site N] [--limit N]   newest first (default Failed, 20)"},
      {{"outbox", "purge"},
       cmd_outbox_purge,
       "outbox purge --older-than 30d [--status Sent|Failed|Pending] [--batch 1000] [--pause-ms 20] [--dry-run]\n"
       "               delete old rows in batches (default Sent and Failed)"},
      {{"mail", "ingest"},
       cmd_mail_ingest,
       "mail ingest [--recipient ADDR] < message   read a bounce or complaint (MTA pipe; sysexits codes)"},
      {{"mail", "purge-bounces"},
       cmd_bounces_purge,
       "mail purge-bounces --older-than 90d [--batch 1000] [--pause-ms 20] [--dry-run]\n"
       "               delete old bounce and complaint notes (suppressions stay)"},
      {{"suppression", "list"},
       cmd_suppression_list,
       "suppression list [--site N] [--reason bounce|complaint|unsubscribe|manual] [--limit 100]"},
      {{"suppression", "add"},
       cmd_suppression_add,
       "suppression add --site N --email E [--reason manual] [--detail TEXT]   stop mail to an address"},
      {{"suppression", "remove"},
       cmd_suppression_remove,
       "suppression remove --site N --email E [--reason R]   let mail go to it again"},
      {{"audit", "purge"},
       cmd_audit_purge,
       "audit purge --older-than 180d [--batch 1000] [--pause-ms 20] [--dry-run]   delete old audit rows"},
  };
  return kCommands;
}

}  // namespace

std::string usage() {
  std::string out =
      "usage: svc-admin [--config FILE] COMMAND [options]\n"
      "  --config FILE defaults to $SVC_CONFIG, then /etc/svc/svc.conf\n\ncommands:\n";
  for (const auto& c : commands()) out += std::string("  ") + c.help + "\n";
  out += "\n" + site_options_help();
  return out;
}

int run_command(const Args& args, const std::string& config_path) {
  const auto& words = args.words();
  for (const auto& c : commands()) {
    if (words.size() >= c.words.size() && std::equal(c.words.begin(), c.words.end(), words.begin())) {
      return c.run(args, config_path);
    }
  }
  throw UsageError("unknown command '" + (words.empty() ? std::string() : words[0]) + "'");
}

}  // namespace svc::admin

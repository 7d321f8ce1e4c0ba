#include "admin/commands.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <vector>

#include "admin/command_env.hpp"
#include "admin/dkim_commands.hpp"
#include "admin/doctor.hpp"
#include "admin/key_commands.hpp"
#include "admin/mail_commands.hpp"
#include "admin/manage_commands.hpp"
#include "admin/merge_query_commands.hpp"
#include "admin/mfa_import_command.hpp"
#include "admin/oauth_client_commands.hpp"
#include "admin/outbox_commands.hpp"
#include "admin/password_commands.hpp"
#include "admin/retention_commands.hpp"
#include "admin/session_commands.hpp"
#include "admin/signing_key_commands.hpp"
#include "admin/site_commands.hpp"
#include "admin/sql_dir.hpp"
#include "admin/template_commands.hpp"
#include "admin/upstream_commands.hpp"
#include "admin/user_commands.hpp"
#include "admin/webhook_commands.hpp"
#include "config/config.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/migrations.hpp"
#include "db/user_pool_ddl.hpp"

namespace svc::admin {
namespace {

constexpr long long kMaxBlockingRows = 100000;

void print_blocking(std::FILE* out, const db::BlockingStatement& b, long long max_rows) {
  std::fprintf(out, "%s: %s on %s (more than %lld rows: %lld counted, --max-blocking-rows %lld):\n  %s\n",
               b.migration.c_str(), b.reason.c_str(), b.table.c_str(), max_rows, b.rows, max_rows,
               db::one_line(b.statement).c_str());
}

// Prints what `migrate` would apply, statement by statement, and applies nothing.
// The user-pool statements every table of [auth] tables needs (sql/034
// does svc_users; db/user_pool_ddl.hpp the others), in the order of the list.
std::vector<std::pair<std::string, std::vector<std::string>>> auth_table_ddl(CommandEnv& env) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& name : env.config.auth.tables) {
    if (name == "svc_users") continue;  // sql/034
    auto table = db::allowlisted(name, env.config.auth.tables);
    auto statements = db::user_pool_ddl(env.db, *table);
    if (!statements.empty()) out.emplace_back(name, std::move(statements));
  }
  return out;
}

int migrate_dry_run(CommandEnv& env, const std::vector<db::Migration>& pending,
                    const std::vector<db::BlockingStatement>& blocking, long long max_rows) {
  std::printf("migrate: dry run, %zu pending\n", pending.size());
  for (const auto& m : pending) {
    std::printf("-- %s\n", m.name.c_str());
    for (const auto& statement : db::split_statements(m.sql)) std::printf("%s", statement.c_str());
  }
  // Before sql/034 has run on svc_users these are what it will need then.
  for (const auto& [table, statements] : auth_table_ddl(env)) {
    std::printf("-- [auth] tables: %s (user pools)\n", table.c_str());
    for (const auto& statement : statements) std::printf("%s;\n", statement.c_str());
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
  if (args.flag("dry-run")) return migrate_dry_run(env, pending, blocking, max_rows);
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
  // Each line as it happens (flushed: a pipe would hold it until the end).
  db::migrate(env.db, migrations, [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  });
  for (const auto& [table, statements] : auth_table_ddl(env)) {
    for (const auto& statement : statements) {
      std::printf("migrate: %s: %s\n", table.c_str(), statement.c_str());
      std::fflush(stdout);
      env.db.execute_trusted(statement);
    }
  }
  // The first access-token signing key, so a fresh install issues tokens.
  const std::string kid = ensure_signing_key(env.config, env.db);
  if (!kid.empty()) std::printf("signing key %s created (%s)\n", kid.c_str(), env.config.tokens.access_alg.c_str());
  // The first ID-token key (RS256) of the OpenID Connect provider.
  const std::string id_kid = ensure_id_token_key(env.config, env.db);
  if (!id_kid.empty()) std::printf("signing key %s created (RS256)\n", id_kid.c_str());
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
      "mail_key = %s\n"
      "webhook_key = %s\n",
      crypto::hex_encode(crypto::random_bytes(4)).c_str(), key().c_str(), key().c_str(), key().c_str(), key().c_str(),
      key().c_str(), key().c_str(), key().c_str(), key().c_str());
  return 0;
}

int cmd_hash_password(const Args& args, const std::string& config_path) {
  args.allow_only({});
  std::printf("%s\n", CommandEnv(config_path).hash_password_from_stdin("hash-password").c_str());
  return 0;
}

// `svc-admin help [TOPIC]`, `TOPIC --help`: the commands of a family or one
// command's line; with no topic, the whole help. Defined below the table.
int print_help(const Args& args, const std::string& config_path);

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
      {{"help"},
       print_help,
       "help [COMMAND]                   all commands, or those of one family (site, template...)"},
      {{"keygen"}, cmd_keygen, "keygen                           print a fresh [keys] section"},
      {{"doctor"},
       cmd_doctor,
       "doctor [--socket ADDR] [--nginx-snippet PATH] [--nginx-front-secret PATH] [--sql-dir DIR]\n"
       "               [--max-pending-age 1h] [--sender-max-age 10m] [--timeout 5]\n"
       "                                 check the deployment, one row per check"},
      {{"hash-password"}, cmd_hash_password, "hash-password < password         print an Argon2id hash"},
      {{"passwords", "import-breached"},
       cmd_passwords_import_breached,
       "passwords import-breached FILE [--min-count 1]   read the Have I Been Pwned list (SHA1:COUNT lines,\n"
       "               ordered by hash; - = stdin) into [auth] breached_list (no network)"},
      {{"site", "admin", "add"},
       cmd_site_admin_add,
       "site admin add --site N --email E --role owner|admin|viewer   let a user of the site's pool run it"},
      {{"site", "admin", "list"},
       cmd_site_admin_list,
       "site admin list --site N              the site's administrators"},
      {{"site", "admin", "remove"},
       cmd_site_admin_remove,
       "site admin remove --site N --email E   take a user's role on the site away"},
      {{"site", "provider", "add"},
       cmd_site_provider_add,
       "site provider add --site N --name NAME [--type oidc|github] [--issuer URL] [--tenant T]\n"
       "               [--api-url URL --authorize-url URL --token-url URL] --client-id ID\n"
       "               --client-secret-file FILE [--scopes S] [--trust-email] [--team-id T --key-id K]\n"
       "                                 sign in with an upstream provider (presets google, microsoft,\n"
       "                                 apple, gitlab, github); prints the callback URI to register;\n"
       "                                 apple: --team-id, --key-id and the .p8 key as the secret file\n"
       "                                 make svc mint the client secret at each token request"},
      {{"site", "provider", "list"},
       cmd_site_provider_list,
       "site provider list --site N           the site's upstream providers and their callback URIs"},
      {{"site", "provider", "remove"},
       cmd_site_provider_remove,
       "site provider remove --site N --name NAME   no more sign-in through it"},
      {{"site", "create"}, cmd_site_create, "site create --name N [site options]   create a site (prints its id)"},
      {{"site", "set"}, cmd_site_set, "site set --site ID [site options]     change a site"},
      {{"site", "show"}, cmd_site_show, "site show --site ID                   show a site (no secrets)"},
      {{"site", "list"}, cmd_site_list, "site list                             list sites"},
      {{"signing-keys", "list"},
       cmd_signing_keys_list,
       "signing-keys list                     the access-token signing keys and their state"},
      {{"signing-keys", "rotate"},
       cmd_signing_keys_rotate,
       "signing-keys rotate [--alg ES256|EdDSA|RS256] [--now]   publish a new key; it signs after 300 s + the\n"
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
      {{"user", "list"},
       cmd_user_list,
       "user list --site N [--prefix P] [--limit N] [--cursor C]   the users of the site's pool, by address"},
      {{"user", "find"}, cmd_user_find, "user find TEXT --site N               users whose address begins with TEXT"},
      {{"user", "show"},
       cmd_user_show,
       "user show --site N (--email E | --id ID)   a user: profile, factors, passkeys, sessions"},
      {{"user", "disable"},
       cmd_user_disable,
       "user disable --site N --email E       refuse their sign-in and end their sessions"},
      {{"user", "enable"}, cmd_user_enable, "user enable --site N --email E        let a disabled user sign in again"},
      {{"user", "create"},
       cmd_user_create,
       "user create --email E [--site N] [--first F --last L --role R --mobile M --table T] [--verified] < password\n"
       "               (in the user pool of site N, else the default pool; --verified: the address is\n"
       "               proven, as a verification link would)"},
      {{"user", "delete"},
       cmd_user_delete,
       "user delete --email E [--site N] [--table T]   delete a user and every row keyed to them\n"
       "               (audit keeps a hashed id; the notice comes from site N, else from svc)"},
      {{"user", "export"},
       cmd_user_export,
       "user export --email E [--site N] [--table T]   print every row about a user as JSON"},
      {{"users", "mfa-reset"},
       cmd_users_mfa_reset,
       "users mfa-reset --email E [--site N] [--table T]   remove a user's second factor (lost device)"},
      {{"users", "mfa-import"},
       cmd_users_mfa_import,
       "users mfa-import --email E [--site N] --secret-file FILE   a TOTP secret from another system as the factor"},
      {{"user", "invite"},
       cmd_user_invite,
       "user invite --site N --email E [--first F --last L --role R]   create a user with no password and mail\n"
       "               them an invitation with a set-password link"},
      {{"user", "reset-password"},
       cmd_user_reset_password,
       "user reset-password --site N --email E   mail the user the site's password-reset link"},
      {{"user", "resend-verification"},
       cmd_user_resend_verification,
       "user resend-verification --site N --email E   mail the user a new address-verification link"},
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
      {{"template", "show"},
       cmd_template_show,
       "template show --site N (--id ID | --event E [--locale L])   a template, its version and content"},
      {{"template", "preview"},
       cmd_template_preview,
       "template preview --site N (--id ID | --event E [--locale L]) [--data JSON]\n"
       "               the subject, HTML and text parts the mail would carry with sample data"},
      {{"template", "versions"},
       cmd_template_versions,
       "template versions --site N (--id ID | --event E [--locale L]) [--limit N] [--cursor C]\n"
       "               every saved version, newest first"},
      {{"template", "rollback"},
       cmd_template_rollback,
       "template rollback --site N (--id ID | --event E [--locale L]) --to-version V   save version V again"},
      {{"template", "test-send"},
       cmd_template_test_send,
       "template test-send --site N (--id ID | --event E [--locale L]) --to ADDR [--data JSON]\n"
       "               queue the merged mail to ADDR only, through the outbox"},
      {{"template", "delete"},
       cmd_template_delete,
       "template delete --site N (--id ID | --event E [--locale L])   delete a template and its versions"},
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
       "outbox retry ID [--site N]            re-queue a Failed row (attempts 0, due now)"},
      {{"outbox", "show"},
       cmd_outbox_show,
       "outbox show ID [--site N]             a row: its status history and the message it sends"},
      {{"outbox", "list"},
       cmd_outbox_list,
       "outbox list [--status Pending|Sent|Failed] [--site N] [--limit N]   newest first (default Failed, 20)\n"
       "               with --site: [--event E] [--recipient ADDR] [--since DATE] [--until DATE]"},
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
      {{"sessions", "list"},
       cmd_sessions_list,
       "sessions list --email E [--site N] [--table T]   a user's open sessions, newest first"},
      {{"sessions", "revoke"},
       cmd_sessions_revoke,
       "sessions revoke --email E [--site N] [--table T] | --id ID   end a user's sessions, or one (refresh refused)"},
      {{"sessions", "purge"},
       cmd_sessions_purge,
       "sessions purge --older-than 30d [--batch 1000] [--pause-ms 20] [--dry-run]   delete ended sessions"},
      {{"oauth", "purge"},
       cmd_oauth_purge,
       "oauth purge --older-than 30d [--batch 1000] [--pause-ms 20] [--dry-run]\n"
       "               delete expired OpenID Connect requests and codes, ended sign-on cookies and grants"},
      {{"oauth-client", "create"},
       cmd_oauth_client_create,
       "oauth-client create --site N --name NAME --redirect-uri URI [--redirect-uri URI ...]\n"
       "               [--post-logout-redirect-uri URI ...] [--frontchannel-logout-uri URI]\n"
       "               [--public] [--first-party] [--id-token-alg RS256|ES256|EdDSA] [--json]\n"
       "               an OpenID Connect client; prints client_id, client_secret (once) and issuer"},
      {{"oauth-client", "list"}, cmd_oauth_client_list, "oauth-client list [--site N]     the OpenID Connect clients"},
      {{"oauth-client", "show"}, cmd_oauth_client_show, "oauth-client show CLIENT_ID      a client's settings"},
      {{"oauth-client", "rotate-secret"},
       cmd_oauth_client_rotate_secret,
       "oauth-client rotate-secret CLIENT_ID [--json]   a new secret at once; prints it"},
      {{"oauth-client", "delete"},
       cmd_oauth_client_delete,
       "oauth-client delete CLIENT_ID    remove a client and end the sessions granted to it"},
      {{"webhook", "add"},
       cmd_webhook_add,
       "webhook add --site N --url URL --events E,E...   subscribe an endpoint; prints its whsec_ secret once"},
      {{"webhook", "list"},
       cmd_webhook_list,
       "webhook list --site N               the site's endpoints, id and state first"},
      {{"webhook", "disable"},
       cmd_webhook_disable,
       "webhook disable ID                   stop delivering to an endpoint"},
      {{"webhook", "enable"},
       cmd_webhook_enable,
       "webhook enable ID                    deliver again (failure count cleared; pending deliveries go)"},
      {{"webhook", "rotate-secret"},
       cmd_webhook_rotate_secret,
       "webhook rotate-secret ID             print a new secret; the old one signs beside it for a day"},
      {{"webhook", "delete"},
       cmd_webhook_delete,
       "webhook delete ID                    remove an endpoint and drop its queue"},
      {{"webhook", "deliveries"},
       cmd_webhook_deliveries,
       "webhook deliveries --site N [--endpoint ID] [--limit 50] [--cursor C]   the site's deliveries, newest first"},
      {{"audit", "purge"},
       cmd_audit_purge,
       "audit purge --older-than 180d [--batch 1000] [--pause-ms 20] [--dry-run]   delete old audit rows"},
      // After "audit purge": find_command takes the first row whose words begin the typed ones.
      {{"audit"}, cmd_audit_list, "audit --site N [--limit N] [--cursor C]   the changes made to a site, newest first"},
  };
  return kCommands;
}

// The command's name as typed: "site create", "migrate".
std::string name_of(const Command& c) { return core::join(c.words, " "); }

bool starts_with_words(const std::vector<std::string>& words, const std::vector<std::string>& prefix) {
  return words.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), words.begin());
}

const Command* find_command(const std::vector<std::string>& words) {
  for (const auto& c : commands()) {
    if (starts_with_words(words, c.words)) return &c;
  }
  return nullptr;
}

// True when `word` is the first word of commands that have a second (site,
// template, outbox...): a family with help of its own.
bool is_family(const std::string& word) {
  return std::any_of(commands().begin(), commands().end(),
                     [&](const Command& c) { return c.words.size() == 2 && c.words[0] == word; });
}

// Levenshtein distance of two short ASCII strings.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The command nearest to what was typed (each command compared with as many
// typed words as it has), or nullptr when none is near: at most 2 edits,
// or a quarter of its name.
const Command* nearest_command(const std::vector<std::string>& words) {
  const Command* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& c : commands()) {
    const std::size_t n = std::min(words.size(), c.words.size());
    const std::string typed = core::join(std::vector<std::string>(words.begin(), words.begin() + n), " ");
    const std::string name = name_of(c);
    const std::size_t d = edit_distance(typed, name);
    if (d <= std::max<std::size_t>(2, name.size() / 4) && (!best || d < best_distance)) {
      best = &c;
      best_distance = d;
    }
  }
  return best;
}

UsageError unknown_command(const std::vector<std::string>& words) {
  std::string message = "unknown command '" + core::join(words, " ") + "'";
  if (const Command* near = nearest_command(words)) {
    return UsageError(message + "; did you mean 'svc-admin " + name_of(*near) + "'?");
  }
  return UsageError(message + "; 'svc-admin help' lists the commands");
}

// The help of one family (every command whose first word is `family`) or
// of one command, with the site options where they apply.
std::string topic_help(const std::vector<std::string>& topic) {
  const Command* command = find_command(topic);
  const bool family = !command && topic.size() == 1 && is_family(topic[0]);
  if (!command && !family) throw unknown_command(topic);
  const std::string& first = topic[0];
  std::string out = "usage: svc-admin [--config FILE] " +
                    (family ? first + " COMMAND [options]" : name_of(*command) + " [options]") + "\n\ncommands:\n";
  for (const auto& c : commands()) {
    if (family ? c.words[0] == first : &c == command) out += std::string("  ") + c.help + "\n";
  }
  const bool site_options = first == "site" && (family || command->words[1] == "create" || command->words[1] == "set");
  if (site_options) out += "\n" + site_options_help();
  return out;
}

int print_help(const Args& args, const std::string&) {
  const std::vector<std::string>& words = args.words();
  std::vector<std::string> topic(words.begin() + (!words.empty() && (words[0] == "help" || words[0] == "-h") ? 1 : 0),
                                 words.end());
  if (auto value = args.get("help"); value && *value != "true") topic.push_back(*value);
  std::fputs((topic.empty() ? usage() : topic_help(topic)).c_str(), stdout);
  return 0;
}

}  // namespace

namespace {

// The help's groups, by task, in the order it prints them.
constexpr const char* kGroups[] = {"sites and their administrators", "users",    "mail and templates",
                                   "sign-in, tokens and keys",       "webhooks", "operations and retention"};

// The group of a command: its first word, except that every purge is retention.
std::size_t group_of(const Command& c) {
  const std::string& first = c.words.front();
  if (c.words.back().find("purge") != std::string::npos) return 5;
  if (first == "site") return 0;
  if (first == "user" || first == "users" || first == "sessions") return 1;
  if (first == "template" || first == "merge-query" || first == "outbox" || first == "mail" || first == "suppression" ||
      first == "dkim-keys") {
    return 2;
  }
  if (first == "oauth-client" || first == "signing-keys" || first == "keygen" || first == "vapid-keys" ||
      first == "mint-user-id" || first == "mint-customer-id" || first == "hash-password" || first == "passwords") {
    return 3;
  }
  if (first == "webhook") return 4;
  return 5;
}

}  // namespace

std::string usage() {
  std::string out =
      "usage: svc-admin [--config FILE] COMMAND [options]\n"
      "       svc-admin help [COMMAND] | COMMAND --help | --version\n"
      "  --config FILE defaults to $SVC_CONFIG, then /etc/svc/svc.conf\n\ncommands:\n";
  for (std::size_t g = 0; g < std::size(kGroups); ++g) {
    out += std::string(g == 0 ? "" : "\n") + kGroups[g] + ":\n";
    for (const auto& c : commands()) {
      if (group_of(c) == g) out += std::string("  ") + c.help + "\n";
    }
  }
  out += "\n" + site_options_help();
  return out;
}

int run_command(const Args& args, const std::string& config_path) {
  const std::vector<std::string>& words = args.words();
  if (args.flag("version") || (words.size() == 1 && words[0] == "version")) {
    std::printf("svc-admin %s\n", SVC_VERSION);
    return 0;
  }
  // Help reads no configuration and opens no database.
  if (args.flag("help") || (!words.empty() && words[0] == "-h")) return print_help(args, config_path);
  if (words.empty()) {
    std::fputs(usage().c_str(), stderr);
    return 2;
  }
  if (const Command* c = find_command(words)) {
    try {
      return c->run(args, config_path);
    } catch (const UsageError& e) {
      throw UsageError(std::string(e.what()) + "\n(see svc-admin " + name_of(*c) + " --help)");
    }
  }
  if (words.size() == 1 && is_family(words[0])) {
    std::fputs(topic_help(words).c_str(), stderr);
    return 2;
  }
  throw unknown_command(words);
}

}  // namespace svc::admin

#pragma once
// The rows of `svc-admin doctor` that need neither the database nor the
// network: key strength, the configuration's own templates, the nginx
// snippet, and the table the command prints. Pure functions of their
// arguments (the snippet check reads one file), so unit tests cover them.

#include <string>
#include <vector>

#include "config/config.hpp"
#include "db/webhook_repo.hpp"

namespace svc::admin {

// One row of the doctor's table. `fix` says what to do and is shown only
// when the row did not pass. Warn: shown with its fix, but not a failure
// (the exit status stays 0): a setting right for a test machine only.
struct Check {
  enum class Status { Ok, Fail, Skip, Warn } status = Status::Ok;
  std::string name;
  std::string detail;
  std::string fix;
};

Check ok(std::string name, std::string detail);
Check fail(std::string name, std::string detail, std::string fix);
Check skip(std::string name, std::string why);
Check warn(std::string name, std::string detail, std::string fix);

// Every [keys] secret present, distinct from the others, and not obviously
// weak (fewer than 16 distinct byte values in a 32-byte key: a repeated
// character or a short pattern); the file not readable or writable by other
// users (config_mode: st_mode of the file, 0 = unknown).
Check check_keys(const config::KeySettings& keys, unsigned config_mode);

// [tokens] access_alg: fails the legacy HS256 (whoever holds [keys]
// jwt_secret, as every backend did, can forge any user's access token).
Check check_access_tokens(const config::TokenSettings& tokens);

// The configuration's own templates: [sms] message has [code]; with the http
// driver, body_template has [to] and [text].
Check check_config_templates(const config::SmsSettings& sms);

// The nginx snippet exists, is readable and passes requests to svc
// (contains "fastcgi_pass").
Check check_nginx_snippet(const std::string& path);

// The front secret (fcgi/front_secret.hpp): svc's [server] front_secret_file
// ("" = the check is off: fails) holds a valid secret and no other user may
// read it; nginx's include `nginx_include` exists, is owned by root (or by
// `euid`, the user running this command: a local stack), is readable by its
// owner only, and passes the same secret as SVC_FRONT_SECRET.
Check check_front_secret(const std::string& svc_file, const std::string& nginx_include, unsigned euid);

// The settings that switch a protection off or make it late: warns when
// [server] test_mode is on (and says which tests-only settings it allows
// that are on): the local stack's own configuration is one, and its first
// doctor run should pass (issue 30), while an operator still sees the row;
// otherwise reports [server] site_cache_seconds, how long a
// revoked site key may still work.
Check check_protective_settings(const config::Config& c);

// [auth] breached_list: not configured (ok, says so), or the file maps as a
// list (its entry count, its age at `now` and the --min-count it was made
// with; a warning for a version-1 file, which has no page index), else a
// failure: the password rule then goes without it.
Check check_breached_list(const std::string& path, long long now);

// Webhook endpoints that keep failing (db::WebhookRepo::failing_endpoints:
// enabled, at least `failing_after` failed attempts since their last
// success, [webhooks] failing_after): ok when there is none, else a failure
// naming each (id, site, failures, URL).
Check check_webhooks(const std::vector<db::WebhookEndpoint>& failing, int failing_after);

// The table: one line per row (name, ok/FAIL/skip, detail), then an indented
// "fix:" line under every row that did not pass.
std::string format_table(const std::vector<Check>& rows);

// 0 when every row is Ok or Warn, else 1.
int exit_status(const std::vector<Check>& rows);

}  // namespace svc::admin

#include "admin/doctor_checks.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "core/text.hpp"
#include "crypto/breached_file.hpp"
#include "fcgi/front_secret.hpp"

namespace svc::admin {
namespace {

// A random 32-byte key has about 30 distinct byte values; a typed word, a
// repeated character or a copied pattern has far fewer.
bool looks_weak(const std::string& key) {
  std::set<unsigned char> distinct(key.begin(), key.end());
  const size_t wanted = key.size() >= 32 ? 16 : key.size() / 2;
  return distinct.size() < wanted;
}

// The value of "fastcgi_param SVC_FRONT_SECRET value;" (quoted or not) in
// the nginx include at `path`; "" when there is none.
std::string passed_secret(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::istringstream words(text.str());
  std::string word;
  bool directive = false;
  while (words >> word) {
    if (directive && word != fcgi::kFrontSecretParam) {
      std::string value = word.substr(0, word.find(';'));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
      }
      return value;
    }
    directive = word == fcgi::kFrontSecretParam;
  }
  return "";
}

}  // namespace

Check ok(std::string name, std::string detail) { return {Check::Status::Ok, std::move(name), std::move(detail), ""}; }

Check fail(std::string name, std::string detail, std::string fix) {
  return {Check::Status::Fail, std::move(name), std::move(detail), std::move(fix)};
}

Check warn(std::string name, std::string detail, std::string fix) {
  return {Check::Status::Warn, std::move(name), std::move(detail), std::move(fix)};
}

Check skip(std::string name, std::string why) {
  return {Check::Status::Skip, std::move(name), std::move(why), "fix the rows above first"};
}

Check check_access_tokens(const config::TokenSettings& tokens) {
  if (tokens.legacy_hs256()) {
    return fail("access tokens",
                "[tokens] access_alg = HS256: every holder of [keys] jwt_secret can forge any user's access token",
                "have every backend verify with /.well-known/jwks.json (docs/api.md \"Verifying access tokens\"), "
                "then remove access_alg (ES256), add [keys] signing_kek (svc-admin keygen) and run svc-admin migrate");
  }
  return ok("access tokens", tokens.access_alg + ", issuer " + tokens.issuer);
}

Check check_keys(const config::KeySettings& keys, unsigned config_mode) {
  const std::string fix = "svc-admin keygen prints fresh keys; rotate per docs/operations.md";
  std::vector<std::pair<std::string, std::string>> named = {
      {"jwt_secret", keys.jwt.current.secret},
      {"id_key", keys.id_key},
      {"sms_key", keys.sms_key},
      {"reset_key", keys.reset_key},
  };
  if (!keys.signing_kek.empty()) named.emplace_back("signing_kek", keys.signing_kek);
  for (const auto& previous : keys.jwt.previous) named.emplace_back("jwt_previous " + previous.kid, previous.secret);
  for (size_t i = 0; i < named.size(); ++i) {
    if (named[i].second.empty()) return fail("keys", "[keys] " + named[i].first + " is missing", fix);
    if (looks_weak(named[i].second)) return fail("keys", "[keys] " + named[i].first + " looks weak (not random)", fix);
    for (size_t j = 0; j < i; ++j) {
      if (named[i].second == named[j].second) {
        return fail("keys", "[keys] " + named[i].first + " equals " + named[j].first, fix);
      }
    }
  }
  if (config_mode & 0007) {
    return fail("keys", "the configuration file is readable or writable by other users",
                "chown root:svc /etc/svc/svc.conf && chmod 0640 /etc/svc/svc.conf");
  }
  return ok("keys", std::to_string(named.size()) + " secrets present, distinct and random-looking");
}

Check check_config_templates(const config::SmsSettings& sms) {
  const std::string fix = "see docs/configuration.md, section [sms]";
  if (sms.message.find("[code]") == std::string::npos) return fail("templates", "[sms] message has no [code]", fix);
  if (sms.driver == "http") {
    for (const char* field : {"[to]", "[text]"}) {
      if (sms.body_template.find(field) == std::string::npos) {
        return fail("templates", std::string("[sms] body_template has no ") + field, fix);
      }
    }
  }
  return ok("templates", "[sms] message and body_template have their fields");
}

Check check_nginx_snippet(const std::string& path) {
  const std::string fix =
      "install nginx/snippets/svc-*.conf into /etc/nginx/snippets/ (docs/deploy.md), or pass --nginx-snippet PATH";
  std::ifstream in(path);
  if (!in) return fail("nginx", path + " is missing or unreadable", fix);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().find("fastcgi_pass") == std::string::npos) return fail("nginx", path + " has no fastcgi_pass", fix);
  return ok("nginx", path + " installed");
}

Check check_front_secret(const std::string& svc_file, const std::string& nginx_include, unsigned euid) {
  const std::string name = "front secret";
  const std::string fix =
      "docs/deploy.md, \"The front secret\": the package's postinst writes both files (root:svc 0640 and "
      "root 0600)";
  if (svc_file.empty()) {
    return fail(name, "off ([server] front_secret_file = none): any process that can open the socket skips nginx", fix);
  }
  std::string secret;
  try {
    secret = fcgi::load_front_secret(svc_file);
  } catch (const std::exception& e) {
    return fail(name, e.what(), fix);
  }
  struct stat st {};
  if (::stat(svc_file.c_str(), &st) == 0 && (st.st_mode & 0007)) {
    return fail(name, svc_file + " is readable by other users",
                "chown root:svc " + svc_file + " && chmod 0640 " + svc_file);
  }
  if (::stat(nginx_include.c_str(), &st) != 0) return fail(name, nginx_include + " is missing", fix);
  if (st.st_uid != 0 && st.st_uid != euid) {
    return fail(name, nginx_include + " is not owned by root", "chown root:root " + nginx_include);
  }
  if (st.st_mode & 0077) {
    return fail(name, nginx_include + " is readable by other users than its owner (PHP-FPM could read the secret)",
                "chmod 0600 " + nginx_include);
  }
  if (passed_secret(nginx_include) != secret) {
    return fail(name, nginx_include + " does not pass [server] front_secret_file's secret as SVC_FRONT_SECRET",
                "write fastcgi_param SVC_FRONT_SECRET \"<the secret>\"; into it, then nginx -s reload");
  }
  return ok(name, nginx_include + " (root only) and " + svc_file + " agree");
}

Check check_protective_settings(const config::Config& c) {
  const std::string name = "settings";
  if (c.server.test_mode) {
    std::string on;
    if (c.push.allow_insecure_endpoints) on += "; [push] allow_insecure_endpoints = true (no SSRF guard)";
    if (c.server.front_secret_file.empty()) on += "; [server] front_secret_file = none";
    return warn(name, "[server] test_mode = true: a test configuration" + on,
                "remove test_mode and the tests-only settings from a production configuration "
                "(docs/configuration.md)");
  }
  return ok(name, "no tests-only setting; a revoked site key stops working within " +
                      std::to_string(c.server.site_cache_seconds) + " s ([server] site_cache_seconds)");
}

std::string format_table(const std::vector<Check>& rows) {
  size_t width = 5;
  for (const auto& r : rows) width = std::max(width, r.name.size());
  const auto pad = [&](const std::string& s) { return s + std::string(width + 2 - s.size(), ' '); };
  std::string out = pad("CHECK") + "RESULT  DETAIL\n";
  for (const auto& r : rows) {
    const char* result = r.status == Check::Status::Ok     ? "ok    "
                         : r.status == Check::Status::Fail ? "FAIL  "
                         : r.status == Check::Status::Warn ? "warn  "
                                                           : "skip  ";
    out += pad(r.name) + result + "  " + r.detail + "\n";
    if (r.status != Check::Status::Ok) out += pad("") + "        fix: " + r.fix + "\n";
  }
  return out;
}

Check check_breached_list(const std::string& path, long long now) {
  const std::string name = "breached list";
  if (path.empty()) return ok(name, "not configured ([auth] breached_list): breached passwords are accepted");
  std::string error;
  const auto list = crypto::BreachedFile::open(path, error);
  if (!list) {
    return fail(name, error + ": passwords are not checked against it",
                "svc-admin passwords import-breached FILE (docs/configuration.md [auth] breached_list)");
  }
  const auto& h = list->header();
  const long long days = std::max(0LL, (now - static_cast<long long>(h.created_at)) / 86400);
  const std::string detail = std::to_string(h.count) + " entries (--min-count " + std::to_string(h.min_count) +
                             "), imported " + std::to_string(days) + " days ago";
  if (h.version < crypto::kBreachedVersion) {
    return warn(name,
                detail + "; format version " + std::to_string(h.version) +
                    " has no page index (a cold lookup reads several pages)",
                "svc-admin passwords import-breached FILE again (docs/decisions.md \"Issue 41\")");
  }
  return ok(name, detail);
}

Check check_webhooks(const std::vector<db::WebhookEndpoint>& failing, int failing_after) {
  const std::string n = std::to_string(failing_after);
  if (failing.empty()) return ok("webhooks", "no enabled endpoint has failed " + n + " attempts in a row");
  std::string list;
  for (const auto& e : failing) {
    list += (list.empty() ? "" : ", ") + std::to_string(e.id) + " (site " + std::to_string(e.site_id) + ", " +
            std::to_string(e.failures) + " failures, " + core::mask_controls(e.url) + ")";
  }
  return fail("webhooks", "endpoints failing " + n + " or more attempts in a row: " + list,
              "svc-admin webhook deliveries --site N shows the errors; fix the receiver, or svc-admin webhook "
              "disable ID");
}

int exit_status(const std::vector<Check>& rows) {
  for (const auto& r : rows) {
    if (r.status != Check::Status::Ok && r.status != Check::Status::Warn) return 1;
  }
  return 0;
}

}  // namespace svc::admin

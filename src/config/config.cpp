#include "config/config.hpp"

#include <cstdlib>
#include <cstring>

#include "config/reader.hpp"

namespace svc::config {

// The sections are read in file-documentation order, and that order decides
// which of several bad keys is reported; so is every key within a section.
Config parse_config(const IniValues& values, const std::string& path) {
  Config c;
  c.path = path;
  Reader r(values);
  read_server(r, c.server);
  read_databases(r, c.database, c.merge);
  read_auth(r, c.auth);
  read_keys(r, c.keys);
  read_tokens(r, c.tokens, c.keys);
  read_smtp(r, c.smtp);
  if (c.keys.mail_key.empty() && (!c.smtp.bounce_address.empty() || !c.smtp.unsubscribe_url.empty())) {
    throw ConfigError(
        "missing required configuration key [keys] mail_key (svc-admin keygen prints one; it signs bounce tags and "
        "unsubscribe links)");
  }
  read_sms(r, c.sms);
  read_push(r, c.push, c.server.test_mode);
  read_webhooks(r, c.webhooks);
  r.integer("outbound.per_site", c.outbound.per_site, 0, 1024);
  r.str("doctor.nginx_snippet", c.doctor.nginx_snippet);
  r.str("doctor.nginx_front_secret", c.doctor.nginx_front_secret);
  r.reject_unknown();
  return c;
}

Config load_config(const std::string& path) { return parse_config(load_ini_file(path), path); }

std::string config_path_from(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) return argv[i + 1];
    if (std::strncmp(argv[i], "--config=", 9) == 0) return argv[i] + 9;
  }
  if (const char* env = std::getenv("SVC_CONFIG"); env && *env) return env;
  return "/etc/svc/svc.conf";
}

}  // namespace svc::config

#pragma once
// The validated configuration of every svc program: one Config with one
// struct per INI section, each section's struct and reader in a file of its
// own family (server_config, db_config, auth_config, keys_config,
// mail_config, sms_config, push_config, webhook_config). Include this header, not those.
// Every key is documented in docs/configuration.md with its default.

#include <string>

#include "config/auth_config.hpp"
#include "config/db_config.hpp"
#include "config/ini.hpp"
#include "config/keys_config.hpp"
#include "config/mail_config.hpp"
#include "config/net.hpp"
#include "config/push_config.hpp"
#include "config/server_config.hpp"
#include "config/sms_config.hpp"
#include "config/webhook_config.hpp"

namespace svc::config {

// [outbound]: calls that wait on an outside party (push service, merge SQL).
struct OutboundSettings {
  int per_site = 4;  // concurrent outbound calls of one site across all workers; 0 = no cap
};

// [doctor]: where `svc-admin doctor` looks for the nginx files it checks
// (its --nginx-snippet and --nginx-front-secret options override these).
struct DoctorSettings {
  std::string nginx_snippet = "/etc/nginx/snippets/svc-locations.conf";
  std::string nginx_front_secret = "/etc/nginx/svc-front-secret.conf";
};

struct Config {
  std::string path;
  ServerSettings server;
  DbSettings database;
  DbSettings merge;  // [database.merge]: read-only account for raw SQL merge fields
  AuthSettings auth;
  KeySettings keys;
  TokenSettings tokens;
  SmtpSettings smtp;
  SmsSettings sms;
  PushSettings push;
  WebhookSettings webhooks;
  OutboundSettings outbound;
  DoctorSettings doctor;
};

// Parses and validates; throws ConfigError whose message names the offending
// key (unknown keys included) so start-up stops with a clear line.
Config parse_config(const IniValues& values, const std::string& path);
Config load_config(const std::string& path);

// The config file path from --config FILE / --config=FILE in argv, else the
// SVC_CONFIG environment variable, else /etc/svc/svc.conf.
std::string config_path_from(int argc, char** argv);

}  // namespace svc::config

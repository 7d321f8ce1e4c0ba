#include "config/mail_config.hpp"

#include "config/net.hpp"
#include "config/reader.hpp"

namespace svc::config {
namespace {

// [smtp] bounce_address, unsubscribe_url and the bounce-rate guard
// (docs/configuration.md); [keys] mail_key is checked in parse_config.
void read_deliverability(Reader& r, SmtpSettings& smtp) {
  r.str("smtp.bounce_address", smtp.bounce_address);
  const std::string& bounce = smtp.bounce_address;
  const auto at = bounce.find('@');
  if (!bounce.empty() &&
      (at == 0 || at == std::string::npos || at + 1 == bounce.size() ||
       bounce.find_first_of("+<>\"(), \t\r\n") != std::string::npos || bounce.find('@', at + 1) != std::string::npos)) {
    throw ConfigError("configuration key [smtp] bounce_address: '" + bounce +
                      "' is not a plain address local@domain (without '+')");
  }
  r.str("smtp.unsubscribe_url", smtp.unsubscribe_url);
  const std::string& url = smtp.unsubscribe_url;
  if (!url.empty()) {
    const bool https = url.rfind("https://", 0) == 0 && url.size() > 8;
    const bool http = url.rfind("http://", 0) == 0 && url.size() > 7;
    if ((!https && !(http && is_loopback_host(url_host(url)))) ||
        url.find_first_of("#? \r\n\t\"<>") != std::string::npos) {
      throw ConfigError("configuration key [smtp] unsubscribe_url: '" + url +
                        "' is not an https URL without query or fragment (http only to loopback)");
    }
  }
  r.str("smtp.from", smtp.from);
  if (smtp.from.find('@') == std::string::npos && !smtp.from.empty()) {
    throw ConfigError("configuration key [smtp] from: '" + smtp.from + "' names no address");
  }
  r.integer("smtp.max_bounce_rate", smtp.max_bounce_rate, 0, 100);
  r.integer("smtp.bounce_rate_min_mails", smtp.bounce_rate_min_mails, 1, 1000000);
}

}  // namespace

void read_smtp(Reader& r, SmtpSettings& smtp) {
  r.str("smtp.host", smtp.host);
  r.integer("smtp.port", smtp.port, 1, 65535);
  r.one_of("smtp.security", smtp.security, {"plain", "starttls", "tls"});
  r.one_of("smtp.auth", smtp.auth, {"none", "login", "plain"});
  r.str("smtp.username", smtp.username);
  r.str("smtp.password", smtp.password);
  r.integer("smtp.timeout", smtp.timeout, 1, 600);
  r.boolean("smtp.verify_peer", smtp.verify_peer);
  r.str("smtp.helo_name", smtp.helo_name);
  r.integer("smtp.batch", smtp.batch, 1, 10000);
  r.integer("smtp.lease_seconds", smtp.lease_seconds, 10, 86400);
  r.integer("smtp.max_attempts", smtp.max_attempts, 1, 100);
  r.integer("smtp.backoff_seconds", smtp.backoff_seconds, 1, 86400);
  r.integer("smtp.sessions", smtp.sessions, 1, 64);
  read_deliverability(r, smtp);
  // A password over plain text may only travel to this machine.
  if (smtp.auth != "none" && smtp.security == "plain" && !is_loopback_host(smtp.host)) {
    throw ConfigError("configuration key [smtp] auth: SMTP AUTH over security = plain to non-loopback host '" +
                      smtp.host + "' would send the password in clear");
  }
}

}  // namespace svc::config

#include "messaging/smtp_config.hpp"

namespace svc::messaging {

SmtpSettings smtp_settings(const config::SmtpSettings& c) {
  SmtpSettings s;
  s.host = c.host;
  s.port = c.port;
  s.security = c.security == "tls"        ? SmtpSettings::Security::Tls
               : c.security == "starttls" ? SmtpSettings::Security::StartTls
                                          : SmtpSettings::Security::Plain;
  s.auth = c.auth == "login"   ? SmtpSettings::AuthMethod::Login
           : c.auth == "plain" ? SmtpSettings::AuthMethod::Plain
                               : SmtpSettings::AuthMethod::None;
  s.username = c.username;
  s.password = c.password;
  s.timeout_seconds = c.timeout;
  s.verify_peer = c.verify_peer;
  s.helo_name = c.helo_name;
  return s;
}

}  // namespace svc::messaging

#pragma once
// [smtp]: how svc-sender reaches the mail relay, how it batches and
// retries the outbox, and deliverability (VERP bounce address, one-click
// unsubscribe, the bounce-rate guard). messaging/smtp_config.hpp maps these
// settings onto an SMTP session. Every key is documented in
// docs/configuration.md with its default.

#include <string>

namespace svc::config {

class Reader;

struct SmtpSettings {
  std::string host = "127.0.0.1";
  int port = 25;
  std::string security = "plain";  // plain | starttls | tls
  std::string auth = "none";       // none | login | plain
  std::string username;
  std::string password;
  int timeout = 30;
  bool verify_peer = true;
  std::string helo_name;
  int batch = 50;
  int lease_seconds = 300;
  int max_attempts = 5;
  int backoff_seconds = 60;  // first retry delay; doubles per attempt, with jitter
  int sessions = 4;          // SMTP sessions svc-sender runs in parallel (threads)
  // Envelope sender of every mail, "bounce@bounces.example.com": each
  // recipient's copy goes out as bounce+<tag>@..., the tag naming its outbox
  // row and that recipient under an HMAC ([keys] mail_key); "" = the From
  // address (no bounce handling).
  std::string bounce_address;
  // The one-click unsubscribe endpoint as mail readers reach it,
  // "https://svc.example.com/mail/unsubscribe" (http only to loopback);
  // "" = bulk mail carries no List-Unsubscribe.
  std::string unsubscribe_url;
  // The From of account mail svc sends on its own behalf, with no site to
  // send from (a factor changed with a token issued without an appID);
  // "" = such mail is not sent.
  std::string from;
  // Bounce-rate guard: a site whose hard bounces in the last hour exceed
  // this percentage of its mail in that hour (when it sent at least
  // bounce_rate_min_mails) has its bulk mail held back. 0 = off.
  int max_bounce_rate = 5;
  int bounce_rate_min_mails = 100;
};

// Reads and checks [smtp]; throws ConfigError naming the first bad key.
// [keys] mail_key, which bounce_address and unsubscribe_url need, is
// checked by parse_config.
void read_smtp(Reader& r, SmtpSettings& smtp);

}  // namespace svc::config

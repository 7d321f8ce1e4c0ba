#pragma once
// Delivering OutgoingMail over SMTP (Poco Net), one session reused across
// messages. The Mailer interface is what the sender depends on, so tests can
// swap in a fake.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messaging/mime.hpp"

namespace svc::messaging {

struct SmtpSettings {
  std::string host = "127.0.0.1";
  int port = 25;
  // Plain: no TLS. StartTls: upgrade after EHLO; a server without STARTTLS is
  // a failure, never a silent fallback. Tls: TLS from the first byte (SMTPS).
  enum class Security { Plain, StartTls, Tls } security = Security::Plain;
  std::string username, password;
  enum class AuthMethod { None, Login, Plain } auth = AuthMethod::None;
  int timeout_seconds = 30;   // connect, and every read and write
  bool verify_peer = true;    // certificate chain against the system CAs, and host name
  std::string helo_name;      // empty -> this machine's host name
  bool reuse_session = true;  // false: one connection per message (benchmarks)
};

enum class SendStatus {
  Sent,
  TemporaryFailure,  // 4xx, dropped connection, timeout, connect/TLS/AUTH failure
  PermanentFailure,  // 5xx, refused recipient, invalid address
};

// A recipient the server refused at RCPT TO with a reply saying the address
// itself is dead (dead_address_status).
struct DeadRecipient {
  std::string address;
  std::string status;  // the enhanced status code, e.g. "5.1.1"
};

struct SendResult {
  SendStatus status;
  std::string detail;  // the server's reply or the local error; never a password
  // PermanentFailure at RCPT TO: the refused recipients whose reply named a
  // dead address. The sender suppresses them like a DSN's hard bounce.
  std::vector<DeadRecipient> dead_recipients = {};
};

// The enhanced status code (RFC 3463) of an SMTP reply line when it says
// the recipient address itself is dead: 5.1.1 (no such mailbox), 5.1.2 (no
// such domain), 5.1.3 (bad address syntax), 5.1.6 (moved, no forwarding)
// or 5.1.10 (null MX, RFC 7505), in a 5xx reply. "" for anything else: a
// policy refusal (5.7.x), a full mailbox or a reply without an enhanced
// code says nothing about the address, so it suppresses nothing.
std::string dead_address_status(std::string_view reply_line);

// Why an envelope cannot be sent at all (a PermanentFailure: the sender or
// a recipient fails http::is_valid_email, or there is no recipient),
// checked before any connection is made; nullopt when it can be.
std::optional<SendResult> envelope_problem(const std::string& from, const std::vector<std::string>& recipients);

class Mailer {
 public:
  virtual ~Mailer() = default;
  // Delivers one message to envelope_recipients(mail). Never throws for
  // delivery problems: they come back as the status.
  virtual SendResult send(const OutgoingMail& mail) = 0;
  // Ends the session politely (QUIT). The next send() reconnects.
  virtual void close() = 0;
};

// Not thread-safe: one SmtpMailer per thread (the sender is single-threaded).
// SIGPIPE raised by a write to a dropped connection is blocked and discarded
// for the calling thread during send()/close(), so callers need not ignore it.
class SmtpMailer final : public Mailer {
 public:
  explicit SmtpMailer(SmtpSettings settings);
  SmtpMailer(SmtpSettings settings, bool reuse_session);  // overrides settings.reuse_session
  ~SmtpMailer() override;
  SmtpMailer(const SmtpMailer&) = delete;
  SmtpMailer& operator=(const SmtpMailer&) = delete;

  // Connects lazily (TCP, greeting, EHLO/HELO, STARTTLS or SMTPS, AUTH once),
  // then MAIL FROM, RCPT TO per recipient, DATA, the dot-stuffed build_mime()
  // text, ".". Outcomes:
  //  - every reply positive -> Sent;
  //  - the sender or a recipient fails http::is_valid_email, or no recipients ->
  //    PermanentFailure before anything is sent;
  //  - any RCPT refused with 5xx -> PermanentFailure, else any 4xx ->
  //    TemporaryFailure; nothing is sent (RSET) in both cases;
  //  - 4xx/5xx to MAIL, DATA or the end of data -> Temporary/PermanentFailure;
  //  - socket error, timeout, 421 or a closed connection -> TemporaryFailure
  //    and the session is dropped. A reused session that turns out to be dead
  //    at MAIL FROM (nothing sent yet) is replaced once, transparently.
  SendResult send(const OutgoingMail& mail) override;
  void close() override;

  // TCP connections opened so far (tests and benchmarks check reuse).
  int connections_opened() const { return connections_opened_; }

 private:
  struct Impl;  // keeps Poco out of this header
  SmtpSettings settings_;
  std::unique_ptr<Impl> impl_;
  int connections_opened_ = 0;
};

// The DATA payload for `message`: line endings normalised to CRLF, a '.'
// doubled at the start of every line, a final CRLF ensured, then ".\r\n".
std::string dot_stuff(std::string_view message);

}  // namespace svc::messaging

#include "messaging/smtp_session.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/NetSSL.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "core/printable.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "http/validate.hpp"

// Why not Poco::Net::SMTPClientSession: its DialogSocket reply reader spins
// forever when the peer closes in the middle of a multi-line reply (an EHLO
// answer cut short), and its STARTTLS keeps whatever the server sent after
// "220". So we use Poco for sockets and TLS only, and read replies here with
// bounded buffers; every read and write is under the configured timeout.

namespace svc::messaging {
namespace {

constexpr std::size_t kMaxLine = 8 * 1024;   // RFC 5321 allows 512; be lenient
constexpr std::size_t kMaxReplyLines = 100;  // an EHLO list is ~15
constexpr std::size_t kMaxReplyText = 4 * 1024;

struct Reply {
  int code = 0;  // 0: connection closed or unreadable reply
  std::string text;

  int klass() const { return code / 100; }
  bool positive() const { return klass() == 2; }
  // 421: the server is closing the channel; 0: it already did.
  bool connection_lost() const { return code == 0 || code == 421; }
};

// Blocks SIGPIPE for this thread while alive and swallows one raised meanwhile,
// so a write to a peer that hung up becomes an exception, not process death.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t just_pipe;
        sigemptyset(&just_pipe);
        sigaddset(&just_pipe, SIGPIPE);
        const timespec zero{};
        sigtimedwait(&just_pipe, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_{};
  bool was_pending_ = false;
};

SendResult temporary(std::string detail) { return {SendStatus::TemporaryFailure, std::move(detail)}; }
SendResult permanent(std::string detail) { return {SendStatus::PermanentFailure, std::move(detail)}; }

// One SMTP connection: a (possibly TLS) socket and the bytes received but not
// yet consumed. Transport failures surface as Poco exceptions.
class Connection {
 public:
  explicit Connection(Poco::Net::StreamSocket socket) : socket_(std::move(socket)) {}
  ~Connection() { abort(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void send_all(std::string_view bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const int chunk = static_cast<int>(std::min<std::size_t>(bytes.size() - sent, 64 * 1024));
      const int n = socket_.sendBytes(bytes.data() + sent, chunk);
      if (n <= 0) throw Poco::IOException("connection closed while sending");
      sent += static_cast<std::size_t>(n);
    }
  }

  // A complete reply; multi-line replies are joined with ' '.
  Reply read_reply() {
    Reply reply{-1, ""};
    for (std::size_t lines = 0; lines < kMaxReplyLines; ++lines) {
      std::string line;
      if (!read_line(line)) {
        return {0, reply.text.empty() ? "connection closed" : reply.text + " (connection closed)"};
      }
      const bool digits =
          line.size() >= 3 && std::all_of(line.begin(), line.begin() + 3, [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || (line.size() > 3 && line[3] != ' ' && line[3] != '-')) {
        return {0, "malformed reply: " + core::printable(line)};
      }
      if (reply.code < 0) reply.code = std::stoi(line.substr(0, 3));
      if (reply.text.size() < kMaxReplyText) reply.text += (reply.text.empty() ? "" : " ") + line;
      if (line.size() == 3 || line[3] == ' ') return reply;
    }
    return {0, "reply too long"};
  }

  Reply command(const std::string& line) {
    send_all(line + "\r\n");
    return read_reply();
  }

  // Replaces the socket by TLS over it (handshake included). Bytes the server
  // sent before the handshake would be injected plaintext: refuse them.
  void start_tls(const std::string& host, Poco::Net::Context::Ptr context, Poco::Timespan timeout) {
    if (!pending_.empty()) throw Poco::ProtocolException("data received before TLS handshake");
    Poco::Net::SecureStreamSocket secure = Poco::Net::SecureStreamSocket::attach(socket_, host, std::move(context));
    secure.setReceiveTimeout(timeout);
    secure.setSendTimeout(timeout);
    socket_ = secure;
  }

  // Polite end: QUIT, then close. Never throws.
  void quit() {
    try {
      command("QUIT");
    } catch (...) {
    }
    abort();
  }

  // Closes without a word (the connection is dead or in an unknown state).
  void abort() {
    try {
      socket_.close();
    } catch (...) {
    }
  }

 private:
  bool read_line(std::string& line) {
    while (true) {
      const std::size_t eol = pending_.find('\n');
      if (eol != std::string::npos) {
        line = pending_.substr(0, eol);
        pending_.erase(0, eol + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
      if (pending_.size() > kMaxLine) throw Poco::ProtocolException("reply line too long");
      char buf[4096];
      const int n = socket_.receiveBytes(buf, sizeof buf);
      if (n <= 0) return false;
      pending_.append(buf, static_cast<std::size_t>(n));
    }
  }

  Poco::Net::StreamSocket socket_;
  std::string pending_;
};

}  // namespace

struct SmtpMailer::Impl {
  Poco::Net::Context::Ptr tls;  // created on first TLS use, kept for the mailer's life
  std::unique_ptr<Connection> conn;
};

namespace {

// Opens one session: TCP (+ SMTPS), greeting, EHLO/HELO, STARTTLS + EHLO, AUTH.
// Transport problems throw; negative replies come back as the failure.
class SessionOpener {
 public:
  SessionOpener(const SmtpSettings& settings, Poco::Net::Context::Ptr& tls)
      : settings_(settings), tls_(tls), timeout_(settings.timeout_seconds, 0) {}

  std::unique_ptr<Connection> open(int& connections_opened, std::optional<SendResult>& failure) {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress(settings_.host, static_cast<Poco::UInt16>(settings_.port)), timeout_);
    ++connections_opened;
    socket.setReceiveTimeout(timeout_);
    socket.setSendTimeout(timeout_);
    socket.setNoDelay(true);
    auto conn = std::make_unique<Connection>(socket);
    if (settings_.security == SmtpSettings::Security::Tls) {
      conn->start_tls(settings_.host, context(), timeout_);
    }

    if (Reply r = conn->read_reply(); !r.positive()) return fail(failure, "greeting", r);
    const std::string helo =
        settings_.helo_name.empty() ? Poco::Net::DNS::hostName() : core::strip_controls(settings_.helo_name);
    if (Reply r = ehlo(*conn, helo); !r.positive()) return fail(failure, "EHLO", r);
    if (settings_.security == SmtpSettings::Security::StartTls) {
      if (Reply r = conn->command("STARTTLS"); r.code != 220) return fail(failure, "STARTTLS", r);
      conn->start_tls(settings_.host, context(), timeout_);
      if (Reply r = ehlo(*conn, helo); !r.positive()) {
        return fail(failure, "EHLO after STARTTLS", r);
      }
    }
    if (Reply r = authenticate(*conn); !r.positive()) return fail(failure, "AUTH", r);
    return conn;
  }

 private:
  static Reply ehlo(Connection& conn, const std::string& helo) {
    Reply r = conn.command("EHLO " + helo);
    if (r.klass() == 5) r = conn.command("HELO " + helo);
    return r;
  }

  Reply authenticate(Connection& conn) {
    using Method = SmtpSettings::AuthMethod;
    switch (settings_.auth) {
      case Method::None:
        return {250, ""};
      case Method::Plain:
        return conn.command("AUTH PLAIN " + crypto::base64_encode(std::string(1, '\0') + settings_.username + '\0' +
                                                                  settings_.password));
      case Method::Login: {
        Reply r = conn.command("AUTH LOGIN");
        if (r.code != 334) return r;
        r = conn.command(crypto::base64_encode(settings_.username));
        if (r.code != 334) return r;
        return conn.command(crypto::base64_encode(settings_.password));
      }
    }
    return {0, "unknown AUTH method"};
  }

  Poco::Net::Context::Ptr context() {
    static std::once_flag ssl_init;
    std::call_once(ssl_init, [] { Poco::Net::initializeSSL(); });
    if (!tls_) {
      Poco::Net::Context::Params params;
      // VERIFY_RELAXED checks the chain; SecureStreamSocket then checks the
      // host name against the certificate (skipped by Poco for loopback names).
      params.verificationMode =
          settings_.verify_peer ? Poco::Net::Context::VERIFY_RELAXED : Poco::Net::Context::VERIFY_NONE;
      params.loadDefaultCAs = true;
      tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
    }
    return tls_;
  }

  static std::unique_ptr<Connection> fail(std::optional<SendResult>& failure, std::string_view step, const Reply& r) {
    // Set-up refusals (AUTH 535 included) are the relay's or our
    // configuration's problem, not the message's: retry later.
    failure = temporary(std::string(step) + " refused: " + r.text);
    return nullptr;
  }

  const SmtpSettings& settings_;
  Poco::Net::Context::Ptr& tls_;
  Poco::Timespan timeout_;
};

// Opens a session into `conn`; nullopt on success, else the (temporary)
// failure, with `conn` left empty.
std::optional<SendResult> open_session(const SmtpSettings& settings, Poco::Net::Context::Ptr& tls,
                                       std::unique_ptr<Connection>& conn, int& connections_opened) {
  std::optional<SendResult> failure;
  try {
    conn = SessionOpener(settings, tls).open(connections_opened, failure);
  } catch (const Poco::Exception& e) {
    failure = temporary("connect " + settings.host + ":" + std::to_string(settings.port) + ": " +
                        core::printable(e.displayText()));
  } catch (const std::exception& e) {
    failure = temporary(std::string("connect: ") + core::printable(e.what()));
  }
  return failure;
}

// After a refused MAIL/RCPT/DATA: clear the transaction so the session can
// carry the next message; drop it when even that fails.
void reset_or_drop(std::unique_ptr<Connection>& conn) {
  try {
    if (!conn->command("RSET").positive()) conn.reset();
  } catch (...) {
    conn.reset();
  }
}

// One MAIL FROM .. end-of-data exchange on an open session. A negative reply
// is a PermanentFailure when 5xx, else a TemporaryFailure; afterwards the
// session is either ready for the next message or dropped (`conn` empty).
class Transaction {
 public:
  explicit Transaction(std::unique_ptr<Connection>& conn) : conn_(conn) {}

  // Transport errors end the exchange as a TemporaryFailure and drop the session.
  SendResult run(const std::string& from, const std::vector<std::string>& recipients, const std::string& data) {
    try {
      exchange(from, recipients, data);
    } catch (const std::exception& e) {
      lost_ = true;
      const auto* poco = dynamic_cast<const Poco::Exception*>(&e);
      result_ = temporary("SMTP session failed: " + core::printable(poco ? poco->displayText() : e.what()));
      conn_.reset();
    }
    return *result_;
  }

  // The connection was gone at MAIL FROM: the server accepted nothing yet.
  bool lost_before_mail() const { return lost_ && stage_ == Stage::Mail; }

 private:
  enum class Stage { Mail, Rcpt, Data, Body };

  void exchange(const std::string& from, const std::vector<std::string>& recipients, const std::string& data) {
    if (Reply r = conn_->command("MAIL FROM:<" + from + ">"); !r.positive()) {
      refused("MAIL FROM", r);
      return;
    }
    stage_ = Stage::Rcpt;
    if (!recipients_accepted(recipients)) return;
    stage_ = Stage::Data;
    if (Reply d = conn_->command("DATA"); d.code != 354) {
      refused("DATA", d);
      return;
    }
    stage_ = Stage::Body;
    conn_->send_all(data);
    if (Reply end = conn_->read_reply(); end.positive()) {
      result_ = SendResult{SendStatus::Sent, end.text};
    } else {
      refused("end of DATA", end);
    }
  }

  // RCPT TO for every recipient. False, with the result set, when any was
  // refused (5xx wins over 4xx; the transaction is reset) or the connection
  // went away.
  bool recipients_accepted(const std::vector<std::string>& recipients) {
    std::string rejected_perm, rejected_temp;
    std::vector<DeadRecipient> dead;
    for (const auto& rcpt : recipients) {
      const Reply r = conn_->command("RCPT TO:<" + rcpt + ">");
      if (r.positive()) continue;
      if (r.connection_lost()) {
        refused("RCPT TO:<" + rcpt + ">", r);
        return false;
      }
      std::string& into = r.klass() == 5 ? rejected_perm : rejected_temp;
      into += (into.empty() ? "" : "; ") + ("RCPT TO:<" + rcpt + ">: " + r.text);
      if (std::string status = dead_address_status(r.text); !status.empty()) dead.push_back({rcpt, status});
    }
    if (rejected_perm.empty() && rejected_temp.empty()) return true;
    result_ = rejected_perm.empty() ? temporary(rejected_temp) : permanent(rejected_perm);
    result_->dead_recipients = std::move(dead);
    reset_or_drop(conn_);
    return false;
  }

  // Classifies a negative reply, then clears the transaction or the session.
  void refused(const std::string& what, const Reply& r) {
    lost_ = r.connection_lost();
    result_ = r.klass() == 5 ? permanent(what + ": " + r.text) : temporary(what + ": " + r.text);
    if (lost_) {
      conn_.reset();
    } else if (stage_ != Stage::Body) {
      reset_or_drop(conn_);
    }
  }

  std::unique_ptr<Connection>& conn_;
  Stage stage_ = Stage::Mail;
  std::optional<SendResult> result_;
  bool lost_ = false;
};

}  // namespace

std::optional<SendResult> envelope_problem(const std::string& from, const std::vector<std::string>& recipients) {
  if (!http::is_valid_email(from)) return permanent("invalid sender address: " + core::printable(from));
  if (recipients.empty()) return permanent("no recipients");
  for (const auto& r : recipients) {
    if (!http::is_valid_email(r)) return permanent("invalid recipient address: " + core::printable(r));
  }
  return std::nullopt;
}

std::string dead_address_status(std::string_view line) {
  // "550 5.1.1 text" or "550-5.1.1 text": the reply code, then the enhanced
  // code class.subject.detail, whose class must agree with the reply's.
  if (line.size() < 9 || line[0] != '5' || (line[3] != ' ' && line[3] != '-')) return "";
  std::string_view rest = line.substr(4);
  const std::size_t end = rest.find_first_of(" \t");
  const std::string_view code = rest.substr(0, end);
  for (const char* dead : {"5.1.1", "5.1.2", "5.1.3", "5.1.6", "5.1.10"}) {
    if (code == dead) return std::string(code);
  }
  return "";
}

SmtpMailer::SmtpMailer(SmtpSettings settings) : settings_(std::move(settings)), impl_(std::make_unique<Impl>()) {}

SmtpMailer::SmtpMailer(SmtpSettings settings, bool reuse_session) : SmtpMailer(std::move(settings)) {
  settings_.reuse_session = reuse_session;
}

SmtpMailer::~SmtpMailer() { close(); }

void SmtpMailer::close() {
  if (!impl_->conn) return;
  SigpipeGuard guard;
  impl_->conn->quit();
  impl_->conn.reset();
}

SendResult SmtpMailer::send(const OutgoingMail& mail) {
  const std::string from = core::strip_controls(mail.envelope_from.empty() ? mail.from : mail.envelope_from);
  const std::vector<std::string> recipients = envelope_recipients(mail);
  if (auto problem = envelope_problem(from, recipients)) return *problem;
  std::string message = build_mime(mail);
  if (mail.dkim) {
    // Never unsigned instead: with the site's DMARC policy an unsigned mail
    // is as lost as an unsent one, and a retry can still succeed once the
    // operator fixes the key (docs/decisions.md).
    std::string error;
    auto signature = dkim_signature(message, *mail.dkim, error);
    if (!signature) return SendResult{SendStatus::TemporaryFailure, error};
    message.insert(0, *signature);
  }
  const std::string data = dot_stuff(message);

  SigpipeGuard guard;
  for (int attempt = 0;; ++attempt) {
    const bool fresh = !impl_->conn;
    if (fresh) {
      if (auto failure = open_session(settings_, impl_->tls, impl_->conn, connections_opened_)) return *failure;
    }
    Transaction transaction(impl_->conn);
    const SendResult result = transaction.run(from, recipients, data);
    // A reused session the server had already closed: nothing was accepted
    // yet, so one fresh connection may try again without risking duplicates.
    if (transaction.lost_before_mail() && !fresh && attempt == 0) continue;
    if (!settings_.reuse_session) close();
    return result;
  }
}

std::string dot_stuff(std::string_view message) {
  std::string out;
  out.reserve(message.size() + message.size() / 64 + 8);
  bool line_start = true;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < message.size() && message[i + 1] == '\n') ++i;
      out += "\r\n";
      line_start = true;
      continue;
    }
    if (line_start && c == '.') out += '.';
    out += c;
    line_start = false;
  }
  if (!line_start) out += "\r\n";
  out += ".\r\n";
  return out;
}

}  // namespace svc::messaging

#include "messaging/smtp_session.hpp"

#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/NetSSL.h>
#include <Poco/Net/SMTPClientSession.h>
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

#include "messaging/template.hpp"

namespace svc::messaging {
namespace {

// SMTPClientSession keeps its socket protected; we need it to upgrade to TLS
// ourselves (with our own context and host name) and to stream DATA.
class PocoSession : public Poco::Net::SMTPClientSession {
 public:
  explicit PocoSession(const Poco::Net::StreamSocket& socket) : SMTPClientSession(socket) {}
  using SMTPClientSession::socket;
};

struct Reply {
  int code = 0;  // 0: the connection closed before a reply
  std::string text;

  int klass() const { return code / 100; }
  bool positive() const { return klass() == 2; }
  // 421 means the server is closing the channel; 0 means it already did.
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

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}

std::string base64(const std::string& in) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << in;
  encoder.close();
  return out.str();
}

SendResult temporary(std::string detail) {
  return {SendStatus::TemporaryFailure, std::move(detail)};
}
SendResult permanent(std::string detail) {
  return {SendStatus::PermanentFailure, std::move(detail)};
}

}  // namespace

struct SmtpMailer::Impl {
  bool reuse = true;
  Poco::Net::Context::Ptr tls;  // created on first TLS use, kept for the mailer's life
  std::unique_ptr<PocoSession> session;

  Reply command(const std::string& line) {
    std::string response;
    const int code = session->sendCommand(line, response);
    return {code, one_line(std::move(response))};
  }

  void send_all(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const int chunk = static_cast<int>(std::min<std::size_t>(bytes.size() - sent, 64 * 1024));
      const int n = session->socket().sendBytes(bytes.data() + sent, chunk);
      if (n <= 0) throw Poco::IOException("connection closed while sending data");
      sent += static_cast<std::size_t>(n);
    }
  }

  // Drops the connection without QUIT (it is dead or in an unknown state).
  void drop() {
    if (!session) return;
    try {
      session->socket().close();
    } catch (...) {
    }
    session.reset();  // ~SMTPClientSession swallows the failing QUIT
  }

  // After a refused MAIL/RCPT/DATA: clear the transaction so the session can
  // carry the next message; drop it when even that fails.
  void reset_or_drop() {
    try {
      if (!command("RSET").positive()) drop();
    } catch (...) {
      drop();
    }
  }
};

SmtpMailer::SmtpMailer(SmtpSettings settings)
    : settings_(std::move(settings)), impl_(std::make_unique<Impl>()) {
  impl_->reuse = settings_.reuse_session;
}

SmtpMailer::SmtpMailer(SmtpSettings settings, bool reuse_session)
    : SmtpMailer(std::move(settings)) {
  settings_.reuse_session = reuse_session;
  impl_->reuse = reuse_session;
}

SmtpMailer::~SmtpMailer() { close(); }

void SmtpMailer::close() {
  if (!impl_->session) return;
  SigpipeGuard guard;
  try {
    impl_->session->close();  // QUIT, then the socket
  } catch (...) {
  }
  impl_->session.reset();
}

namespace {

// One connection's setup: TCP (+ TLS), greeting, EHLO, STARTTLS, AUTH.
// Throws Poco exceptions for transport problems; returns a failure for
// negative replies. `connected` is set once TCP is up (for the counter).
class SessionOpener {
 public:
  SessionOpener(const SmtpSettings& settings, Poco::Net::Context::Ptr& tls)
      : settings_(settings), tls_(tls) {}

  std::unique_ptr<PocoSession> open(bool& connected, std::optional<SendResult>& failure) {
    const Poco::Timespan timeout(settings_.timeout_seconds, 0);
    Poco::Net::StreamSocket plain;
    plain.connect(Poco::Net::SocketAddress(settings_.host,
                                           static_cast<Poco::UInt16>(settings_.port)),
                  timeout);
    connected = true;
    plain.setReceiveTimeout(timeout);
    plain.setSendTimeout(timeout);
    plain.setNoDelay(true);

    Poco::Net::StreamSocket socket = plain;
    if (settings_.security == SmtpSettings::Security::Tls) socket = upgrade(plain);
    auto session = std::make_unique<PocoSession>(socket);
    session->setTimeout(timeout);
    session_ = session.get();

    // Reads the greeting (SMTPException unless 2xx); marks the session open so
    // that close() says QUIT.
    session->open();

    const std::string helo = settings_.helo_name.empty() ? Poco::Net::DNS::hostName()
                                                         : strip_crlf(settings_.helo_name);
    if (auto r = ehlo(helo); !r.positive()) return fail(failure, "EHLO", r);
    if (settings_.security == SmtpSettings::Security::StartTls) {
      if (auto r = cmd("STARTTLS"); r.code != 220) return fail(failure, "STARTTLS", r);
      session->socket() = upgrade(session->socket());
      session->setTimeout(timeout);
      if (auto r = ehlo(helo); !r.positive()) return fail(failure, "EHLO after STARTTLS", r);
    }
    if (auto r = authenticate(); !r.positive()) return fail(failure, "AUTH", r);
    return session;
  }

 private:
  Reply cmd(const std::string& line) {
    std::string response;
    const int code = session_->sendCommand(line, response);
    return {code, one_line(std::move(response))};
  }

  Reply ehlo(const std::string& helo) {
    Reply r = cmd("EHLO " + helo);
    if (r.klass() == 5) r = cmd("HELO " + helo);
    return r;
  }

  Reply authenticate() {
    using Method = SmtpSettings::AuthMethod;
    switch (settings_.auth) {
      case Method::None:
        return {250, ""};
      case Method::Plain:
        return cmd("AUTH PLAIN " +
                   base64(std::string(1, '\0') + settings_.username + '\0' + settings_.password));
      case Method::Login: {
        Reply r = cmd("AUTH LOGIN");
        if (r.code != 334) return r;
        r = cmd(base64(settings_.username));
        if (r.code != 334) return r;
        return cmd(base64(settings_.password));
      }
    }
    return {0, "unknown AUTH method"};
  }

  Poco::Net::StreamSocket upgrade(const Poco::Net::StreamSocket& socket) {
    static std::once_flag ssl_init;
    std::call_once(ssl_init, [] { Poco::Net::initializeSSL(); });
    if (!tls_) {
      Poco::Net::Context::Params params;
      params.verificationMode = settings_.verify_peer ? Poco::Net::Context::VERIFY_RELAXED
                                                      : Poco::Net::Context::VERIFY_NONE;
      params.loadDefaultCAs = true;
      tls_ = new Poco::Net::Context(Poco::Net::Context::TLS_CLIENT_USE, params);
    }
    // attach() runs the handshake and, unless VERIFY_NONE, checks the host name.
    Poco::Net::SecureStreamSocket secure =
        Poco::Net::SecureStreamSocket::attach(socket, settings_.host, tls_);
    const Poco::Timespan timeout(settings_.timeout_seconds, 0);
    secure.setReceiveTimeout(timeout);
    secure.setSendTimeout(timeout);
    return secure;
  }

  static std::unique_ptr<PocoSession> fail(std::optional<SendResult>& failure,
                                           std::string_view step, const Reply& r) {
    // Set-up refusals (including AUTH 535) are the relay's or our
    // configuration's problem, not the message's: retry later.
    failure = temporary(std::string(step) + " refused: " +
                        (r.code == 0 ? std::string("connection closed") : r.text));
    return nullptr;
  }

  const SmtpSettings& settings_;
  Poco::Net::Context::Ptr& tls_;
  PocoSession* session_ = nullptr;
};

enum class Stage { Mail, Rcpt, Data, Body };

}  // namespace

SendResult SmtpMailer::send(const OutgoingMail& mail) {
  const std::string from = strip_crlf(mail.from);
  if (!is_valid_email(from)) return permanent("invalid sender address: " + from);
  const std::vector<std::string> recipients = envelope_recipients(mail);
  if (recipients.empty()) return permanent("no recipients");
  for (const auto& r : recipients) {
    if (!is_valid_email(r)) return permanent("invalid recipient address: " + r);
  }
  const std::string data = dot_stuff(build_mime(mail));

  SigpipeGuard guard;
  Impl& s = *impl_;
  for (int attempt = 0;; ++attempt) {
    bool fresh = false;
    if (!s.session) {
      std::optional<SendResult> failure;
      bool connected = false;
      try {
        s.session = SessionOpener(settings_, s.tls).open(connected, failure);
      } catch (const Poco::Exception& e) {
        failure = temporary("connect " + settings_.host + ":" + std::to_string(settings_.port) +
                            ": " + one_line(e.displayText()));
      } catch (const std::exception& e) {
        failure = temporary(std::string("connect: ") + e.what());
      }
      if (connected) ++connections_opened_;
      if (!s.session) return *failure;
      fresh = true;
    }

    Stage stage = Stage::Mail;
    std::optional<SendResult> result;
    bool lost = false;
    try {
      // Every negative reply ends here: classify, then RSET or drop.
      auto refused = [&](const std::string& what, const Reply& r) {
        lost = r.connection_lost();
        const std::string text = r.code == 0 ? std::string("connection closed") : r.text;
        result = r.klass() == 5 ? permanent(what + ": " + text) : temporary(what + ": " + text);
        if (lost) {
          s.drop();
        } else if (stage != Stage::Body) {
          s.reset_or_drop();
        }
      };

      if (Reply r = s.command("MAIL FROM:<" + from + ">"); !r.positive()) {
        refused("MAIL FROM", r);
      } else {
        stage = Stage::Rcpt;
        std::string rejected_perm, rejected_temp;
        for (const auto& rcpt : recipients) {
          Reply rr = s.command("RCPT TO:<" + rcpt + ">");
          if (rr.positive()) continue;
          if (rr.connection_lost()) {
            refused("RCPT TO:<" + rcpt + ">", rr);
            break;
          }
          std::string& into = rr.klass() == 5 ? rejected_perm : rejected_temp;
          into += (into.empty() ? "" : "; ") + ("RCPT TO:<" + rcpt + ">: " + rr.text);
        }
        if (result) {
          // connection lost during RCPT; already handled
        } else if (!rejected_perm.empty()) {
          result = permanent(rejected_perm);
          s.reset_or_drop();
        } else if (!rejected_temp.empty()) {
          result = temporary(rejected_temp);
          s.reset_or_drop();
        } else {
          stage = Stage::Data;
          if (Reply d = s.command("DATA"); d.code != 354) {
            refused("DATA", d);
          } else {
            stage = Stage::Body;
            s.send_all(data);
            std::string response;
            const int code = s.session->socket().receiveStatusMessage(response);
            const Reply end{code, one_line(std::move(response))};
            if (end.positive()) {
              result = SendResult{SendStatus::Sent, end.text};
            } else {
              refused("end of DATA", end);
            }
          }
        }
      }
    } catch (const Poco::Exception& e) {
      lost = true;
      result = temporary("SMTP session failed: " + one_line(e.displayText()));
      s.drop();
    } catch (const std::exception& e) {
      lost = true;
      result = temporary(std::string("SMTP session failed: ") + e.what());
      s.drop();
    }

    // A reused session the server had already closed: nothing was accepted
    // yet, so one fresh connection may try again without risking duplicates.
    if (lost && !fresh && stage == Stage::Mail && attempt == 0) continue;
    if (!s.reuse) close();
    return *result;
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

// SmtpMailer against the real aiosmtpd sink (scripts/sinks/smtp_sink.py),
// started per test on a free port. A missing /usr/bin/python3 or aiosmtpd
// fails these tests: they never pass by skipping.
#include "messaging/smtp_session.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/text.hpp"
#include "messaging/mime.hpp"

extern char** environ;

namespace fs = std::filesystem;
namespace m = svc::messaging;
using m::SendStatus;

namespace {

const char* const kPython = "/usr/bin/python3";
const std::string kSinkScript = SVC_TESTDATA_DIR "/../../scripts/sinks/smtp_sink.py";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& content) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "svc-smtp-test-XXXXXX").string();
    BOOST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

int run(const std::vector<std::string>& argv, const fs::path& stderr_file) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  BOOST_REQUIRE_MESSAGE(rc == 0, "cannot start " << argv[0]);
  return pid;
}

// One sink process; DIR is root/mail, the control file root/smtp-control.json.
class SmtpSink {
 public:
  explicit SmtpSink(const fs::path& root, std::vector<std::string> extra = {}, int port = 0)
      : root_(root), mail_dir_(root / "mail") {
    BOOST_REQUIRE_MESSAGE(access(kPython, X_OK) == 0, kPython << " is missing: the SMTP sink "
                                                                 "needs it (python3-aiosmtpd)");
    BOOST_REQUIRE_MESSAGE(fs::exists(kSinkScript), "missing " << kSinkScript);
    const fs::path ready = root / "sink.ready";
    fs::remove(ready);
    std::vector<std::string> argv = {kPython,        kSinkScript,          "--host", "127.0.0.1",
                                     "--port",       std::to_string(port), "--dir",  mail_dir_.string(),
                                     "--ready-file", ready.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    pid_ = run(argv, root / "sink.err");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!fs::exists(ready)) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        BOOST_FAIL("SMTP sink exited at start-up: " << read_file(root / "sink.err"));
      }
      if (std::chrono::steady_clock::now() > deadline) BOOST_FAIL("SMTP sink not ready in 10 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    port_ = std::stoi(read_file(ready));
  }
  ~SmtpSink() { stop(); }
  SmtpSink(const SmtpSink&) = delete;
  SmtpSink& operator=(const SmtpSink&) = delete;

  int port() const { return port_; }

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  void control(const std::string& json) const { write_file(root_ / "smtp-control.json", json); }

  std::vector<std::string> messages() const {
    std::vector<fs::path> files;
    if (fs::exists(mail_dir_)) {
      for (const auto& e : fs::directory_iterator(mail_dir_)) {
        if (e.path().extension() == ".eml") files.push_back(e.path());
      }
    }
    std::sort(files.begin(), files.end());
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(read_file(f));
    return out;
  }

 private:
  fs::path root_, mail_dir_;
  int pid_ = -1;
  int port_ = 0;
};

// A TCP socket listening on 127.0.0.1 at a free port, which goes to `port`.
int listen_on_loopback(int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  BOOST_REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  BOOST_REQUIRE(listen(fd, 4) == 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

// Plays one scripted SMTP conversation on a loopback port: sends the first
// step at once (the greeting), then for each later step reads one command line
// and sends that step's bytes; `close` hangs up after sending.
class ScriptedServer {
 public:
  struct Step {
    std::string send;
    bool close = false;
  };
  explicit ScriptedServer(std::vector<Step> steps) {
    fd_ = listen_on_loopback(port_);
    thread_ = std::thread([this, steps = std::move(steps)] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      for (std::size_t i = 0; i < steps.size(); ++i) {
        if (i > 0) {
          char ch = 0;
          while (recv(c, &ch, 1, 0) == 1 && ch != '\n') {
          }
        }
        send(c, steps[i].send.data(), steps[i].send.size(), MSG_NOSIGNAL);
        if (steps[i].close) break;
      }
      close(c);
    });
  }
  ~ScriptedServer() {
    shutdown(fd_, SHUT_RDWR);  // wakes accept() if nobody came
    thread_.join();
    close(fd_);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

m::SmtpSettings settings_for(int port) {
  m::SmtpSettings s;
  s.port = port;
  s.timeout_seconds = 5;
  s.helo_name = "svc-test.local";
  return s;
}

m::OutgoingMail mail_numbered(int n) {
  m::OutgoingMail mail;
  mail.message_id = "<log-" + std::to_string(n) + ".test@svc.example>";
  mail.from = "shop@example.com";
  mail.from_name = "Shop";
  mail.to = {"ann@example.org"};
  mail.cc = {"cc@example.org"};
  mail.bcc = {"audit@example.net"};
  mail.subject = "Message " + std::to_string(n);
  mail.html = "<p>Hello " + std::to_string(n) + "</p>\n.a line starting with a dot\n.\n";
  mail.date_unix = 1700000000 + n;
  return mail;
}

std::string header_line(const std::string& eml, const std::string& name) {
  const std::size_t at = eml.rfind(name + ": ", 0) == 0 ? 0 : eml.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "<missing>";
  const std::size_t start = eml.find(": ", at) + 2;
  return eml.substr(start, eml.find("\r\n", start) - start);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(smtp_session_test)

BOOST_AUTO_TEST_CASE(dot_stuff_table) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\r\nb\r\n", "a\r\nb\r\n.\r\n"},
      {"a\nb", "a\r\nb\r\n.\r\n"},
      {".x\r\n..y\r\n.\r\nz.\r\n", "..x\r\n...y\r\n..\r\nz.\r\n.\r\n"},
      {"", ".\r\n"},
      {"a\rb", "a\r\nb\r\n.\r\n"},
  };
  for (const auto& [in, out] : cases) BOOST_TEST(m::dot_stuff(in) == out);
}

BOOST_AUTO_TEST_CASE(three_messages_over_one_session) {
  TempDir tmp;
  SmtpSink sink(tmp.path);
  m::SmtpMailer mailer(settings_for(sink.port()));
  for (int n = 1; n <= 3; ++n) {
    const m::SendResult r = mailer.send(mail_numbered(n));
    BOOST_TEST_CONTEXT("message " << n << ": " << r.detail) {
      BOOST_TEST((r.status == SendStatus::Sent));
      BOOST_TEST(r.detail.rfind("250", 0) == 0);
    }
  }
  BOOST_TEST(mailer.connections_opened() == 1);
  mailer.close();

  const auto messages = sink.messages();
  BOOST_REQUIRE_EQUAL(messages.size(), 3u);
  for (int n = 1; n <= 3; ++n) {
    const std::string& eml = messages[static_cast<std::size_t>(n - 1)];
    BOOST_TEST(header_line(eml, "X-Sink-Mail-From") == "shop@example.com");
    BOOST_TEST(header_line(eml, "X-Sink-Rcpt-To") == "ann@example.org, cc@example.org, audit@example.net");
    BOOST_TEST(header_line(eml, "Subject") == "Message " + std::to_string(n));
    BOOST_TEST(eml.find("\r\nBcc:") == std::string::npos);
    // Byte for byte what build_mime produced: dot-stuffing was undone by the server.
    const std::size_t data_start = eml.find("\r\n", eml.find("X-Sink-Rcpt-To")) + 2;
    BOOST_TEST(eml.substr(data_start) == m::build_mime(mail_numbered(n)));
    BOOST_TEST(eml.find("\r\n.a line starting with a dot\r\n") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(without_reuse_each_message_connects) {
  TempDir tmp;
  SmtpSink sink(tmp.path);
  m::SmtpMailer mailer(settings_for(sink.port()), /*reuse_session=*/false);
  BOOST_TEST((mailer.send(mail_numbered(1)).status == SendStatus::Sent));
  BOOST_TEST((mailer.send(mail_numbered(2)).status == SendStatus::Sent));
  BOOST_TEST(mailer.connections_opened() == 2);
  BOOST_TEST(sink.messages().size() == 2u);
}

BOOST_AUTO_TEST_CASE(data_451_is_temporary_and_session_survives) {
  TempDir tmp;
  SmtpSink sink(tmp.path);
  m::SmtpMailer mailer(settings_for(sink.port()));
  sink.control(R"({"data_reply": [451]})");
  const m::SendResult r = mailer.send(mail_numbered(1));
  BOOST_TEST((r.status == SendStatus::TemporaryFailure));
  BOOST_TEST(r.detail.find("451") != std::string::npos, r.detail);
  BOOST_TEST(sink.messages().empty());

  BOOST_TEST((mailer.send(mail_numbered(2)).status == SendStatus::Sent));
  BOOST_TEST(sink.messages().size() == 1u);
  BOOST_TEST(mailer.connections_opened() == 1);

  sink.control(R"({"data_reply": [554]})");
  BOOST_TEST((mailer.send(mail_numbered(3)).status == SendStatus::PermanentFailure));
}

BOOST_AUTO_TEST_CASE(refused_recipient_fails_whole_message) {
  TempDir tmp;
  SmtpSink sink(tmp.path);
  m::SmtpMailer mailer(settings_for(sink.port()));
  sink.control(R"({"rcpt_reject": {"bad@example.com": 550, "later@example.com": 450}})");

  auto mail = mail_numbered(1);
  mail.bcc = {"bad@example.com"};
  m::SendResult r = mailer.send(mail);
  BOOST_TEST((r.status == SendStatus::PermanentFailure));
  BOOST_TEST(r.detail.find("550") != std::string::npos, r.detail);
  BOOST_TEST(r.detail.find("bad@example.com") != std::string::npos, r.detail);
  BOOST_REQUIRE(r.dead_recipients.size() == 1u);  // 550 5.1.1: the mailbox is dead
  BOOST_TEST(r.dead_recipients[0].address == "bad@example.com");
  BOOST_TEST(r.dead_recipients[0].status == "5.1.1");

  mail.bcc = {"later@example.com"};
  r = mailer.send(mail);
  BOOST_TEST((r.status == SendStatus::TemporaryFailure));
  BOOST_TEST(r.detail.find("450") != std::string::npos, r.detail);
  BOOST_TEST(r.dead_recipients.empty());

  mail.bcc = {"later@example.com", "bad@example.com"};  // 5xx wins over 4xx
  r = mailer.send(mail);
  BOOST_TEST((r.status == SendStatus::PermanentFailure));
  BOOST_TEST(r.dead_recipients.size() == 1u);
  BOOST_TEST(sink.messages().empty());

  sink.control(R"({"rcpt_reject": {"bad@example.com": 554}})");  // 554 5.7.1: policy, not the address
  mail.bcc = {"bad@example.com"};
  r = mailer.send(mail);
  BOOST_TEST((r.status == SendStatus::PermanentFailure));
  BOOST_TEST(r.dead_recipients.empty());
  sink.control(R"({})");

  // RSET left the session clean for the next message.
  BOOST_TEST((mailer.send(mail_numbered(2)).status == SendStatus::Sent));
  BOOST_TEST(sink.messages().size() == 1u);
  BOOST_TEST(mailer.connections_opened() == 1);
}

BOOST_AUTO_TEST_CASE(dead_address_status_table) {
  BOOST_TEST(m::dead_address_status("550 5.1.1 <a@b.example>: Recipient address rejected") == "5.1.1");
  BOOST_TEST(m::dead_address_status("550-5.1.1 The email account does not exist") == "5.1.1");
  BOOST_TEST(m::dead_address_status("550 5.1.2 Host unknown") == "5.1.2");
  BOOST_TEST(m::dead_address_status("553 5.1.3 Mailbox name not allowed") == "5.1.3");
  BOOST_TEST(m::dead_address_status("551 5.1.6 User not local") == "5.1.6");
  BOOST_TEST(m::dead_address_status("556 5.1.10 Null MX") == "5.1.10");
  BOOST_TEST(m::dead_address_status("550 5.1.1") == "5.1.1");
  BOOST_TEST(m::dead_address_status("554 5.7.1 Relay access denied") == "");  // policy
  BOOST_TEST(m::dead_address_status("552 5.2.2 Mailbox full") == "");         // the mailbox lives
  BOOST_TEST(m::dead_address_status("550 5.1.8 Bad sender domain") == "");    // the sender, not the recipient
  BOOST_TEST(m::dead_address_status("550 5.1.10x odd") == "");
  BOOST_TEST(m::dead_address_status("550 5.1.11 unknown detail") == "");
  BOOST_TEST(m::dead_address_status("550 No such user here") == "");  // no enhanced code
  BOOST_TEST(m::dead_address_status("450 4.1.1 Try later") == "");
  BOOST_TEST(m::dead_address_status("450 5.1.1 mismatched class") == "");
  BOOST_TEST(m::dead_address_status("") == "");
}

BOOST_AUTO_TEST_CASE(dropped_session_reconnects_then_stopped_sink_is_temporary) {
  TempDir tmp;
  auto sink = std::make_unique<SmtpSink>(tmp.path);
  const int port = sink->port();
  m::SmtpMailer mailer(settings_for(port));
  BOOST_TEST((mailer.send(mail_numbered(1)).status == SendStatus::Sent));

  // The server went away and came back: the stale session is replaced quietly.
  sink.reset();
  sink = std::make_unique<SmtpSink>(tmp.path, std::vector<std::string>{}, port);
  m::SendResult r = mailer.send(mail_numbered(2));
  BOOST_TEST((r.status == SendStatus::Sent), r.detail);
  BOOST_TEST(mailer.connections_opened() == 2);
  BOOST_TEST(sink->messages().size() == 2u);

  sink->stop();
  r = mailer.send(mail_numbered(3));
  BOOST_TEST((r.status == SendStatus::TemporaryFailure));
  BOOST_TEST(!r.detail.empty());
  r = mailer.send(mail_numbered(4));  // a fresh connect is refused as well
  BOOST_TEST_MESSAGE("sink stopped: " << r.detail);
  BOOST_TEST((r.status == SendStatus::TemporaryFailure), r.detail);
  BOOST_TEST(sink->messages().size() == 2u);
}

BOOST_AUTO_TEST_CASE(silent_server_times_out_as_temporary) {
  // A listening socket nobody accepts on: TCP connects, no greeting ever comes.
  int port = 0;
  const int fd = listen_on_loopback(port);

  auto settings = settings_for(port);
  settings.timeout_seconds = 1;
  m::SmtpMailer mailer(settings);
  // No wall-clock assertion: a hang would stop at ctest's timeout; the
  // detail shows that the session's own timeout ended the wait.
  const m::SendResult r = mailer.send(mail_numbered(1));
  close(fd);
  BOOST_TEST((r.status == SendStatus::TemporaryFailure), r.detail);
  BOOST_TEST(svc::core::ascii_lower(r.detail).find("timeout") != std::string::npos, r.detail);
  BOOST_TEST(mailer.connections_opened() == 1);
}

BOOST_AUTO_TEST_CASE(broken_servers_are_temporary_and_never_hang) {
  using Step = ScriptedServer::Step;
  struct Case {
    const char* name;
    std::vector<Step> steps;
    m::SmtpSettings::Security security;
    const char* detail;  // expected inside SendResult::detail
  };
  const std::vector<Case> cases = {
      {"EHLO reply cut short",
       {{"220 hi\r\n"}, {"250-first line of many\r\n", true}},
       m::SmtpSettings::Security::Plain,
       "connection closed"},
      {"garbage instead of a reply",
       {{"220 hi\r\n"}, {"hello there\r\n"}},
       m::SmtpSettings::Security::Plain,
       "malformed reply"},
      {"421 at MAIL on a fresh session is not retried",
       {{"220 hi\r\n"}, {"250 ok\r\n"}, {"421 4.4.2 closing\r\n", true}},
       m::SmtpSettings::Security::Plain,
       "421 4.4.2"},
      {"plaintext injected after 220 to STARTTLS",
       {{"220 hi\r\n"}, {"250-hi\r\n250 STARTTLS\r\n"}, {"220 go ahead\r\n250 injected\r\n"}},
       m::SmtpSettings::Security::StartTls,
       "before TLS"},
      {"STARTTLS required but refused",
       {{"220 hi\r\n"}, {"250 hi\r\n"}, {"502 5.5.1 not implemented\r\n"}},
       m::SmtpSettings::Security::StartTls,
       "STARTTLS refused: 502"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      ScriptedServer server(c.steps);
      auto settings = settings_for(server.port());
      settings.security = c.security;
      settings.verify_peer = false;
      m::SmtpMailer mailer(settings);
      const m::SendResult r = mailer.send(mail_numbered(1));
      BOOST_TEST((r.status == SendStatus::TemporaryFailure), r.detail);
      BOOST_TEST(r.detail.find(c.detail) != std::string::npos, r.detail);
      BOOST_TEST(mailer.connections_opened() == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_addresses_fail_permanently_without_connecting) {
  m::SmtpMailer mailer(settings_for(1));  // nothing listens there; nothing may try
  auto mail = mail_numbered(1);
  mail.to = {"not an address"};
  BOOST_TEST((mailer.send(mail).status == SendStatus::PermanentFailure));
  mail = mail_numbered(1);
  mail.from = "shop@example.com>\r\nRCPT TO:<x@y.z";
  BOOST_TEST((mailer.send(mail).status == SendStatus::PermanentFailure));
  mail = mail_numbered(1);
  mail.to.clear();
  mail.cc.clear();
  mail.bcc.clear();
  BOOST_TEST((mailer.send(mail).status == SendStatus::PermanentFailure));
  BOOST_TEST(mailer.connections_opened() == 0);
}

BOOST_AUTO_TEST_CASE(starttls_smtps_and_auth) {
  TempDir tmp;
  const fs::path key = tmp.path / "key.pem", cert = tmp.path / "cert.pem";
  const int pid =
      run({"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
           "-days", "1", "-subj", "/CN=localhost", "-keyout", key.string(), "-out", cert.string()},
          tmp.path / "openssl.err");
  int status = -1;
  waitpid(pid, &status, 0);
  BOOST_REQUIRE_MESSAGE(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                        "openssl req failed: " << read_file(tmp.path / "openssl.err"));

  {
    SmtpSink sink(tmp.path, {"--tls-cert", cert.string(), "--tls-key", key.string(), "--auth", "mailer:s3cret"});
    auto settings = settings_for(sink.port());
    settings.security = m::SmtpSettings::Security::StartTls;
    settings.verify_peer = false;
    settings.username = "mailer";
    settings.password = "s3cret";
    for (auto method : {m::SmtpSettings::AuthMethod::Login, m::SmtpSettings::AuthMethod::Plain}) {
      settings.auth = method;
      m::SmtpMailer mailer(settings);
      const m::SendResult r = mailer.send(mail_numbered(1));
      BOOST_TEST((r.status == SendStatus::Sent), r.detail);
      BOOST_TEST((mailer.send(mail_numbered(2)).status == SendStatus::Sent));
      BOOST_TEST(mailer.connections_opened() == 1);
    }
    BOOST_TEST(sink.messages().size() == 4u);

    settings.password = "wrong";
    m::SendResult r = m::SmtpMailer(settings).send(mail_numbered(3));
    BOOST_TEST((r.status == SendStatus::TemporaryFailure));
    BOOST_TEST(r.detail.find("AUTH") != std::string::npos, r.detail);
    BOOST_TEST(r.detail.find("wrong") == std::string::npos, r.detail);

    // A self-signed certificate is refused when the peer is verified.
    settings.password = "s3cret";
    settings.verify_peer = true;
    r = m::SmtpMailer(settings).send(mail_numbered(4));
    BOOST_TEST_MESSAGE("verify_peer against a self-signed certificate: " << r.detail);
    BOOST_TEST((r.status == SendStatus::TemporaryFailure), r.detail);
    BOOST_TEST(sink.messages().size() == 4u);
  }
  {
    SmtpSink sink(tmp.path, {"--tls-cert", cert.string(), "--tls-key", key.string(), "--tls-mode", "implicit"});
    auto settings = settings_for(sink.port());
    settings.security = m::SmtpSettings::Security::Tls;
    settings.verify_peer = false;
    m::SmtpMailer mailer(settings);
    const m::SendResult r = mailer.send(mail_numbered(5));
    BOOST_TEST((r.status == SendStatus::Sent), r.detail);
    BOOST_TEST(sink.messages().size() == 5u);
  }
}

BOOST_AUTO_TEST_SUITE_END()

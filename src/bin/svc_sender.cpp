// svc-sender: delivers Pending notification e-mails. One pass by default (the
// systemd timer runs it every minute); --loop SECONDS repeats passes (local
// stack). Exit status: 0 everything claimed was sent (or nothing was due),
// 1 some row failed or was deferred, or the database was unreachable, 2 bad
// command line or configuration.
#include <sodium.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "db/database.hpp"
#include "db/outbox_repo.hpp"
#include "db/site_mail_repo.hpp"
#include "db/suppression_repo.hpp"
#include "messaging/sender.hpp"
#include "messaging/sender_run_record.hpp"
#include "messaging/smtp_config.hpp"
#include "messaging/smtp_session.hpp"
#include "webhooks/sender.hpp"

namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_stop_signal(int) { g_stop = 1; }

constexpr const char* kUsage =
    "usage: svc-sender [--config FILE] [--loop SECONDS] [--batch N] [--dry-run]\n"
    "  --config FILE    configuration (default $SVC_CONFIG, then /etc/svc/svc.conf)\n"
    "  --loop SECONDS   keep running: a pass, then SECONDS of sleep, until SIGTERM\n"
    "  --batch N        rows claimed per batch (default [smtp] batch)\n"
    "  --dry-run        claim nothing, send nothing: print the rows that are due\n"
    "Exit status: 0 all sent or nothing due; 1 a row failed or was deferred; 2 usage or configuration error.\n";

struct Options {
  std::optional<int> loop_seconds;
  std::optional<int> batch;
  bool dry_run = false;
};

struct UsageError {
  std::string message;
};

int parse_positive(const std::string& name, const std::string& value, int max) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || n < 1 || n > max) {
    throw UsageError{name + " expects an integer from 1 to " + std::to_string(max) + ", got '" + value + "'"};
  }
  return static_cast<int>(n);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError{arg + " needs a value"};
      return argv[++i];
    };
    if (arg == "--config") {
      next();  // read by config_path_from()
    } else if (arg == "--loop") {
      o.loop_seconds = parse_positive("--loop", next(), 3600);
    } else if (arg == "--batch") {
      o.batch = parse_positive("--batch", next(), 10000);
    } else if (arg == "--dry-run" && !has_value) {
      o.dry_run = true;
    } else {
      throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
    }
  }
  if (o.dry_run && o.loop_seconds) throw UsageError{"--dry-run and --loop do not go together"};
  return o;
}

// host:pid:random — unique per run, readable in `svc-admin outbox list`.
std::string claimer_name() {
  char host[65] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown");
  return std::string(host) + ":" + std::to_string(getpid()) + ":" +
         svc::crypto::hex_encode(svc::crypto::random_bytes(4));
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a sleep ends at once
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

// Prints the rows that are due, without claiming them.
void print_due(svc::db::OutboxRepo& repo, int batch) {
  const auto rows = repo.due(batch);
  std::printf("%zu row(s) due (showing at most %d; nothing claimed, nothing sent)\n", rows.size(), batch);
  for (const auto& r : rows) {
    using svc::core::mask_controls;  // a stored value on one output line
    std::printf("id=%lld site=%lld event=%s attempts=%d to=%s cc=%s bcc=%s subject=%s\n", r.id, r.mail.site_id,
                mask_controls(r.mail.event).c_str(), r.attempts, mask_controls(r.mail.recipient).c_str(),
                mask_controls(r.mail.cc).c_str(), mask_controls(r.mail.bcc).c_str(),
                mask_controls(r.mail.subject).c_str());
  }
}

void log_error(const char* event, const std::exception& e) {
  svc::core::LogLine("error", event).str("error", e.what()).emit();
}

bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  }
  return false;
}

// Fills `options` and `config` from the command line; false (after a message
// on stderr) when either is unusable.
bool read_command_line(int argc, char** argv, Options& options, svc::config::Config& config) {
  try {
    options = parse_options(argc, argv);
    config = svc::config::load_config(svc::config::config_path_from(argc, argv));
    return true;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "svc-sender: %s\n%s", e.message.c_str(), kUsage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "svc-sender: %s\n", e.what());
  }
  return false;
}

svc::messaging::SenderSettings sender_settings(const Options& options, const svc::config::Config& config) {
  svc::messaging::SenderSettings settings;
  settings.batch = options.batch.value_or(config.smtp.batch);
  settings.lease_seconds = config.smtp.lease_seconds;
  settings.max_attempts = config.smtp.max_attempts;
  settings.backoff_seconds = config.smtp.backoff_seconds;
  return settings;
}

int dry_run(svc::db::OutboxRepo& repo, int batch) {
  try {
    print_due(repo, batch);
    return 0;
  } catch (const std::exception& e) {
    log_error("dry_run_failed", e);
    return 1;
  }
}

// The webhooks that are due, after the mail (webhooks/sender.hpp), then the
// retention of finished deliveries; one log line when either did anything.
void webhook_pass(svc::webhooks::WebhookSender& webhooks) {
  const auto counts = webhooks.run_pass();
  if (const long long purged = webhooks.purge_finished(); purged > 0) {
    svc::core::LogLine("info", "webhook_purge").num("deleted", purged).emit();
  }
  if (counts.claimed == 0) return;
  svc::core::LogLine line("info", "webhook_pass");
  line.num("claimed", counts.claimed).num("deferred", counts.deferred).num("failed", counts.failed);
  for (const auto& [outcome, n] : counts.outcomes) line.num(outcome, n);
  line.emit();
}

// One pass (the systemd timer's run): 0 when nothing was deferred or failed.
int run_once(svc::messaging::Sender& sender, svc::db::Database& db, svc::webhooks::WebhookSender& webhooks) {
  svc::messaging::RunRecord record(db);  // figures for GET /metrics
  try {
    const auto totals = sender.run_pass();
    webhook_pass(webhooks);
    record.finish(totals);
    svc::core::LogLine line("info", "run");
    svc::messaging::add_counts(line, totals);
    line.emit();
    return totals.retry > 0 || totals.failed > 0 ? 1 : 0;
  } catch (const std::exception& e) {
    // Rows claimed before the error stay claimed until their lease ends.
    log_error("run_failed", e);
    return 1;
  }
}

// Passes every loop_seconds until SIGTERM/SIGINT; a failed pass starts the
// next one on a fresh SMTP session and database connection.
int run_loop(svc::messaging::Sender& sender, svc::db::Database& db, svc::webhooks::WebhookSender& webhooks,
             int loop_seconds, int batch, int sessions) {
  svc::core::LogLine("info", "start")
      .num("loop_seconds", loop_seconds)
      .num("batch", batch)
      .num("sessions", sessions)
      .emit();
  while (!g_stop) {
    try {
      svc::messaging::RunRecord record(db);  // figures for GET /metrics
      record.finish(sender.run_pass());
      webhook_pass(webhooks);
    } catch (const std::exception& e) {
      log_error("pass_failed", e);
      sender.close_sessions();
      db.reset();
    }
    for (int tenths = 0; tenths < loop_seconds * 10 && !g_stop; ++tenths) usleep(100 * 1000);
  }
  svc::core::LogLine("info", "stop").emit();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  svc::core::set_log_process("sender");
  Options options;
  svc::config::Config config;
  if (!read_command_line(argc, argv, options, config)) return 2;
  if (sodium_init() < 0) {
    std::fprintf(stderr, "svc-sender: libsodium failed to initialise\n");
    return 2;
  }

  svc::db::Database db(config.database);
  svc::db::OutboxRepo repo(db);
  repo.set_bounce_guard(config.smtp.max_bounce_rate, config.smtp.bounce_rate_min_mails);
  const svc::messaging::SenderSettings settings = sender_settings(options, config);
  if (options.dry_run) return dry_run(repo, settings.batch);

  install_signal_handlers();
  // [smtp] sessions: one SmtpMailer (one reused connection) per session.
  std::vector<std::unique_ptr<svc::messaging::SmtpMailer>> sessions;
  std::vector<svc::messaging::Mailer*> mailers;
  for (int i = 0; i < config.smtp.sessions; ++i) {
    sessions.push_back(std::make_unique<svc::messaging::SmtpMailer>(svc::messaging::smtp_settings(config.smtp)));
    mailers.push_back(sessions.back().get());
  }
  svc::core::SystemClock clock;
  svc::messaging::Sender sender(
      repo, mailers, clock, settings, claimer_name(), [](std::uint32_t upper) { return randombytes_uniform(upper); },
      &g_stop);
  sender.set_dkim_lookup([&repo_db = db](long long site_id) -> std::optional<svc::messaging::DkimKey> {
    const auto site = svc::db::SiteMailRepo(repo_db).find(site_id);
    if (!site || !site->dkim) return std::nullopt;
    return svc::messaging::DkimKey{site->domain, site->dkim->selector, site->dkim->algorithm, site->dkim->private_pem};
  });
  sender.set_suppression_lookup(
      [&repo_db = db](const svc::db::OutboxMessage& row, const std::vector<std::string>& addresses) {
        return svc::db::SuppressionRepo(repo_db).blocking(row.mail.site_id, row.priority, addresses);
      });
  sender.set_dead_recipient_hook(
      [&repo_db = db](const svc::db::OutboxMessage& row, const svc::messaging::DeadRecipient& dead) {
        svc::db::SuppressionRepo suppressions(repo_db);
        suppressions.record_bounce(row.mail.site_id, row.id, svc::core::ascii_lower(dead.address), "hard", dead.status);
        suppressions.add(row.mail.site_id, dead.address, "bounce", "RCPT " + dead.status, row.id);
      });
  sender.set_marks({config.smtp.bounce_address, config.smtp.unsubscribe_url, config.keys.mail_key});
  svc::db::WebhookRepo webhook_repo(db);
  svc::webhooks::WebhookSender webhooks(webhook_repo, config, claimer_name(), &g_stop);
  if (!options.loop_seconds) return run_once(sender, db, webhooks);
  return run_loop(sender, db, webhooks, *options.loop_seconds, settings.batch, config.smtp.sessions);
}

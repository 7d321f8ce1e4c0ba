// One svc-sender pass for `make bench`, with SMTP session reuse switched on
// or off. svc-sender itself has no switch for it; SmtpMailer does
// (SmtpSettings::reuse_session), so this program runs the same Sender over the
// same OutboxRepo and SmtpMailer as svc-sender's one-shot mode, built from
// build-release/libsvc_core.a.
//
//   sender_pass --config FILE --reuse 1|0
//
// Prints one JSON line: {"reuse":..,"claimed":..,"sent":..,"failed":..,
// "retry":..,"connections":..,"seconds":..}
#include <sodium.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "config/config.hpp"
#include "core/clock.hpp"
#include "crypto/encoding.hpp"
#include "db/database.hpp"
#include "db/outbox_repo.hpp"
#include "messaging/sender.hpp"
#include "messaging/smtp_config.hpp"
#include "messaging/smtp_session.hpp"

int main(int argc, char** argv) {
  bool reuse = true;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--reuse") == 0) reuse = std::strcmp(argv[i + 1], "0") != 0;
  }
  try {
    svc::config::Config config = svc::config::load_config(svc::config::config_path_from(argc, argv));
    if (sodium_init() < 0) return 2;
    svc::db::Database db(config.database);
    svc::db::OutboxRepo repo(db);
    svc::messaging::SenderSettings settings;
    settings.batch = config.smtp.batch;
    settings.lease_seconds = config.smtp.lease_seconds;
    settings.max_attempts = config.smtp.max_attempts;
    settings.backoff_seconds = config.smtp.backoff_seconds;
    svc::messaging::SmtpMailer mailer(svc::messaging::smtp_settings(config.smtp), reuse);
    svc::core::SystemClock clock;
    svc::messaging::Sender sender(
        repo, mailer, clock, settings,
        "bench:" + std::to_string(getpid()) + ":" + svc::crypto::hex_encode(svc::crypto::random_bytes(4)),
        [](std::uint32_t upper) { return randombytes_uniform(upper); });
    const auto started = std::chrono::steady_clock::now();
    const auto totals = sender.run_pass();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf(
        "{\"reuse\":%s,\"claimed\":%d,\"sent\":%d,\"failed\":%d,\"retry\":%d,\"connections\":%d,\"seconds\":%.3f}\n",
        reuse ? "true" : "false", totals.claimed, totals.sent, totals.failed, totals.retry, mailer.connections_opened(),
        seconds);
    return totals.sent == totals.claimed ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sender_pass: %s\n", e.what());
    return 2;
  }
}

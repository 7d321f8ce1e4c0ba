#include "admin/mail_commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <iterator>
#include <optional>

#include "admin/command_env.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "db/outbox_repo.hpp"
#include "db/suppression_repo.hpp"
#include "messaging/bounce_report.hpp"
#include "messaging/mail_tags.hpp"
#include "messaging/outgoing_mail.hpp"

namespace svc::admin {
namespace {

// sysexits.h
constexpr int kExOk = 0;
constexpr int kExUsage = 64;
constexpr int kExDataErr = 65;
constexpr int kExTempFail = 75;
constexpr int kExConfig = 78;

// A DSN quotes the original message, which may be large; the report parts
// come first, so the rest is not needed.
constexpr std::size_t kMaxMessageBytes = 10 * 1024 * 1024;

std::string read_stdin() {
  std::string message;
  char buffer[65536];
  while (message.size() < kMaxMessageBytes && std::cin.read(buffer, sizeof buffer).gcount() > 0) {
    message.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
  }
  return message;
}

// A report can name only the recipient of the copy its tag came with
// (messaging/envelopes.hpp): the row and that recipient, or why there is none.
struct Tagged {
  std::optional<db::OutboxMessage> row;
  std::string recipient;
  std::string why_not;
};

// A message quoting many tag-shaped addresses costs one row read each: a
// genuine report carries one or two.
constexpr std::size_t kMaxTagCandidates = 16;

// Where the tag may be, most trusted first: --recipient, the envelope
// recipient Postfix's local(8) and Exim's pipe transport put into the
// environment, then the message itself (a DSN's To, an ARF report's quoted
// Return-Path). The first tag that verifies against its row's recipients wins.
Tagged find_tagged(const Args& args, const std::string& message, const config::Config& c, db::Database& db) {
  std::string envelope = args.get("recipient").value_or("");
  for (const char* name : {"ORIGINAL_RECIPIENT", "RECIPIENT"}) {
    if (const char* v = std::getenv(name)) envelope += std::string(" ") + v;
  }
  auto candidates = messaging::find_verp_candidates(envelope, c.smtp.bounce_address, kMaxTagCandidates);
  for (auto& more : messaging::find_verp_candidates(message, c.smtp.bounce_address, kMaxTagCandidates)) {
    if (candidates.size() < kMaxTagCandidates) candidates.push_back(std::move(more));
  }
  Tagged found;
  found.why_not = "no bounce tag";
  db::OutboxRepo repo(db);
  for (const auto& candidate : candidates) {
    auto row = repo.message(candidate.log_id);
    if (!row) {
      found.why_not = "bounce tag does not verify (no outbox row " + std::to_string(candidate.log_id) + ")";
      continue;
    }
    const auto recipients = messaging::envelope_recipients(messaging::outgoing_mail_for(*row));
    if (auto recipient = messaging::tagged_recipient(candidate, recipients, c.keys.mail_key)) {
      found.row = std::move(row);
      found.recipient = core::ascii_lower(*recipient);
      return found;
    }
    found.why_not = "bounce tag does not verify";
  }
  return found;
}

void log_ingest(const char* outcome, long long log_id, const std::string& detail) {
  core::LogLine line("info", "mail_ingest");
  line.str("outcome", outcome);
  if (log_id > 0) line.num("log_id", log_id);
  line.str("detail", detail).emit();
  std::printf("%s%s%s\n", outcome, detail.empty() ? "" : ": ", detail.c_str());
}

// Suppresses what the report says about `recipient` of outbox row `row`
// (the one its tag names; anything about another address is ignored); the
// line to log.
std::string apply_report(db::Database& db, const messaging::BounceReport& report, const db::OutboxMessage& row,
                         const std::string& recipient) {
  db::SuppressionRepo repo(db);
  std::string done;
  auto note = [&](const std::string& s) { done += (done.empty() ? "" : "; ") + s; };
  if (report.kind == messaging::BounceReport::Kind::Complaint) {
    // Providers often redact the complainer's address: the tag says who
    // received the copy complained about.
    repo.record_bounce(row.mail.site_id, row.id, recipient, "complaint", report.feedback_type);
    repo.add(row.mail.site_id, recipient, "complaint", "feedback-type " + report.feedback_type, row.id);
    return "complaint: suppressed " + recipient;
  }
  for (const auto& r : report.recipients) {
    if (r.address != recipient) {
      note("not the recipient the bounce tag names: " + r.address);
    } else if (r.hard()) {
      repo.record_bounce(row.mail.site_id, row.id, r.address, "hard", r.status);
      repo.add(row.mail.site_id, r.address, "bounce", "DSN " + r.status, row.id);
      note("hard bounce " + r.status + ": suppressed " + r.address);
    } else if (r.action == "failed" || r.action == "delayed") {
      repo.record_bounce(row.mail.site_id, row.id, r.address, "soft", r.status);
      note("soft bounce " + r.status + " noted: " + r.address);
    } else {
      note("action " + r.action + " ignored: " + r.address);
    }
  }
  return done.empty() ? "no recipient in the report" : done;
}

int ingest(const Args& args, const std::string& config_path) {
  CommandEnv env(config_path);
  const config::Config& c = env.config;
  if (c.smtp.bounce_address.empty() || c.keys.mail_key.empty()) {
    std::fprintf(stderr, "svc-admin: mail ingest needs [smtp] bounce_address and [keys] mail_key\n");
    return kExConfig;
  }
  const std::string message = read_stdin();
  messaging::BounceReport report;
  try {
    report = messaging::parse_bounce(message);
  } catch (const messaging::BounceParseError& e) {
    std::fprintf(stderr, "svc-admin: mail ingest: unreadable message: %s\n", e.what());
    return kExDataErr;
  }
  using Kind = messaging::BounceReport::Kind;
  if (report.kind == Kind::AutoReply || report.kind == Kind::Other) {
    log_ingest("ignored", 0, report.kind == Kind::AutoReply ? "auto-reply" : "not a bounce or complaint");
    return kExOk;
  }
  const Tagged tagged = find_tagged(args, message, c, env.db);
  if (!tagged.row) {
    log_ingest("ignored", 0, tagged.why_not);
    return kExOk;
  }
  log_ingest("processed", tagged.row->id, apply_report(env.db, report, *tagged.row, tagged.recipient));
  return kExOk;
}

}  // namespace

int cmd_mail_ingest(const Args& args, const std::string& config_path) {
  try {
    args.allow_only({"recipient"});
    return ingest(args, config_path);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "svc-admin: %s\n", e.what());
    return kExUsage;
  } catch (const std::exception& e) {
    // The configuration or the database: the MTA keeps the message and
    // hands it over again later.
    std::fprintf(stderr, "svc-admin: mail ingest: %s (temporary failure, the MTA retries)\n", e.what());
    return kExTempFail;
  }
}

}  // namespace svc::admin

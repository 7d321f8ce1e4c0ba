#pragma once
// The Mail capability of site management (design "Site administrators and
// the site management API"): the site's notification log, one mail as
// svc-sender renders it, resending a Failed one, the suppression list and
// the bounce-rate guard. For svc-admin (`outbox list|show|retry|stats`,
// `suppression list|add|remove`) and /admin/sites/{site}/mail,
// /suppressions and /bounce-guard. Every read and change is scoped to the
// actor's site: another site's row is "not found".

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/context.hpp"
#include "db/outbox_repo.hpp"
#include "db/suppression_repo.hpp"
#include "manage/actor.hpp"
#include "manage/page.hpp"
#include "messaging/mime.hpp"

namespace svc::manage {

// The log's filters as a request or a command gives them ("" = none).
struct MailQuery {
  std::string status;     // Pending | Sent | Failed
  std::string event;      // a template's event
  std::string recipient;  // an address: the mails to it (alone)
  std::string since;      // "2026-11-29T10:00:00Z" or "2026-11-29": created at or after
  std::string until;      // idem: created before
};

// A page of the site's mail, newest first. Any role. 400 naming the field
// for a bad filter (status, event, recipient, since, until) or cursor.
Page<db::OutboxListing> list_mail(core::Context& ctx, const Actor& actor, const MailQuery& query,
                                  const std::string& cursor, int limit);

// One mail of the log and what became of it.
struct MailEntry {
  db::OutboxListing row;
  // The message as svc-sender builds it from the row (From, To, Cc, Bcc,
  // Subject, Message-ID, Date, HTML), one-time links and codes redacted
  // even while it is Pending; `text` is its text/plain part.
  messaging::OutgoingMail mail;
  std::string text;
  std::vector<db::BounceNote> bounces;            // bounces and complaints about it
  std::map<std::string, std::string> suppressed;  // its recipients suppressed now: address -> reason
};

// 404 "Message not found" for an id that names no mail of the site. Any role.
MailEntry show_mail(core::Context& ctx, const Actor& actor, long long id);

// A Failed mail back to Pending (attempts 0, due now): svc-sender delivers
// it on its next pass. Role admin. 404 "Message not found"; 409 when it is
// not Failed, or when its one-time link or code was redacted (the user must
// ask for a new one). Audit "mail.resend". Returns the row as it is now.
db::OutboxListing resend_mail(core::Context& ctx, const Actor& actor, long long id);

// The site's suppressions, newest first; reason "" = every reason (else
// one of db::kSuppressionReasons, 400 field "reason"). Any role.
Page<db::Suppression> list_suppressions(core::Context& ctx, const Actor& actor, const std::string& reason,
                                        const std::string& cursor, int limit);

// Stops mail of the site to `email` (reason manual unless given). Role
// admin. 400 for a bad address ("email"), reason or detail. Audit
// "mail.suppress". True when the suppression is new.
bool add_suppression(core::Context& ctx, const Actor& actor, const std::string& email, const std::string& reason,
                     const std::string& detail);

// Lets mail go to `email` again: its suppressions of `reason` ("" = all).
// Role admin. 404 "Suppression not found" when there was none. Audit
// "mail.unsuppress". Returns how many were removed.
int remove_suppression(core::Context& ctx, const Actor& actor, const std::string& email, const std::string& reason);

// The bounce-rate guard ([smtp] max_bounce_rate, bounce_rate_min_mails) as
// it stands for the site: over the rate, svc-sender holds its bulk mail
// back (db::OutboxRepo::set_bounce_guard). Read-only: the limits are the
// operator's configuration. Any role.
struct BounceGuard {
  int max_rate_percent = 0;  // 0 = the guard is off
  int min_mails = 0;
  long long hard_bounces = 0;  // in the last hour
  long long mails = 0;         // Sent or Failed, created in the last hour
  bool holding = false;        // the site's bulk mail is held back now
};
BounceGuard bounce_guard(core::Context& ctx, const Actor& actor);

// --- the operator's views over every site (svc-admin without --site) ---

// The site of outbox row `id`; 404 "Message not found" when there is none.
long long mail_site(core::Context& ctx, long long id);
// Newest first, every site (outbox list without --site).
std::vector<db::OutboxListing> all_sites_mail(core::Context& ctx, const std::string& status, int limit);
// Newest first, every site (suppression list without --site).
std::vector<db::Suppression> all_sites_suppressions(core::Context& ctx, const std::string& reason, int limit);
// The queue over every site, the bounce-rate guard as configured, and the
// suppressions per reason (outbox stats).
struct OutboxOverview {
  db::OutboxStats stats;
  std::vector<std::pair<std::string, long long>> suppressed;  // per db::kSuppressionReasons, in its order
};
OutboxOverview outbox_overview(core::Context& ctx);

}  // namespace svc::manage

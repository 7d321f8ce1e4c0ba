#pragma once
// The suppression list (svc_mail_suppressions) and the bounces and
// complaints that feed it (svc_mail_bounces), migration 013. Every query is
// scoped to one site except the operator's and the metrics' overviews.
//
// Which mail a suppression stops depends on its reason (docs/decisions.md
// "Deliverability"):
//   bounce, manual  every mail, account mail included (the address is dead
//                   or the operator said so);
//   complaint       normal and bulk mail: account mail (reset, codes,
//                   verification, MFA notices) still goes out;
//   unsubscribe     bulk mail only.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "db/database.hpp"

namespace svc::db {

// The sites over the bounce-rate guard: site_id, hard, mails. Parameters:
// min_mails, percent. Shared by over_bounce_rate() and the /metrics gauge.
inline constexpr const char* kSitesOverBounceRate =
    "SELECT b.site_id, b.hard, COUNT(l.id) AS mails FROM"
    " (SELECT site_id, COUNT(*) AS hard FROM svc_mail_bounces WHERE kind = 'hard'"
    "  AND created_at > NOW() - INTERVAL 1 HOUR GROUP BY site_id) b"
    " JOIN svc_notification_log l ON l.site_id = b.site_id AND l.created_at > NOW() - INTERVAL 1 HOUR"
    "  AND l.status IN ('Sent', 'Failed')"
    " GROUP BY b.site_id, b.hard HAVING mails >= ? AND b.hard * 100 > ? * mails";

inline constexpr const char* kSuppressionReasons[] = {"bounce", "complaint", "unsubscribe", "manual"};

// True for one of kSuppressionReasons.
bool is_suppression_reason(const std::string& reason);

struct Suppression {
  long long site_id = 0;
  std::string address;
  std::string reason;
  std::string detail;
  long long log_id = 0;    // 0 = none
  std::string created_at;  // "YYYY-MM-DD HH:MM:SS" UTC
};

// A site's hard bounces and mails (Sent or Failed rows created) in the last hour.
struct BounceRate {
  long long site_id = 0;
  long long hard = 0;
  long long mails = 0;
};

// Where a page of a site's suppression list ended: its last row's key.
struct SuppressionPosition {
  std::string created_at;
  std::string address;
  std::string reason;
};

// One bounce or complaint note of svc_mail_bounces.
struct BounceNote {
  std::string address;
  std::string kind;    // hard | soft | complaint
  std::string status;  // the DSN status ("5.1.1") or the feedback type
  std::string created_at;
};

class SuppressionRepo {
 public:
  explicit SuppressionRepo(Database& db) : db_(db) {}

  // Suppresses `address` (lower-cased here) for the site; an existing row
  // of the same reason keeps its time and gets the new detail. True when
  // the row is new.
  bool add(long long site_id, const std::string& address, const std::string& reason, const std::string& detail,
           long long log_id = 0);
  // Removes the address's rows (of one reason, or all when reason is ""); the count removed.
  int remove(long long site_id, const std::string& address, const std::string& reason);
  // Newest first; site_id 0 = every site, reason "" = every reason.
  std::vector<Suppression> list(long long site_id, const std::string& reason, int limit);
  // The site's suppressions newest first (created_at, then address and
  // reason, descending), after `after` when given; reason "" = every
  // reason. A range read of (site_id, created_at), sql/038.
  std::vector<Suppression> site_page(long long site_id, const std::string& reason,
                                     const std::optional<SuppressionPosition>& after, int limit);
  // Of `addresses` (any case), those a mail of `priority` (kPriorityHigh..
  // kPriorityBulk) must not go to, lower-cased, each with its reason.
  std::map<std::string, std::string> blocking(long long site_id, int priority,
                                              const std::vector<std::string>& addresses);
  // Rows per reason, every site together (/metrics, outbox stats).
  std::vector<std::pair<std::string, long long>> counts_by_reason();

  // Notes a bounce or complaint (kind: hard, soft or complaint).
  void record_bounce(long long site_id, long long log_id, const std::string& address, const std::string& kind,
                     const std::string& status);
  // The sites whose hard bounces in the last hour exceed `percent` % of at
  // least `min_mails` mails of that hour (the bounce-rate guard). Empty when
  // percent is 0.
  std::vector<BounceRate> over_bounce_rate(int percent, int min_mails);
  // One site's hard bounces and mails of the last hour, as over_bounce_rate counts them.
  BounceRate bounce_rate(long long site_id);
  // The bounce and complaint notes of one mail of the site, oldest first.
  std::vector<BounceNote> bounces_of(long long site_id, long long log_id);

 private:
  Database& db_;
};

}  // namespace svc::db

#include "db/suppression_repo.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "db/notification_repo.hpp"
#include "db/transaction.hpp"
#include "db/webhook_repo.hpp"

namespace svc::db {
namespace {

// The reasons that stop a mail of this priority (see the header).
std::vector<std::string> reasons_blocking(int priority) {
  std::vector<std::string> r = {"bounce", "manual"};
  if (priority >= kPriorityNormal) r.push_back("complaint");
  if (priority >= kPriorityBulk) r.push_back("unsubscribe");
  return r;
}

}  // namespace

bool is_suppression_reason(const std::string& reason) {
  return std::any_of(std::begin(kSuppressionReasons), std::end(kSuppressionReasons),
                     [&](const char* r) { return reason == r; });
}

bool SuppressionRepo::add(long long site_id, const std::string& address, const std::string& reason,
                          const std::string& detail, long long log_id) {
  // 1 = inserted, 2 = updated, 0 = unchanged (MariaDB's affected rows).
  return db_.execute_idempotent(
             "INSERT INTO svc_mail_suppressions (site_id, address, reason, detail, log_id) VALUES (?, ?, ?, ?, ?)"
             " ON DUPLICATE KEY UPDATE detail = VALUES(detail)",
             [&](Params& p) {
               p.integer(site_id).text(core::ascii_lower(address)).text(reason).text(detail.substr(0, 255));
               p.id_or_null(log_id);
             }) == 1;
}

int SuppressionRepo::remove(long long site_id, const std::string& address, const std::string& reason) {
  return db_.execute_idempotent(
      "DELETE FROM svc_mail_suppressions WHERE site_id = ? AND address = ? AND (? = '' OR reason = ?)",
      [&](Params& p) { p.integer(site_id).text(core::ascii_lower(address)).text(reason).text(reason); });
}

std::vector<Suppression> SuppressionRepo::list(long long site_id, const std::string& reason, int limit) {
  return db_.rows(
      "SELECT site_id, address, reason, detail, COALESCE(log_id, 0), created_at FROM svc_mail_suppressions"
      " WHERE (? = 0 OR site_id = ?) AND (? = '' OR reason = ?) ORDER BY created_at DESC, address LIMIT ?",
      [&](Params& p) { p.integer(site_id).integer(site_id).text(reason).text(reason).integer(limit); },
      [](RowReader& r) {
        Suppression s;
        r.read(s.site_id, s.address, s.reason, s.detail, s.log_id, s.created_at);
        return s;
      });
}

std::vector<Suppression> SuppressionRepo::site_page(long long site_id, const std::string& reason,
                                                    const std::optional<SuppressionPosition>& after, int limit) {
  std::string sql =
      "SELECT site_id, address, reason, detail, COALESCE(log_id, 0), created_at FROM svc_mail_suppressions"
      " FORCE INDEX (ix_svc_mail_suppressions_site_created) WHERE site_id = ? AND (? = '' OR reason = ?)";
  if (after) {
    sql += " AND (created_at < ? OR (created_at = ? AND (address < ? OR (address = ? AND reason < ?))))";
  }
  sql += " ORDER BY created_at DESC, address DESC, reason DESC LIMIT ?";
  return db_.rows(
      sql,
      [&](Params& p) {
        p.integer(site_id).text(reason).text(reason);
        if (after) {
          p.text(after->created_at).text(after->created_at).text(after->address).text(after->address);
          p.text(after->reason);
        }
        p.integer(limit);
      },
      [](RowReader& r) {
        Suppression s;
        r.read(s.site_id, s.address, s.reason, s.detail, s.log_id, s.created_at);
        return s;
      });
}

std::map<std::string, std::string> SuppressionRepo::blocking(long long site_id, int priority,
                                                             const std::vector<std::string>& addresses) {
  std::map<std::string, std::string> out;
  if (addresses.empty()) return out;
  const auto reasons = reasons_blocking(priority);
  const auto rows = db_.rows(
      "SELECT address, reason FROM svc_mail_suppressions WHERE site_id = ? AND address IN (" +
          placeholders(addresses.size()) + ") AND reason IN (" + placeholders(reasons.size()) +
          ") ORDER BY address, reason",
      [&](Params& p) {
        p.integer(site_id);
        for (const auto& a : addresses) p.text(core::ascii_lower(a));
        for (const auto& r : reasons) p.text(r);
      },
      [](RowReader& r) {
        std::string address = r.text();
        return std::pair(std::move(address), r.text());
      });
  for (const auto& [address, reason] : rows) out.emplace(address, reason);
  return out;
}

std::vector<std::pair<std::string, long long>> SuppressionRepo::counts_by_reason() {
  return db_.rows("SELECT reason, COUNT(*) FROM svc_mail_suppressions GROUP BY reason ORDER BY reason", kNoParams,
                  [](RowReader& r) {
                    std::string reason = r.text();
                    return std::pair(std::move(reason), r.integer());
                  });
}

void SuppressionRepo::record_bounce(long long site_id, long long log_id, const std::string& address,
                                    const std::string& kind, const std::string& status) {
  // With its webhook event (message.bounced / message.complained) or not at all.
  with_transaction_retry(db_, [&] {
    Transaction tx(db_);
    db_.execute("INSERT INTO svc_mail_bounces (site_id, log_id, address, kind, status) VALUES (?, ?, ?, ?, ?)",
                [&](Params& p) {
                  p.integer(site_id).id_or_null(log_id).text(core::ascii_lower(address).substr(0, 254)).text(kind);
                  p.text(status.substr(0, 32));
                });
    WebhookData data;
    data.site_id = site_id;
    data.email = address;
    data.reason = kind + " " + status;
    data.message_id = log_id;
    WebhookRepo(db_).enqueue(site_id, kind == "complaint" ? "message.complained" : "message.bounced", data);
    tx.commit();
  });
}

std::vector<BounceRate> SuppressionRepo::over_bounce_rate(int percent, int min_mails) {
  if (percent <= 0) return {};
  return db_.rows(
      std::string(kSitesOverBounceRate) + " ORDER BY b.site_id",
      [&](Params& p) { p.integer(min_mails).integer(percent); },
      [](RowReader& r) {
        BounceRate b;
        r.read(b.site_id, b.hard, b.mails);
        return b;
      });
}

BounceRate SuppressionRepo::bounce_rate(long long site_id) {
  BounceRate rate;
  rate.site_id = site_id;
  rate.hard = db_.one(
                     "SELECT COUNT(*) FROM svc_mail_bounces WHERE site_id = ? AND kind = 'hard'"
                     " AND created_at > NOW() - INTERVAL 1 HOUR",
                     [&](Params& p) { p.integer(site_id); }, [](RowReader& r) { return r.integer(); })
                  .value_or(0);
  rate.mails = db_.one(
                      "SELECT COUNT(*) FROM svc_notification_log WHERE site_id = ?"
                      " AND created_at > NOW() - INTERVAL 1 HOUR AND status IN ('Sent', 'Failed')",
                      [&](Params& p) { p.integer(site_id); }, [](RowReader& r) { return r.integer(); })
                   .value_or(0);
  return rate;
}

std::vector<BounceNote> SuppressionRepo::bounces_of(long long site_id, long long log_id) {
  return db_.rows(
      "SELECT address, kind, status, created_at FROM svc_mail_bounces WHERE log_id = ? AND site_id = ? ORDER BY id",
      [&](Params& p) { p.integer(log_id).integer(site_id); },
      [](RowReader& r) {
        BounceNote b;
        r.read(b.address, b.kind, b.status, b.created_at);
        return b;
      });
}

}  // namespace svc::db

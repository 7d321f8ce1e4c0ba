#include "db/webhook_repo.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "crypto/encoding.hpp"

namespace svc::db {
namespace {

constexpr const char* kEndpointColumns =
    "id, site_id, url, events, secret, COALESCE(previous_secret, ''), COALESCE(previous_until, 0), enabled,"
    " disabled_reason, failures, COALESCE(last_success_at, 0), COALESCE(last_failure_at, 0), created_at";

constexpr auto read_endpoint =
    read_fields<WebhookEndpoint, &WebhookEndpoint::id, &WebhookEndpoint::site_id, &WebhookEndpoint::url,
                &WebhookEndpoint::events, &WebhookEndpoint::secret, &WebhookEndpoint::previous_secret,
                &WebhookEndpoint::previous_until, &WebhookEndpoint::enabled, &WebhookEndpoint::disabled_reason,
                &WebhookEndpoint::failures, &WebhookEndpoint::last_success_at, &WebhookEndpoint::last_failure_at,
                &WebhookEndpoint::created_at>;

// A webhook-id: "msg_" and 128 random bits (unique across hosts without
// coordination; the same on every attempt of the event).
std::string new_msg_id() { return "msg_" + crypto::base64url_encode(crypto::random_bytes(16)); }

// last_error is VARCHAR(255): keep whole UTF-8 sequences.
std::string error_column(const std::string& error) {
  if (error.size() <= 255) return error;
  std::size_t n = 255;
  while (n > 0 && (static_cast<unsigned char>(error[n]) & 0xC0) == 0x80) --n;
  return error.substr(0, n);
}

// An UPDATE of the claimed rows `ids` that are still pending and held by
// `claimer`: SET `set`, whose one placeholder (if any) takes `value`; how
// many it changed. The text varies with the count: at most a batch's worth
// of variants in the connection's statement cache.
int update_claimed(Database& db, const std::string& set, std::optional<long long> value,
                   const std::vector<long long>& ids, const std::string& claimer) {
  if (ids.empty()) return 0;
  return db.execute("UPDATE svc_webhook_deliveries SET " + set + " WHERE id IN (" + placeholders(ids.size()) +
                        ") AND claimed_by = ? AND status = 'pending'",
                    [&](Params& p) {
                      if (value) p.integer(*value);
                      for (long long id : ids) p.integer(id);
                      p.text(claimer);
                    });
}

}  // namespace

std::string WebhookData::json() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto text = [&w](const char* key, const std::string& value) {
    if (value.empty()) return;
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  };
  auto number = [&w](const char* key, long long value) {
    if (value == 0) return;
    w.Key(key);
    w.Int64(value);
  };
  w.StartObject();
  number("site_id", site_id);
  text("table", table);
  number("user_id", user_id);
  text("email", email);
  text("session_id", session_id);
  text("reason", reason);
  number("message_id", message_id);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string subscribed_endpoints(const std::string& site_sql) {
  return " FROM svc_webhook_endpoints e JOIN svc_sites s ON s.id = e.site_id WHERE e.site_id = " + site_sql +
         " AND e.enabled = 1 AND FIND_IN_SET(?, e.events) > 0";
}

int WebhookRepo::enqueue(long long site_id, const std::string& type, const WebhookData& data) {
  // Not re-run after a lost connection: inside a transaction the whole
  // transaction re-runs (with_transaction_retry), and a re-run would queue
  // the event a second time under another id.
  // An event about a user names the user's pool: the pool of the site whose
  // endpoints receive it (a user signs in only to sites of their pool).
  const char* value = data.user_id != 0 ? "JSON_COMPACT(JSON_SET(?, '$.pool', s.user_pool))" : "?";
  return db_.execute(
      std::string("INSERT INTO svc_webhook_deliveries (endpoint_id, site_id, msg_id, event_type, data, created_at,"
                  " next_attempt_at) SELECT e.id, e.site_id, ?, ?, ") +
          value + ", UNIX_TIMESTAMP(), UNIX_TIMESTAMP()" + subscribed_endpoints("?"),
      [&](Params& p) { p.text(new_msg_id()).text(type).text(data.json()).integer(site_id).text(type); });
}

int WebhookRepo::enqueue_message(long long outbox_id, const std::string& type, const std::string& reason) {
  return db_.execute(
      "INSERT INTO svc_webhook_deliveries (endpoint_id, site_id, msg_id, event_type, data, created_at,"
      " next_attempt_at) SELECT e.id, e.site_id, ?, ?,"
      " JSON_COMPACT(IF(? = '', JSON_OBJECT('site_id', l.site_id, 'message_id', l.id, 'event', l.event,"
      "  'email', l.recipient), JSON_OBJECT('site_id', l.site_id, 'message_id', l.id, 'event', l.event,"
      "  'email', l.recipient, 'reason', ?))),"
      " UNIX_TIMESTAMP(), UNIX_TIMESTAMP()"
      " FROM svc_notification_log l JOIN svc_webhook_endpoints e ON e.site_id = l.site_id"
      " WHERE l.id = ? AND e.enabled = 1 AND FIND_IN_SET(?, e.events) > 0",
      [&](Params& p) { p.text(new_msg_id()).text(type).text(reason).text(reason).integer(outbox_id).text(type); });
}

int WebhookRepo::enqueue_sessions_revoked(const SessionScope& scope, const std::string& reason) {
  // The data as WebhookData::json() writes it for one session (no email).
  const std::string prefix = crypto::base64url_encode(crypto::random_bytes(6)).substr(0, 6);
  return db_.execute(
      "INSERT INTO svc_webhook_deliveries (endpoint_id, site_id, msg_id, event_type, data, created_at,"
      " next_attempt_at) SELECT e.id, e.site_id, CONCAT('msg_', ?, s.id), 'session.revoked',"
      " JSON_COMPACT(JSON_OBJECT('site_id', s.site_id, 'table', s.auth_table, 'user_id', s.user_id,"
      "  'session_id', s.id, 'reason', ?, 'pool', st.user_pool)),"
      " UNIX_TIMESTAMP(), UNIX_TIMESTAMP()"
      " FROM svc_sessions s JOIN svc_webhook_endpoints e ON e.site_id = s.site_id"
      " JOIN svc_sites st ON st.id = s.site_id"
      " WHERE s.auth_table = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.id <> ?"
      " AND e.enabled = 1 AND FIND_IN_SET('session.revoked', e.events) > 0",
      [&](Params& p) { p.text(prefix).text(reason).text(scope.table).integer(scope.user_id).text(scope.keep_id); });
}

long long WebhookRepo::add_endpoint(long long site_id, const std::string& url, const std::string& events,
                                    const std::string& sealed_secret) {
  db_.execute(
      "INSERT INTO svc_webhook_endpoints (site_id, url, events, secret, created_at)"
      " VALUES (?, ?, ?, ?, UNIX_TIMESTAMP())",
      [&](Params& p) { p.integer(site_id).text(url).text(events).text(sealed_secret); });
  return db_.last_insert_id();
}

std::optional<WebhookEndpoint> WebhookRepo::find_endpoint(long long id) {
  return db_.one(
      std::string("SELECT ") + kEndpointColumns + " FROM svc_webhook_endpoints WHERE id = ?",
      [&](Params& p) { p.integer(id); }, read_endpoint);
}

std::vector<WebhookEndpoint> WebhookRepo::endpoints(long long site_id) {
  return db_.rows(
      std::string("SELECT ") + kEndpointColumns + " FROM svc_webhook_endpoints WHERE site_id = ? ORDER BY id",
      [&](Params& p) { p.integer(site_id); }, read_endpoint);
}

bool WebhookRepo::set_enabled(long long id, bool enabled, const std::string& reason) {
  db_.execute_idempotent(
      "UPDATE svc_webhook_endpoints SET enabled = ?, disabled_reason = ?,"
      " failures = IF(? = 1, 0, failures) WHERE id = ?",
      [&](Params& p) { p.flag(enabled).text(enabled ? "" : reason).flag(enabled).integer(id); });
  return find_endpoint(id).has_value();
}

bool WebhookRepo::rotate_secret(long long id, const std::string& sealed_secret, long long overlap_seconds) {
  return db_.execute(
             "UPDATE svc_webhook_endpoints SET previous_secret = secret,"
             " previous_until = UNIX_TIMESTAMP() + ?, secret = ? WHERE id = ?",
             [&](Params& p) { p.integer(overlap_seconds).text(sealed_secret).integer(id); }) == 1;
}

bool WebhookRepo::delete_endpoint(long long id) {
  db_.execute_idempotent(
      "UPDATE svc_webhook_deliveries SET status = 'dropped', finished_at = UNIX_TIMESTAMP(),"
      " claimed_by = NULL, claimed_until = NULL WHERE endpoint_id = ? AND status = 'pending'",
      [&](Params& p) { p.integer(id); });
  return db_.execute("DELETE FROM svc_webhook_endpoints WHERE id = ?", [&](Params& p) { p.integer(id); }) == 1;
}

std::vector<WebhookDeliveryListing> WebhookRepo::deliveries(long long site_id, long long endpoint_id,
                                                            long long before_id, int limit) {
  return db_.rows(
      "SELECT id, endpoint_id, msg_id, event_type, status, attempts, last_status, last_error, created_at,"
      " next_attempt_at FROM svc_webhook_deliveries WHERE site_id = ? AND (? = 0 OR endpoint_id = ?)"
      " AND id < ? ORDER BY id DESC LIMIT ?",
      [&](Params& p) {
        p.integer(site_id).integer(endpoint_id).integer(endpoint_id);
        p.integer(before_id > 0 ? before_id : std::numeric_limits<long long>::max()).integer(limit);
      },
      read_fields<WebhookDeliveryListing, &WebhookDeliveryListing::id, &WebhookDeliveryListing::endpoint_id,
                  &WebhookDeliveryListing::msg_id, &WebhookDeliveryListing::event_type, &WebhookDeliveryListing::status,
                  &WebhookDeliveryListing::attempts, &WebhookDeliveryListing::last_status,
                  &WebhookDeliveryListing::last_error, &WebhookDeliveryListing::created_at,
                  &WebhookDeliveryListing::next_attempt_at>);
}

std::vector<WebhookEndpoint> WebhookRepo::failing_endpoints(int min_failures) {
  return db_.rows(
      std::string("SELECT ") + kEndpointColumns +
          " FROM svc_webhook_endpoints WHERE enabled = 1 AND failures >= ? ORDER BY id LIMIT 100",
      [&](Params& p) { p.integer(min_failures); }, read_endpoint);
}

std::vector<std::pair<std::string, long long>> WebhookRepo::status_counts() {
  return db_.rows("SELECT status, COUNT(*) FROM svc_webhook_deliveries GROUP BY status", kNoParams, [](RowReader& r) {
    std::string status = r.text();
    return std::pair(std::move(status), r.integer());
  });
}

WebhookClaim WebhookRepo::claim(int limit, int lease_seconds, const std::string& claimer) {
  // Pick, then claim by primary key. The pick is a plain read (no lock, so
  // an API transaction holding an endpoint row never makes a claim skip
  // it); it walks the due index in its own order (ties in id order) and
  // joins each row's endpoint by its primary key, which must be enabled (a
  // disabled endpoint's rows wait in the queue for `webhook enable`). Both
  // indexes are named, and the order is next_attempt_at alone: otherwise
  // MariaDB read and sorted every due row on each batch (it scanned the
  // primary key while statistics still counted a fresh backlog as a few
  // rows, joined the endpoints through a join buffer, and did not take
  // `status = 'pending'` as a constant under the connection's collation
  // when the order named status). The claim then takes each picked row only while it is
  // still pending and unleased, so of two senders that picked the same rows
  // exactly one claims each; the rows this run lost are left out.
  WebhookClaim out;
  out.rows = db_.rows(
      "SELECT STRAIGHT_JOIN d.id, d.endpoint_id, d.site_id, d.msg_id, d.event_type, d.data, d.created_at,"
      " d.attempts, e.url, e.secret, COALESCE(e.previous_secret, ''), COALESCE(e.previous_until, 0)"
      " FROM svc_webhook_deliveries d FORCE INDEX (ix_svc_webhook_deliveries_due)"
      " JOIN svc_webhook_endpoints e FORCE INDEX (PRIMARY) ON e.id = d.endpoint_id AND e.enabled = 1"
      " WHERE d.status = 'pending' AND d.next_attempt_at <= UNIX_TIMESTAMP()"
      " AND (d.claimed_until IS NULL OR d.claimed_until < UNIX_TIMESTAMP())"
      " ORDER BY d.next_attempt_at LIMIT ?",
      [&](Params& p) { p.integer(limit); },
      read_fields<WebhookDelivery, &WebhookDelivery::id, &WebhookDelivery::endpoint_id, &WebhookDelivery::site_id,
                  &WebhookDelivery::msg_id, &WebhookDelivery::event_type, &WebhookDelivery::data,
                  &WebhookDelivery::created_at, &WebhookDelivery::attempts, &WebhookDelivery::url,
                  &WebhookDelivery::secret, &WebhookDelivery::previous_secret, &WebhookDelivery::previous_until>);
  out.picked = out.rows.size();
  if (out.rows.empty()) return out;
  const auto bind_ids = [&](Params& p) {
    for (const auto& row : out.rows) p.integer(row.id);
  };
  // Idempotent: a re-run matches none of the rows the first run claimed,
  // and a short count is settled by reading the claims back.
  const int claimed = db_.execute_idempotent(
      "UPDATE svc_webhook_deliveries SET claimed_by = ?, claimed_until = UNIX_TIMESTAMP() + ?"
      " WHERE id IN (" +
          placeholders(out.rows.size()) +
          ") AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < UNIX_TIMESTAMP())",
      [&](Params& p) {
        p.text(claimer).integer(lease_seconds);
        bind_ids(p);
      });
  if (claimed != static_cast<int>(out.rows.size())) {
    const auto mine = db_.rows(
        "SELECT id FROM svc_webhook_deliveries WHERE id IN (" + placeholders(out.rows.size()) +
            ") AND claimed_by = ? AND status = 'pending'",
        [&](Params& p) {
          bind_ids(p);
          p.text(claimer);
        },
        [](RowReader& r) { return r.integer(); });
    std::erase_if(out.rows, [&](const WebhookDelivery& row) {
      return std::find(mine.begin(), mine.end(), row.id) == mine.end();
    });
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const WebhookDelivery& a, const WebhookDelivery& b) { return a.endpoint_id < b.endpoint_id; });
  return out;
}

int WebhookRepo::mark_delivered(const std::vector<long long>& ids, const std::string& claimer, int http_status) {
  return update_claimed(db_,
                        "status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = '',"
                        " finished_at = UNIX_TIMESTAMP(), claimed_by = NULL, claimed_until = NULL",
                        http_status, ids, claimer);
}

bool WebhookRepo::mark_retry(long long id, const std::string& claimer, int http_status, const std::string& error,
                             long long delay_seconds) {
  return db_.execute(
             "UPDATE svc_webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,"
             " next_attempt_at = UNIX_TIMESTAMP() + ?, claimed_by = NULL, claimed_until = NULL"
             " WHERE id = ? AND claimed_by = ? AND status = 'pending'",
             [&](Params& p) {
               p.integer(http_status).text(error_column(error)).integer(delay_seconds).integer(id).text(claimer);
             }) == 1;
}

bool WebhookRepo::mark_failed(long long id, const std::string& claimer, int http_status, const std::string& error) {
  return db_.execute(
             "UPDATE svc_webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = ?,"
             " last_error = ?, finished_at = UNIX_TIMESTAMP(), claimed_by = NULL, claimed_until = NULL"
             " WHERE id = ? AND claimed_by = ? AND status = 'pending'",
             [&](Params& p) { p.integer(http_status).text(error_column(error)).integer(id).text(claimer); }) == 1;
}

int WebhookRepo::release(const std::vector<long long>& ids, const std::string& claimer) {
  return update_claimed(db_, "claimed_by = NULL, claimed_until = NULL", std::nullopt, ids, claimer);
}

int WebhookRepo::defer(const std::vector<long long>& ids, const std::string& claimer, long long delay_seconds) {
  return update_claimed(db_, "next_attempt_at = UNIX_TIMESTAMP() + ?, claimed_by = NULL, claimed_until = NULL",
                        delay_seconds, ids, claimer);
}

void WebhookRepo::record_attempt(long long endpoint_id, bool success, bool gone) {
  if (success) {
    db_.execute_idempotent(
        "UPDATE svc_webhook_endpoints SET failures = 0, last_success_at = UNIX_TIMESTAMP() WHERE id = ?",
        [&](Params& p) { p.integer(endpoint_id); });
    return;
  }
  db_.execute(
      "UPDATE svc_webhook_endpoints SET failures = failures + 1, last_failure_at = UNIX_TIMESTAMP(),"
      " enabled = IF(?, 0, enabled), disabled_reason = IF(?, 'gone (HTTP 410)', disabled_reason) WHERE id = ?",
      [&](Params& p) { p.flag(gone).flag(gone).integer(endpoint_id); });
}

int WebhookRepo::purge_finished(long long older_than_seconds, int limit) {
  // DELETE ... LIMIT without ORDER BY, as db/retention_repo.cpp does.
  return db_.execute(
      "DELETE FROM svc_webhook_deliveries WHERE status IN ('delivered', 'failed', 'dropped')"
      " AND next_attempt_at < UNIX_TIMESTAMP() - ? AND finished_at < UNIX_TIMESTAMP() - ? LIMIT ?",
      [&](Params& p) { p.integer(older_than_seconds).integer(older_than_seconds).integer(limit); });
}

}  // namespace svc::db

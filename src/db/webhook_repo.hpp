#pragma once
// Webhooks (sql/022_webhooks.sql): the endpoints sites subscribed and the
// durable delivery queue, one row per event and endpoint. enqueue() is what
// the API and the mail sender call inside the transaction of the change an
// event reports; it costs one indexed statement whether or not the site has
// an endpoint. Times are unix seconds from the database clock
// (UNIX_TIMESTAMP()), so senders on several hosts agree on what is due.

#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/session_repo.hpp"

namespace svc::db {

struct WebhookEndpoint {
  long long id = 0;
  long long site_id = 0;
  std::string url;
  std::string events;  // comma-separated
  std::string secret;  // sealed (base64url); see sql/022_webhooks.sql
  std::string previous_secret;
  long long previous_until = 0;
  bool enabled = true;
  std::string disabled_reason;
  int failures = 0;  // failed attempts since the last success
  long long last_success_at = 0;
  long long last_failure_at = 0;
  long long created_at = 0;
};

// The `data` of an event: what it is about. Only the fields that are set
// (non-zero, non-empty) are written, in this order; never a token, code or
// password.
struct WebhookData {
  long long site_id = 0;
  std::string table;  // the auth table of the user
  long long user_id = 0;
  std::string email;
  std::string session_id;
  std::string reason;        // session.revoked: why; message.*: the bounce or complaint
  long long message_id = 0;  // message.*: the outbox row (svc_notification_log id)
  std::string json() const;
};

// The data of an event about a user.
inline WebhookData user_data(const std::string& table, long long user_id, const std::string& email) {
  WebhookData d;
  d.table = table;
  d.user_id = user_id;
  d.email = email;
  return d;
}

// One queued delivery as the sender claims it (the endpoint's url and
// sealed secrets joined in).
struct WebhookDelivery {
  long long id = 0;
  long long endpoint_id = 0;
  long long site_id = 0;
  std::string msg_id;
  std::string event_type;
  std::string data;
  long long created_at = 0;
  int attempts = 0;  // failed attempts so far
  std::string url;
  std::string secret;
  std::string previous_secret;
  long long previous_until = 0;
};

// What one claim took: its rows, ordered by endpoint, and how many due rows
// it picked (more than rows.size() when another sender claimed some first).
struct WebhookClaim {
  std::vector<WebhookDelivery> rows;
  std::size_t picked = 0;
};

// A row as `svc-admin webhook deliveries` shows it.
struct WebhookDeliveryListing {
  long long id = 0;
  long long endpoint_id = 0;
  std::string msg_id;
  std::string event_type;
  std::string status;
  int attempts = 0;
  int last_status = 0;
  std::string last_error;
  long long created_at = 0;
  long long next_attempt_at = 0;
};

// The FROM and WHERE of the endpoints an event of site `site_sql` (SQL: "?"
// or a column) goes to: enabled and subscribed to the event type bound
// after it. WebhookRepo::enqueue queues for exactly these.
std::string subscribed_endpoints(const std::string& site_sql);

// An SQL expression, true when site `site_sql` has an endpoint for the
// event type bound after it: a sign-in reads it with its user or challenge,
// so that one without an endpoint for session.created opens its session
// without a transaction (auth::SignIn::session_event, docs/webhooks.md).
inline std::string has_subscriber(const std::string& site_sql) {
  return "EXISTS (SELECT 1" + subscribed_endpoints(site_sql) + ")";
}

class WebhookRepo {
 public:
  explicit WebhookRepo(Database& db) : db_(db) {}

  // Queues `type` with `data` for every enabled endpoint of the site that
  // subscribed it, under one fresh webhook-id; how many rows it queued.
  // Meant to run inside the caller's transaction. One INSERT ... SELECT.
  int enqueue(long long site_id, const std::string& type, const WebhookData& data);
  // The same for an outbox row (message.*): the site, message id, template
  // event and recipient come from svc_notification_log row `outbox_id`;
  // `reason` (a bounce's status, "" for none) joins them.
  int enqueue_message(long long outbox_id, const std::string& type, const std::string& reason = "");
  // session.revoked for every session SessionRepo::revoke_user(scope, ...)
  // is about to end, each to the endpoints of its own site, with `reason`:
  // one INSERT ... SELECT (nothing when no site of theirs subscribed). Run
  // it just before revoke_user, in the same transaction. Each session's
  // event has its own webhook-id ("msg_", 6 random characters, the session id).
  int enqueue_sessions_revoked(const SessionScope& scope, const std::string& reason);

  long long add_endpoint(long long site_id, const std::string& url, const std::string& events,
                         const std::string& sealed_secret);
  std::optional<WebhookEndpoint> find_endpoint(long long id);
  std::vector<WebhookEndpoint> endpoints(long long site_id);
  // Enables or disables (with `reason`); true when the endpoint exists.
  // Enabling clears the failure count.
  bool set_enabled(long long id, bool enabled, const std::string& reason);
  // The new sealed secret signs from now on; the old one signs beside it
  // for `overlap_seconds`.
  bool rotate_secret(long long id, const std::string& sealed_secret, long long overlap_seconds);
  // Deletes the endpoint; its pending deliveries become 'dropped'.
  bool delete_endpoint(long long id);
  // The site's deliveries (of endpoint `endpoint_id` only, when not 0),
  // newest first, with ids below `before_id` (0 = from the newest): up to
  // `limit` rows, a keyset page on (site_id, id).
  std::vector<WebhookDeliveryListing> deliveries(long long site_id, long long endpoint_id, long long before_id,
                                                 int limit);
  // Enabled endpoints with at least `min_failures` failures since their
  // last success (doctor).
  std::vector<WebhookEndpoint> failing_endpoints(int min_failures);
  // Deliveries per status (pending, delivered, failed, dropped): /metrics.
  std::vector<std::pair<std::string, long long>> status_counts();

  // --- the sender's side ---
  // Claims up to `limit` due pending deliveries of enabled endpoints for
  // `claimer` for `lease_seconds`, oldest due first, and returns them
  // grouped by endpoint (oldest due first within each). Two statements: a
  // plain read of the due rows, one UPDATE by primary key (and a read of
  // which ones it took when another sender took some first).
  WebhookClaim claim(int limit, int lease_seconds, const std::string& claimer);
  // Outcomes of a claimed row; each false when the claim was lost.
  // mark_delivered takes the rows an endpoint answered with the same
  // status in one statement and returns how many it marked.
  int mark_delivered(const std::vector<long long>& ids, const std::string& claimer, int http_status);
  bool mark_retry(long long id, const std::string& claimer, int http_status, const std::string& error,
                  long long delay_seconds);
  bool mark_failed(long long id, const std::string& claimer, int http_status, const std::string& error);
  // Back to the queue as they were (no attempt counted); how many.
  int release(const std::vector<long long>& ids, const std::string& claimer);
  // Back to the queue, due in `delay_seconds`, no attempt counted; how many.
  int defer(const std::vector<long long>& ids, const std::string& claimer, long long delay_seconds);
  // The endpoint's tally after an attempt; gone: a 410 disables it.
  void record_attempt(long long endpoint_id, bool success, bool gone);
  // Retention ([webhooks] keep_finished_seconds): deletes up to `limit`
  // delivered, failed and dropped rows that finished more than
  // `older_than_seconds` ago; returns how many. One autocommit DELETE on
  // the (status, next_attempt_at) index (a finished row was due before it
  // finished; a dropped one may wait until its due time has passed too).
  int purge_finished(long long older_than_seconds, int limit);

 private:
  Database& db_;
};

}  // namespace svc::db

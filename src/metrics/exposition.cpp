#include "metrics/exposition.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace svc::metrics {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;
constexpr const char* kPoolNames[kPools] = {"main", "hashing", "outbound"};

class Writer {
 public:
  void head(const char* name, const char* type, const char* help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  // name{labels} value; labels is "" or `a="x",b="y"` (already escaped).
  void sample(std::string_view name, const std::string& labels, double value) {
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.9g\n", value);
    out_ += buf;
  }
  void sample(std::string_view name, const std::string& labels, uint64_t value) {
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    out_ += ' ' + std::to_string(value) + '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

std::string escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string le_text(double bound) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", bound);
  return buf;
}

// Buckets are stored per bucket; the format wants them cumulative.
void histogram(Writer& w, const char* name, const std::string& labels, const Histogram& h) {
  std::string base(name);
  std::string sep = labels.empty() ? "" : labels + ",";
  uint64_t total = 0;
  for (int i = 0; i <= kBucketCount; ++i) {
    total += h.buckets[i].load(kRelaxed);
    std::string le = i < kBucketCount ? le_text(kBuckets[i]) : "+Inf";
    w.sample(base + "_bucket", sep + "le=\"" + le + "\"", total);
  }
  w.sample(base + "_sum", labels, static_cast<double>(h.sum_us.load(kRelaxed)) / 1e6);
  w.sample(base + "_count", labels, total);
}

std::string route_label(const RenderInput& in, int route) {
  if (route == kOtherRoute || route >= static_cast<int>(in.routes.size())) return "route=\"other\"";
  return "route=\"" + escape(in.routes[static_cast<size_t>(route)]) + "\"";
}

// Route slots that have a label, then "other".
template <class Fn>
void each_route(const RenderInput& in, Fn&& fn) {
  int named = static_cast<int>(std::min(in.routes.size(), static_cast<size_t>(kOtherRoute)));
  for (int r = 0; r < named; ++r) {
    if (!in.routes[static_cast<size_t>(r)].empty()) fn(r);
  }
  fn(kOtherRoute);
}

void requests(Writer& w, const SharedBlock& b, const RenderInput& in) {
  w.head("svc_http_requests_total", "counter", "Requests answered by svc-fcgi, by route and HTTP status.");
  each_route(in, [&](int r) {
    for (int s = 0; s < kStatusSlots; ++s) {
      uint64_t n = b.requests[r][s].load(kRelaxed);
      if (n)
        w.sample("svc_http_requests_total", route_label(in, r) + ",status=\"" + std::to_string(s + kMinStatus) + "\"",
                 n);
    }
  });
  w.head("svc_http_request_duration_seconds", "histogram",
         "Time from the request reaching the application to its reply being built, by route.");
  each_route(in, [&](int r) { histogram(w, "svc_http_request_duration_seconds", route_label(in, r), b.latency[r]); });
}

void workers(Writer& w, const SharedBlock& b) {
  int alive[kPools] = {}, busy[kPools] = {};
  for (const auto& s : b.workers) {
    if (s.pid.load(kRelaxed) == 0) continue;
    int pool = s.pool.load(kRelaxed);
    if (pool < 0 || pool >= kPools) continue;
    ++alive[pool];
    busy[pool] += s.busy.load(kRelaxed) ? 1 : 0;
  }
  w.head("svc_workers", "gauge", "svc-fcgi worker processes by pool and state (busy = serving a request).");
  for (int p = 0; p < kPools; ++p) {
    std::string pool = std::string("pool=\"") + kPoolNames[p] + "\"";
    w.sample("svc_workers", pool + ",state=\"busy\"", static_cast<uint64_t>(busy[p]));
    w.sample("svc_workers", pool + ",state=\"idle\"", static_cast<uint64_t>(alive[p] - busy[p]));
  }
  w.head("svc_outbound_active_workers", "gauge",
         "Workers of the outbound pool taking connections now: a few, plus one for each waiting on an outside call.");
  w.sample("svc_outbound_active_workers", "", static_cast<uint64_t>(std::max(0, b.outbound_active.load(kRelaxed))));
  w.head("svc_worker_wait_seconds", "histogram",
         "Time a request waited between nginx passing it on and a worker of the pool taking it.");
  for (int p = 0; p < kPools; ++p) {
    histogram(w, "svc_worker_wait_seconds", std::string("pool=\"") + kPoolNames[p] + "\"", b.worker_wait[p]);
  }
}

void counters(Writer& w, const SharedBlock& b) {
  struct Row {
    Counter c;
    const char* name;
    const char* help;
  };
  static const Row kRows[] = {
      {Counter::kLoginFailed, "svc_logins_failed_total", "Logins answered 401 (invalid credentials)."},
      {Counter::kLoginThrottled, "svc_logins_throttled_total", "Logins answered 429 (failed-login lock)."},
      {Counter::kDbReconnects, "svc_db_reconnects_total", "Database connections made again after one was lost."},
      {Counter::kDbConnectFailures, "svc_db_connect_failures_total", "Database connection attempts that failed."},
      {Counter::kPeerRefused, "svc_fcgi_peers_refused_total",
       "FastCGI TCP connections closed unread: the peer is outside [server] allowed_peers."},
      {Counter::kDbNodeSkipped, "svc_db_nodes_skipped_total",
       "Database nodes passed over on connect (unreachable, or not Synced/Primary)."},
      {Counter::kDbTxnRetries, "svc_db_transaction_retries_total",
       "Write transactions run again after a deadlock or Galera certification failure (1213) or 1047."},
      {Counter::kSessionsOpened, "svc_sessions_opened_total", "Server-side sessions opened by a sign-in."},
      {Counter::kSessionRefreshes, "svc_session_refreshes_total",
       "Refresh-token exchanges that gave a pair (rotations and refreshes within the reuse grace)."},
      {Counter::kSessionReuses, "svc_session_reuses_total",
       "Old refresh tokens presented again: each revoked its whole session."},
      {Counter::kSessionRevocations, "svc_session_revocations_total",
       "Sessions ended: sign-out, reuse, password reset, factor changes, operator revocation."},
  };
  for (const auto& row : kRows) {
    w.head(row.name, "counter", row.help);
    w.sample(row.name, "", b.counters[static_cast<int>(row.c)].load(kRelaxed));
  }
  w.head("svc_master_start_time_seconds", "gauge", "When the svc-fcgi master started (counters reset then).");
  w.sample("svc_master_start_time_seconds", "", static_cast<double>(b.master_start_unix));
}

// The suppression list by reason and the bounce-rate guard (docs/operations.md).
void deliverability(Writer& w, const int64_t* values) {
  static const std::pair<DbGauge, const char*> kReasons[] = {{DbGauge::kSuppressedBounce, "bounce"},
                                                             {DbGauge::kSuppressedComplaint, "complaint"},
                                                             {DbGauge::kSuppressedUnsubscribe, "unsubscribe"},
                                                             {DbGauge::kSuppressedManual, "manual"}};
  w.head("svc_mail_suppressions", "gauge", "Suppressed addresses (per site and address), by reason.");
  for (const auto& [g, reason] : kReasons) {
    w.sample("svc_mail_suppressions", std::string("reason=\"") + reason + "\"",
             static_cast<uint64_t>(values[static_cast<int>(g)]));
  }
  w.head("svc_mail_bounce_guard_sites", "gauge",
         "Sites whose bulk mail is held back: hard bounces in the last hour over [smtp] max_bounce_rate.");
  w.sample("svc_mail_bounce_guard_sites", "",
           static_cast<uint64_t>(values[static_cast<int>(DbGauge::kBounceGuardSites)]));
}

// Webhook deliveries by outcome and endpoints by state (docs/webhooks.md).
void webhooks(Writer& w, const int64_t* values) {
  static const std::pair<DbGauge, const char*> kStatuses[] = {{DbGauge::kWebhookPending, "pending"},
                                                              {DbGauge::kWebhookDelivered, "delivered"},
                                                              {DbGauge::kWebhookFailed, "failed"},
                                                              {DbGauge::kWebhookDropped, "dropped"}};
  w.head("svc_webhook_deliveries", "gauge", "Webhook deliveries (one per event and endpoint), by status.");
  for (const auto& [g, status] : kStatuses) {
    w.sample("svc_webhook_deliveries", std::string("status=\"") + status + "\"",
             static_cast<uint64_t>(values[static_cast<int>(g)]));
  }
  static const std::pair<DbGauge, const char*> kStates[] = {{DbGauge::kWebhookEndpointsEnabled, "enabled"},
                                                            {DbGauge::kWebhookEndpointsDisabled, "disabled"},
                                                            {DbGauge::kWebhookEndpointsFailing, "failing"}};
  w.head("svc_webhook_endpoints", "gauge",
         "Webhook endpoints by state; failing: enabled with [webhooks] failing_after failed attempts in a row.");
  for (const auto& [g, state] : kStates) {
    w.sample("svc_webhook_endpoints", std::string("state=\"") + state + "\"",
             static_cast<uint64_t>(values[static_cast<int>(g)]));
  }
}

void database(Writer& w, const RenderInput& in) {
  w.head("svc_metrics_db_up", "gauge", "1 when the last read of the database gauges succeeded.");
  w.sample("svc_metrics_db_up", "", static_cast<uint64_t>(in.db_ok ? 1 : 0));
  if (!in.db_ok || !in.db_values) return;
  struct Row {
    DbGauge g;
    const char* name;
    const char* type;
    const char* help;
    double scale;
  };
  static const Row kRows[] = {
      {DbGauge::kOutboxPending, "svc_outbox_pending", "gauge", "Outbox rows in status Pending.", 1},
      {DbGauge::kOutboxOldestPendingAge, "svc_outbox_oldest_pending_age_seconds", "gauge",
       "Age of the oldest Pending outbox row (0 when none).", 1},
      {DbGauge::kOutboxFailed, "svc_outbox_failed", "gauge", "Outbox rows in status Failed.", 1},
      {DbGauge::kLegacyHashUsers, "svc_users_legacy_hash", "gauge", "svc_users rows still on a legacy password hash.",
       1},
      {DbGauge::kSenderLastRunTime, "svc_sender_last_run_timestamp_seconds", "gauge",
       "End of the last svc-sender run (0 = never).", 1},
      {DbGauge::kSenderLastSuccessTime, "svc_sender_last_success_timestamp_seconds", "gauge",
       "End of the last svc-sender run that completed without error (0 = never).", 1},
      {DbGauge::kSenderLastSent, "svc_sender_last_run_sent", "gauge", "Messages sent by the last run.", 1},
      {DbGauge::kSenderLastDeferred, "svc_sender_last_run_deferred", "gauge",
       "Messages deferred for a retry by the last run.", 1},
      {DbGauge::kSenderLastFailed, "svc_sender_last_run_failed", "gauge", "Messages failed for good by the last run.",
       1},
      {DbGauge::kSenderLastDurationMs, "svc_sender_last_run_duration_seconds", "gauge", "Duration of the last run.",
       0.001},
      {DbGauge::kSenderRuns, "svc_sender_runs_total", "counter", "svc-sender runs recorded.", 1},
      {DbGauge::kSenderSentTotal, "svc_sender_sent_total", "counter", "Messages sent, all runs.", 1},
      {DbGauge::kSenderDeferredTotal, "svc_sender_deferred_total", "counter", "Messages deferred, all runs.", 1},
      {DbGauge::kSenderFailedTotal, "svc_sender_failed_total", "counter", "Messages failed for good, all runs.", 1},
  };
  for (const auto& row : kRows) {
    w.head(row.name, row.type, row.help);
    w.sample(row.name, "", static_cast<double>(in.db_values[static_cast<int>(row.g)]) * row.scale);
  }
  deliverability(w, in.db_values);
  webhooks(w, in.db_values);
}

}  // namespace

std::string render(const SharedBlock* block, const RenderInput& input) {
  // A process without the shared block reports zeros (static storage is
  // zero-initialised, so this costs no allocation).
  static const SharedBlock kEmpty{};
  const SharedBlock& b = block ? *block : kEmpty;
  Writer w;
  requests(w, b, input);
  workers(w, b);
  counters(w, b);
  database(w, input);
  return w.take();
}

}  // namespace svc::metrics

#include "webhooks/sender.hpp"

#include <atomic>
#include <ctime>
#include <thread>

#include "core/log.hpp"
#include "webhooks/retry.hpp"
#include "webhooks/signature.hpp"

namespace svc::webhooks {
namespace {

// The keys that sign a row: the current one, and the previous one while
// its overlap lasts. Empty when the sealed secret does not open (another
// webhook_key): the row is then not sent.
std::vector<std::string> signing_keys(const db::WebhookDelivery& row, const std::string& webhook_key, long long now) {
  std::vector<std::string> keys;
  auto current = open_secret(row.secret, webhook_key, row.site_id);
  if (!current) return keys;
  keys.push_back(*current);
  if (!row.previous_secret.empty() && row.previous_until > now) {
    if (auto previous = open_secret(row.previous_secret, webhook_key, row.site_id)) keys.push_back(*previous);
  }
  return keys;
}

}  // namespace

WebhookSender::WebhookSender(db::WebhookRepo& repo, const config::Config& config, std::string claimer,
                             const volatile std::sig_atomic_t* stop)
    : repo_(repo), config_(config), claimer_(std::move(claimer)), stop_(stop) {
  options_.allow_insecure = config.push.allow_insecure_endpoints;
  options_.allowed_ports = config.push.allowed_ports;
  options_.timeout_ms = config.webhooks.timeout_ms;
  options_.connect_timeout_ms = config.webhooks.connect_timeout_ms;
}

WebhookCounts WebhookSender::run_pass() {
  WebhookCounts counts;
  if (config_.keys.webhook_key.empty()) return counts;
  const int batch = config_.webhooks.batch;
  const int threads = config_.webhooks.concurrency;
  std::vector<std::unique_ptr<WebhookClient>> clients;
  for (int i = 0; i < threads; ++i) clients.push_back(std::make_unique<WebhookClient>(options_));
  while (!stopping()) {
    const auto claim = repo_.claim(batch, config_.webhooks.lease_seconds, claimer_);
    const auto& rows = claim.rows;
    counts.claimed += static_cast<long long>(rows.size());
    // Rows come ordered by endpoint: one group each.
    std::vector<std::vector<db::WebhookDelivery>> groups;
    for (const auto& row : rows) {
      if (groups.empty() || groups.back().front().endpoint_id != row.endpoint_id) groups.emplace_back();
      groups.back().push_back(row);
    }
    std::atomic<std::size_t> next{0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threads && static_cast<std::size_t>(t) < groups.size(); ++t) {
      workers.emplace_back([&, t] {
        for (std::size_t g = next++; g < groups.size(); g = next++) serve(*clients[t], groups[g], counts);
      });
    }
    for (auto& w : workers) w.join();
    if (static_cast<int>(claim.picked) < batch) break;
  }
  return counts;
}

long long WebhookSender::purge_finished() {
  const long long keep = config_.webhooks.keep_finished_seconds;
  if (keep <= 0) return 0;
  long long total = 0;
  for (int i = 0; i < kPurgeBatches && !stopping(); ++i) {
    const int n = repo_.purge_finished(keep, kPurgeBatch);
    total += n;
    if (n < kPurgeBatch) break;
  }
  return total;
}

void WebhookSender::serve(WebhookClient& client, const std::vector<db::WebhookDelivery>& rows, WebhookCounts& counts) {
  long long defer = 0;
  Delivered done;
  std::size_t pending = 0;  // rows in `done`
  for (const auto& row : rows) {
    if (stopping() || defer != 0) {
      std::lock_guard<std::mutex> held(lock_);
      // Not attempted: after the endpoint's delay, without counting an
      // attempt (an earlier row failed), or back to the queue (stop; a 410
      // disabled the endpoint, whose rows wait for `webhook enable`).
      if (defer > 0) {
        repo_.defer(row.id, claimer_, defer);
        ++counts.deferred;
      } else {
        repo_.release(row.id, claimer_);
      }
      continue;
    }
    const long long now = static_cast<long long>(std::time(nullptr));
    WebhookRequest request{row.url, row.msg_id, now, "", event_body(row.event_type, row.created_at, row.data)};
    const auto keys = signing_keys(row, config_.keys.webhook_key, now);
    WebhookResult result;
    if (keys.empty()) {
      result = {WebhookOutcome::kBlocked, 0, {}, "the secret does not open with [keys] webhook_key"};
    } else {
      request.signature = signature_header(keys, row.msg_id, now, request.body);
      result = client.post(request);
    }
    note(row, result, counts);
    if (result.outcome == WebhookOutcome::kDelivered) {
      done[result.http_status].push_back(row.id);
      if (++pending >= kRecordBatch) {
        flush(row.endpoint_id, done);
        pending = 0;
      }
      continue;
    }
    flush(row.endpoint_id, done);  // the successes before this failure first
    pending = 0;
    defer = record(row, result, counts);
  }
  if (!rows.empty()) flush(rows.front().endpoint_id, done);
}

void WebhookSender::note(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts) {
  std::lock_guard<std::mutex> held(lock_);
  ++counts.outcomes[outcome_name(result.outcome)];
  core::LogLine line(result.outcome == WebhookOutcome::kDelivered ? "info" : "warn", "webhook_attempt");
  line.num("delivery", row.id).num("endpoint", row.endpoint_id).num("site", row.site_id);
  line.str("webhook_id", row.msg_id).str("type", row.event_type).str("outcome", outcome_name(result.outcome));
  line.num("status", result.http_status).str("detail", result.detail).emit();
}

void WebhookSender::flush(long long endpoint_id, Delivered& done) {
  if (done.empty()) return;
  std::lock_guard<std::mutex> held(lock_);
  repo_.record_attempt(endpoint_id, true, false);
  for (const auto& [status, ids] : done) repo_.mark_delivered(ids, claimer_, status);
  done.clear();
}

// A failed attempt (the delivered ones go through flush).
long long WebhookSender::record(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts) {
  std::lock_guard<std::mutex> held(lock_);
  const bool gone = result.outcome == WebhookOutcome::kGone;
  repo_.record_attempt(row.endpoint_id, false, gone);
  if (gone) {
    // The endpoint is disabled: its rows stay pending (an operator's
    // `webhook enable` sends them), this one is failed.
    repo_.mark_failed(row.id, claimer_, result.http_status, result.detail);
    ++counts.failed;
    return -1;
  }
  const auto delay = next_delay(row.attempts + 1, result.retry_after);
  if (!delay) {
    repo_.mark_failed(row.id, claimer_, result.http_status, result.detail);
    ++counts.failed;
    return 0;
  }
  repo_.mark_retry(row.id, claimer_, result.http_status, result.detail, *delay);
  return std::max(*delay, 1LL);
}

}  // namespace svc::webhooks

#include "webhooks/sender.hpp"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <optional>
#include <thread>

#include "core/log.hpp"
#include "webhooks/retry.hpp"
#include "webhooks/signature.hpp"

namespace svc::webhooks {
namespace {

// The keys that sign an endpoint's rows: the current one, and the previous
// one while its overlap lasts. Opened once per group (every row of a group
// carries the same endpoint columns, read by one claim).
class EndpointKeys {
 public:
  EndpointKeys(const db::WebhookDelivery& row, const std::string& webhook_key)
      : current_(open_secret(row.secret, webhook_key, row.site_id)), previous_until_(row.previous_until) {
    if (current_ && !row.previous_secret.empty())
      previous_ = open_secret(row.previous_secret, webhook_key, row.site_id);
  }
  // Empty when the sealed secret does not open (another webhook_key): the
  // row is then not sent.
  std::vector<std::string> at(long long now) const {
    std::vector<std::string> keys;
    if (!current_) return keys;
    keys.push_back(*current_);
    if (previous_ && previous_until_ > now) keys.push_back(*previous_);
    return keys;
  }

 private:
  std::optional<std::string> current_;
  std::optional<std::string> previous_;
  long long previous_until_ = 0;
};

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
  std::vector<std::unique_ptr<WebhookClient>> clients;
  for (int i = 0; i < config_.webhooks.concurrency; ++i) clients.push_back(std::make_unique<WebhookClient>(options_));
  while (!stopping()) {
    const auto claim = repo_.claim(batch, config_.webhooks.lease_seconds, claimer_);
    counts.claimed += static_cast<long long>(claim.rows.size());
    // Rows come ordered by endpoint: one group each.
    std::vector<std::vector<db::WebhookDelivery>> groups;
    for (const auto& row : claim.rows) {
      if (groups.empty() || groups.back().front().endpoint_id != row.endpoint_id) groups.emplace_back();
      groups.back().push_back(row);
    }
    deliver(groups, clients, counts);
    if (static_cast<int>(claim.picked) < batch) break;
  }
  return counts;
}

void WebhookSender::deliver(const std::vector<std::vector<db::WebhookDelivery>>& groups,
                            std::vector<std::unique_ptr<WebhookClient>>& clients, WebhookCounts& counts) {
  const int threads = static_cast<int>(std::min(clients.size(), groups.size()));
  Ledger ledger(threads, kRecordBatch);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t g = next++; g < groups.size(); g = next++) serve(*clients[t], groups[g], ledger, counts);
      ledger.done();
    });
  }
  // This thread writes the outcomes while the others send.
  try {
    std::vector<Outcome> outcomes;
    while (ledger.take(outcomes)) write_outcomes(repo_, claimer_, outcomes, kRecordBatch);
  } catch (...) {
    // The rows not written keep their claim until the lease ends, and are
    // then sent again.
    aborted_ = true;
    for (auto& w : workers) w.join();
    aborted_ = false;
    throw;
  }
  for (auto& w : workers) w.join();
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

void WebhookSender::serve(WebhookClient& client, const std::vector<db::WebhookDelivery>& rows, Ledger& ledger,
                          WebhookCounts& counts) {
  if (rows.empty()) return;
  const long long endpoint_id = rows.front().endpoint_id;
  const EndpointKeys keys(rows.front(), config_.keys.webhook_key);
  long long defer = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (stopping() || defer != 0) {
      // The rest is not attempted: after the endpoint's delay, without
      // counting an attempt (an earlier row failed), or back to the queue
      // (stop; a 410 disabled the endpoint, whose rows wait for `webhook
      // enable`).
      Outcome rest{.kind = defer > 0 ? Outcome::Kind::kDeferred : Outcome::Kind::kReleased,
                   .endpoint_id = endpoint_id,
                   .delay = defer};
      for (std::size_t j = i; j < rows.size(); ++j) rest.ids.push_back(rows[j].id);
      if (defer > 0) {
        std::lock_guard<std::mutex> held(lock_);
        counts.deferred += static_cast<long long>(rest.ids.size());
      }
      ledger.add(std::move(rest));
      break;
    }
    const long long now = static_cast<long long>(std::time(nullptr));
    WebhookRequest request{row.url, row.msg_id, now, "", event_body(row.event_type, row.created_at, row.data)};
    const auto signing = keys.at(now);
    WebhookResult result;
    if (signing.empty()) {
      result = {WebhookOutcome::kBlocked, 0, {}, "the secret does not open with [keys] webhook_key"};
    } else {
      request.signature = signature_header(signing, row.msg_id, now, request.body);
      result = client.post(request);
    }
    note(row, result, counts);
    if (result.outcome == WebhookOutcome::kDelivered) {
      ledger.add({.kind = Outcome::Kind::kDelivered,
                  .endpoint_id = endpoint_id,
                  .ids = {row.id},
                  .http_status = result.http_status});
    } else {
      ledger.add(failed(row, result, counts, defer));
    }
  }
}

void WebhookSender::note(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts) {
  std::lock_guard<std::mutex> held(lock_);
  ++counts.outcomes[outcome_name(result.outcome)];
  core::LogLine line(result.outcome == WebhookOutcome::kDelivered ? "info" : "warn", "webhook_attempt");
  line.num("delivery", row.id).num("endpoint", row.endpoint_id).num("site", row.site_id);
  line.str("webhook_id", row.msg_id).str("type", row.event_type).str("outcome", outcome_name(result.outcome));
  line.num("status", result.http_status).str("detail", result.detail).emit();
}

Outcome WebhookSender::failed(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts,
                              long long& defer) {
  Outcome out{.kind = Outcome::Kind::kFailed,
              .endpoint_id = row.endpoint_id,
              .ids = {row.id},
              .http_status = result.http_status,
              .error = result.detail,
              .gone = result.outcome == WebhookOutcome::kGone};
  const auto delay = out.gone ? std::nullopt : next_delay(row.attempts + 1, result.retry_after);
  if (!delay) {
    std::lock_guard<std::mutex> held(lock_);
    ++counts.failed;
    defer = out.gone ? -1 : 0;
    return out;
  }
  out.kind = Outcome::Kind::kRetry;
  out.delay = *delay;
  defer = std::max(*delay, 1LL);
  return out;
}

}  // namespace svc::webhooks

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

// Holds the log lines of a pass (one per attempt) and writes them a few KiB
// at a time, after the outcomes they report are written: a write(2) per
// line cost a delivery thread about as much as signing and building the
// request.
struct HeldLogLines {
  HeldLogLines() { core::hold_log_lines(true); }
  ~HeldLogLines() { core::hold_log_lines(false); }
  HeldLogLines(const HeldLogLines&) = delete;
  HeldLogLines& operator=(const HeldLogLines&) = delete;
};

// Writes `outcomes`, then the log lines held meanwhile.
void record(db::WebhookRepo& repo, const std::string& claimer, const std::vector<Outcome>& outcomes,
            std::size_t per_statement) {
  write_outcomes(repo, claimer, outcomes, per_statement);
  core::flush_log_lines();
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

// A batch being sent: its groups (one per endpoint) and the threads that
// take them in turn.
struct WebhookSender::Flight {
  std::vector<std::vector<db::WebhookDelivery>> groups;
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;

  void join() {
    for (auto& t : threads) t.join();
    threads.clear();
  }
};

std::unique_ptr<WebhookSender::Flight> WebhookSender::start(const db::WebhookClaim& claim,
                                                            std::vector<std::unique_ptr<WebhookClient>>& clients,
                                                            Ledger& ledger, WebhookCounts& counts) {
  auto flight = std::make_unique<Flight>();
  // Rows come ordered by endpoint: one group each.
  for (const auto& row : claim.rows) {
    if (flight->groups.empty() || flight->groups.back().front().endpoint_id != row.endpoint_id) {
      flight->groups.emplace_back();
    }
    flight->groups.back().push_back(row);
  }
  const int threads = static_cast<int>(std::min(clients.size(), flight->groups.size()));
  ledger.begin(threads);
  for (int t = 0; t < threads; ++t) {
    flight->threads.emplace_back([this, &ledger, &counts, f = flight.get(), client = clients[t].get()] {
      for (std::size_t g = f->next++; g < f->groups.size(); g = f->next++) serve(*client, f->groups[g], ledger, counts);
      ledger.done();
    });
  }
  return flight;
}

WebhookCounts WebhookSender::run_pass() {
  WebhookCounts counts;
  if (config_.keys.webhook_key.empty() || stopping()) return counts;
  const int batch = config_.webhooks.batch;
  const auto claim_batch = [&] {
    auto claim = repo_.claim(batch, config_.webhooks.lease_seconds, claimer_);
    std::lock_guard<std::mutex> held(lock_);
    counts.claimed += static_cast<long long>(claim.rows.size());
    return claim;
  };
  std::vector<std::unique_ptr<WebhookClient>> clients;
  for (int i = 0; i < config_.webhooks.concurrency; ++i) clients.push_back(std::make_unique<WebhookClient>(options_));
  Ledger ledger(kRecordBatch);
  const HeldLogLines held;
  auto claim = claim_batch();
  if (claim.rows.empty()) return counts;
  auto flight = start(claim, clients, ledger, counts);
  // A short batch was the last one due.
  bool more = static_cast<int>(claim.picked) >= batch;
  try {
    std::vector<Outcome> outcomes;
    while (flight) {
      std::optional<db::WebhookClaim> next;
      if (more && !stopping()) next = claim_batch();
      while (ledger.take(outcomes)) record(repo_, claimer_, outcomes, kRecordBatch);
      flight->join();
      flight.reset();
      if (next && !next->rows.empty()) {
        flight = start(*next, clients, ledger, counts);
        more = static_cast<int>(next->picked) >= batch;
      }
      record(repo_, claimer_, outcomes, kRecordBatch);  // the last batch's final ones
    }
  } catch (...) {
    // The rows not written keep their claim until the lease ends, and are
    // then sent again.
    aborted_ = true;
    if (flight) flight->join();
    aborted_ = false;
    throw;
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

#pragma once
// svc-sender's webhook work: claim due deliveries, POST them signed, record
// each outcome (docs/webhooks.md "Delivery"). At least once: a run that dies
// mid-batch leaves its rows claimed until [webhooks] lease_seconds pass, and
// the next run sends them again under the same webhook-id.
//
// One dead endpoint never holds up another: the claimed rows are grouped by
// endpoint and up to [webhooks] concurrency endpoints are served at once,
// each by a thread of its own with its own curl handle, one row at a time;
// the first failure of an endpoint defers the rest of its rows by the same
// delay (without counting an attempt), so an endpoint that times out costs
// one timeout per pass, not one per row.
//
// The delivery threads never wait on the database: they hand each outcome
// to a Ledger (ledger.hpp), and the calling thread, which alone uses the
// repository, writes them meanwhile: delivered rows together (one UPDATE
// per kRecordBatch rows and status, one tally update per endpoint), each
// endpoint's before its next failure. It also claims the next batch while
// one is sent (so a lease starts up to one batch before its rows are
// sent), and starts it as soon as the threads are done with the last one,
// before writing the last one's final outcomes. A run that dies before
// outcomes are written sends those rows again (at least once). One
// WebhookSender per process; call it from one thread.

#include <atomic>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "db/webhook_repo.hpp"
#include "webhooks/client.hpp"
#include "webhooks/ledger.hpp"

namespace svc::webhooks {

// What a pass did, by attempt outcome (outcome_name), plus failed: rows
// whose schedule ran out.
struct WebhookCounts {
  std::map<std::string, long long> outcomes;
  long long deferred = 0;
  long long failed = 0;
  long long claimed = 0;
};

class WebhookSender {
 public:
  // `repo` is used from the calling thread only. `stop`, when not null, is
  // polled between rows.
  WebhookSender(db::WebhookRepo& repo, const config::Config& config, std::string claimer,
                const volatile std::sig_atomic_t* stop = nullptr);

  // Batches until one comes back short, or stop is set. Claims nothing
  // without [keys] webhook_key.
  WebhookCounts run_pass();

  // Retention: deletes finished deliveries older than [webhooks]
  // keep_finished_seconds (nothing when 0), in batches of kPurgeBatch rows,
  // at most kPurgeBatches per call (the rest waits for the next pass);
  // returns how many.
  long long purge_finished();
  static constexpr int kPurgeBatch = 1000;
  static constexpr int kPurgeBatches = 10;
  // Delivered rows marked per statement at most, and how many wait before
  // the writing thread wakes for them (the rest at the batch's end).
  static constexpr std::size_t kRecordBatch = 50;

 private:
  // Sends one endpoint's rows (a delivery thread).
  void serve(WebhookClient& client, const std::vector<db::WebhookDelivery>& rows, Ledger& ledger,
             WebhookCounts& counts);
  // Counts and logs one attempt's outcome.
  void note(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts);
  // The outcome of a failed attempt; `defer` becomes the delay the
  // endpoint's other rows of the batch wait (0: go on; -1: release them,
  // the endpoint is disabled).
  Outcome failed(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts, long long& defer);
  // One batch on the delivery threads (sender.cpp).
  struct Flight;
  std::unique_ptr<Flight> start(const db::WebhookClaim& claim, std::vector<std::unique_ptr<WebhookClient>>& clients,
                                Ledger& ledger, WebhookCounts& counts);
  bool stopping() const { return aborted_ || (stop_ != nullptr && *stop_ != 0); }

  db::WebhookRepo& repo_;
  const config::Config& config_;
  WebhookOptions options_;
  std::string claimer_;
  const volatile std::sig_atomic_t* stop_;
  std::atomic<bool> aborted_{false};  // writing failed: the delivery threads stop
  std::mutex lock_;                   // guards the counts and the log lines
};

}  // namespace svc::webhooks

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
// one timeout per pass, not one per row. Rows delivered in a row are marked
// together (one UPDATE per kRecordBatch rows and status, and one for the
// endpoint's tally) before the next failure is recorded and at the group's
// end; a run that dies in between sends them again (at least once). One
// WebhookSender per process; call it from one thread.

#include <csignal>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "db/webhook_repo.hpp"
#include "webhooks/client.hpp"

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
  // `repo` is used under the sender's lock from the delivery threads.
  // `stop`, when not null, is polled between rows.
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
  // Delivered rows of one endpoint marked per statement at most.
  static constexpr std::size_t kRecordBatch = 50;

 private:
  // Delivered rows of one endpoint not marked yet, by HTTP status.
  using Delivered = std::map<int, std::vector<long long>>;

  void serve(WebhookClient& client, const std::vector<db::WebhookDelivery>& rows, WebhookCounts& counts);
  // Counts and logs one attempt's outcome.
  void note(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts);
  // Marks `done` delivered and resets the endpoint's failure tally; empties it.
  void flush(long long endpoint_id, Delivered& done);
  // Records one failed attempt; returns the delay the endpoint's other
  // rows of the batch wait (0: go on; -1: release them, the endpoint is
  // disabled).
  long long record(const db::WebhookDelivery& row, const WebhookResult& result, WebhookCounts& counts);
  bool stopping() const { return stop_ != nullptr && *stop_ != 0; }

  db::WebhookRepo& repo_;
  const config::Config& config_;
  WebhookOptions options_;
  std::string claimer_;
  const volatile std::sig_atomic_t* stop_;
  std::mutex lock_;  // guards repo_ and the counts
};

}  // namespace svc::webhooks

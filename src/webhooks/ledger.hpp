#pragma once
// The outcomes of a batch's attempts on their way to the queue table. The
// delivery threads add them and go on to their next POST; the thread that
// owns the database connection takes them and writes them (write_outcomes),
// so a POST never waits for the UPDATE of the one before it. Thread-safe.
//
// Order: entries are taken in the order they were added, and each endpoint
// is served by one thread, so an endpoint's delivered rows are marked
// before its next failure is recorded, as if written in place.

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "db/webhook_repo.hpp"

namespace svc::webhooks {

struct Outcome {
  enum class Kind {
    kDelivered,  // a 2xx: mark delivered
    kRetry,      // a failed attempt with a retry left, due after `delay`
    kFailed,     // a failed attempt, the last one (or a 410: `gone`)
    kDeferred,   // not attempted: due after `delay`, no attempt counted
    kReleased,   // not attempted: back to the queue as it was (stop, disabled)
  };
  Kind kind = Kind::kDelivered;
  long long endpoint_id = 0;
  std::vector<long long> ids{};  // one row, or (deferred, released) the rest of a group
  int http_status = 0;
  std::string error{};
  long long delay = 0;
  bool gone = false;
};

class Ledger {
 public:
  // `enough`: the delivered rows worth waking the writing thread for.
  explicit Ledger(std::size_t enough) : enough_(std::max<std::size_t>(enough, 1)) {}

  // A batch starts: `writers` delivery threads will call done() once each.
  // REQUIRES: the previous batch's writers are all done.
  void begin(int writers);
  void add(Outcome outcome);
  void done();

  // Waits until `enough` delivered rows wait, another kind of outcome
  // waits, or every writer is done; then moves what waits into `out`
  // (emptied first). True while writers remain; false when every writer
  // is done (`out` then holds the last of their outcomes).
  bool take(std::vector<Outcome>& out);

 private:
  std::mutex lock_;
  std::condition_variable changed_;
  std::vector<Outcome> waiting_;
  std::size_t delivered_ = 0;  // kDelivered entries in waiting_
  bool other_ = false;         // another kind in waiting_
  int writers_ = 0;
  const std::size_t enough_;
};

// Writes `outcomes` in order for `claimer`: consecutive delivered rows of
// an endpoint are marked together (one UPDATE per status and at most
// `per_statement` rows, one tally update per endpoint), written before
// that endpoint's next other outcome and at the end.
void write_outcomes(db::WebhookRepo& repo, const std::string& claimer, const std::vector<Outcome>& outcomes,
                    std::size_t per_statement);

}  // namespace svc::webhooks

#include "webhooks/ledger.hpp"

#include <map>

namespace svc::webhooks {
namespace {

// Delivered rows not marked yet: by endpoint, then by HTTP status.
using Delivered = std::map<long long, std::map<int, std::vector<long long>>>;

void mark(db::WebhookRepo& repo, const std::string& claimer, long long endpoint_id,
          std::map<int, std::vector<long long>>& by_status, std::size_t per_statement) {
  if (by_status.empty()) return;
  repo.record_attempt(endpoint_id, true, false);
  for (const auto& [status, ids] : by_status) {
    for (std::size_t at = 0; at < ids.size(); at += per_statement) {
      const auto end = ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), at + per_statement));
      repo.mark_delivered(std::vector<long long>(ids.begin() + static_cast<std::ptrdiff_t>(at), end), claimer, status);
    }
  }
  by_status.clear();
}

}  // namespace

void Ledger::begin(int writers) {
  std::lock_guard<std::mutex> held(lock_);
  writers_ = writers;
}

void Ledger::add(Outcome outcome) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> held(lock_);
    // Woken once when there is enough to write, not on every row.
    if (outcome.kind == Outcome::Kind::kDelivered) {
      wake = ++delivered_ == enough_ && !other_;
    } else {
      wake = !other_ && delivered_ < enough_;
      other_ = true;
    }
    waiting_.push_back(std::move(outcome));
  }
  if (wake) changed_.notify_one();
}

void Ledger::done() {
  {
    std::lock_guard<std::mutex> held(lock_);
    --writers_;
  }
  changed_.notify_one();
}

bool Ledger::take(std::vector<Outcome>& out) {
  out.clear();
  std::unique_lock<std::mutex> held(lock_);
  changed_.wait(held, [&] { return delivered_ >= enough_ || other_ || writers_ <= 0; });
  out.swap(waiting_);
  delivered_ = 0;
  other_ = false;
  return writers_ > 0;
}

void write_outcomes(db::WebhookRepo& repo, const std::string& claimer, const std::vector<Outcome>& outcomes,
                    std::size_t per_statement) {
  Delivered delivered;
  for (const auto& o : outcomes) {
    if (o.kind == Outcome::Kind::kDelivered) {
      auto& ids = delivered[o.endpoint_id][o.http_status];
      ids.insert(ids.end(), o.ids.begin(), o.ids.end());
      continue;
    }
    mark(repo, claimer, o.endpoint_id, delivered[o.endpoint_id], per_statement);  // the successes before it first
    switch (o.kind) {
      case Outcome::Kind::kRetry:
        repo.record_attempt(o.endpoint_id, false, false);
        repo.mark_retry(o.ids.front(), claimer, o.http_status, o.error, o.delay);
        break;
      case Outcome::Kind::kFailed:
        // gone: the endpoint is disabled; its other rows stay pending (an
        // operator's `webhook enable` sends them), this one is failed.
        repo.record_attempt(o.endpoint_id, false, o.gone);
        repo.mark_failed(o.ids.front(), claimer, o.http_status, o.error);
        break;
      case Outcome::Kind::kDeferred:
        repo.defer(o.ids, claimer, o.delay);
        break;
      case Outcome::Kind::kReleased:
        repo.release(o.ids, claimer);
        break;
      case Outcome::Kind::kDelivered:
        break;
    }
  }
  for (auto& [endpoint_id, by_status] : delivered) mark(repo, claimer, endpoint_id, by_status, per_statement);
}

}  // namespace svc::webhooks

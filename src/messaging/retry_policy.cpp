#include "messaging/retry_policy.hpp"

#include <algorithm>

namespace svc::messaging {
namespace {

constexpr long long kMaxRetryDelaySeconds = 86400;

}  // namespace

long long retry_delay_seconds(long long base_seconds, int failures_before, unsigned jitter_permille) {
  long long nominal = std::clamp(base_seconds, 1LL, kMaxRetryDelaySeconds);
  for (int i = 0; i < failures_before && nominal < kMaxRetryDelaySeconds; ++i) nominal *= 2;
  nominal = std::min(nominal, kMaxRetryDelaySeconds);
  const long long scaled = nominal * (800 + std::min(jitter_permille, 400u)) / 1000;
  return std::max(1LL, scaled);
}

Outcome decide_outcome(SendStatus status, int failures_before, int max_attempts) {
  switch (status) {
    case SendStatus::Sent:
      return Outcome::Sent;
    case SendStatus::PermanentFailure:
      return Outcome::Failed;
    case SendStatus::TemporaryFailure:
      return failures_before + 1 >= max_attempts ? Outcome::Failed : Outcome::Retry;
  }
  return Outcome::Failed;
}

const char* outcome_event(Outcome o) {
  switch (o) {
    case Outcome::Sent:
      return "sent";
    case Outcome::Retry:
      return "send_retry";
    case Outcome::Failed:
      return "send_failed";
  }
  return "?";
}

}  // namespace svc::messaging

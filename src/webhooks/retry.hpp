#pragma once
// When a failed webhook delivery is tried again: the Standard Webhooks
// schedule, and Retry-After. Pure.

#include <optional>
#include <string_view>

namespace svc::webhooks {

// The delays after the 1st..7th failed attempt: 5 s, 5 min, 30 min, 2 h,
// 5 h, 10 h, 10 h. After the 8th the delivery has failed for good.
inline constexpr long long kRetrySchedule[] = {5, 300, 1800, 7200, 18000, 36000, 36000};
inline constexpr long long kMaxRetryAfter = 3600;

// The wait before the next attempt after failure number `failures` (1 for
// the first), nullopt when there is none. A Retry-After the receiver gave
// replaces the scheduled delay, capped at kMaxRetryAfter.
std::optional<long long> next_delay(int failures, std::optional<long long> retry_after);

// A Retry-After value in delta-seconds (RFC 9110 10.2.3); nullopt for
// anything else (an HTTP-date is converted by the client, which knows the
// time).
std::optional<long long> retry_after_seconds(std::string_view value);

}  // namespace svc::webhooks

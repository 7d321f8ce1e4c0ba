#pragma once
// What svc-sender records after one delivery attempt, and how long a row
// waits before the next one. Pure; no I/O.

#include "messaging/smtp_session.hpp"

namespace svc::messaging {

// Delay before the next attempt after a temporary failure:
// base_seconds * 2^failures_before (failures_before = attempts already
// recorded, so the first retry waits base_seconds), capped at one day, then
// scaled by (800 + jitter_permille) / 1000, i.e. -20%..+20% for
// jitter_permille in [0, 400] (larger values are clamped). At least 1.
long long retry_delay_seconds(long long base_seconds, int failures_before, unsigned jitter_permille);

enum class Outcome { Sent, Retry, Failed };

// The event svc-sender logs for a recorded outcome: "sent", "send_retry",
// "send_failed".
const char* outcome_event(Outcome o);

// What to record for a send result of a row with `failures_before` recorded
// attempts: a temporary failure that would be attempt number max_attempts
// is final.
Outcome decide_outcome(SendStatus status, int failures_before, int max_attempts);

}  // namespace svc::messaging

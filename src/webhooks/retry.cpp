#include "webhooks/retry.hpp"

#include <algorithm>
#include <iterator>

#include "core/text.hpp"

namespace svc::webhooks {

std::optional<long long> next_delay(int failures, std::optional<long long> retry_after) {
  if (failures < 1 || failures > static_cast<int>(std::size(kRetrySchedule))) return std::nullopt;
  if (retry_after) return std::clamp(*retry_after, 0LL, kMaxRetryAfter);
  return kRetrySchedule[failures - 1];
}

std::optional<long long> retry_after_seconds(std::string_view value) {
  value = core::trim_blanks(value);
  if (value.empty() || value.size() > 10) return std::nullopt;
  long long n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace svc::webhooks

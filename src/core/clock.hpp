#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace svc::core {

// Wall-clock time in whole seconds since the Unix epoch. An interface so tests
// can move time (token expiry, throttling windows) without sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual long long now() const = 0;
};

class SystemClock final : public Clock {
 public:
  long long now() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// `unix_seconds` as UTC time in strftime's `format` (at most 63 bytes),
// e.g. "%Y-%m-%dT%H:%M:%SZ". Thread-safe (gmtime_r).
inline std::string format_utc(long long unix_seconds, const char* format) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  const std::size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

}  // namespace svc::core

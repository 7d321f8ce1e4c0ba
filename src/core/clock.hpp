#pragma once

#include <chrono>

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

}  // namespace svc::core

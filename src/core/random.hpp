#pragma once

#include <cstddef>
#include <cstdint>

namespace svc::core {

// Randomness for values a test may want to predict (SMS codes). An interface
// like Clock so tests can fix it; key material and nonces inside crypto/ draw
// from libsodium directly and never go through here.
class Random {
 public:
  virtual ~Random() = default;
  // A uniformly distributed value in [0, upper_bound). REQUIRES: upper_bound > 0.
  virtual std::uint32_t uniform(std::uint32_t upper_bound) = 0;
};

// libsodium's randombytes_uniform (no modulo bias). REQUIRES: sodium_init().
class SystemRandom final : public Random {
 public:
  std::uint32_t uniform(std::uint32_t upper_bound) override;
};

}  // namespace svc::core

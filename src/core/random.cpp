#include "core/random.hpp"

#include <sodium.h>

namespace svc::core {

std::uint32_t SystemRandom::uniform(std::uint32_t upper_bound) { return randombytes_uniform(upper_bound); }

}  // namespace svc::core

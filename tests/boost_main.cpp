// The Boost.Test entry point of both test programs (svc-unit-tests and
// svc-handler-tests). Every *_test.cpp adds one suite. libsodium is
// initialised once, before any test.
#define BOOST_TEST_MODULE svc
#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <stdexcept>

namespace {
struct SodiumInit {
  SodiumInit() {
    if (sodium_init() < 0) throw std::runtime_error("sodium_init failed");
  }
};
}  // namespace
BOOST_TEST_GLOBAL_FIXTURE(SodiumInit);

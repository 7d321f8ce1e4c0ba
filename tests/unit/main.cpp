// The single Boost.Test entry point; every tests/unit/*_test.cpp adds a suite.
#define BOOST_TEST_MODULE svc_unit
#include <sodium.h>

#include <boost/test/unit_test.hpp>

namespace {
struct SodiumInit {
  SodiumInit() {
    if (sodium_init() < 0) throw std::runtime_error("sodium_init failed");
  }
};
}  // namespace
BOOST_TEST_GLOBAL_FIXTURE(SodiumInit);

// The web-push floor for `make bench`: what one push costs in crypto alone,
// with svc's own code (build-release/libsvc_core.a): RFC 8291 encryption of
// the payload for a subscription (fresh sender key pair and salt) plus the
// VAPID ES256 token and Authorization header, in PROCS processes at once.
// The VAPID key pair is parsed and checked once per process, as a worker
// does (push/vapid_key_cache.hpp); the subscription key per push, as a
// worker does too.
//
//   push_raw subscription           print "P256DH AUTH" (base64url) of a fresh
//                                   subscription, for the bench's svc_customers rows
//   push_raw loop SECONDS PROCS     prints one JSON line with ops_per_s
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "crypto/encoding.hpp"
#include "crypto/vapid.hpp"
#include "crypto/webpush.hpp"
#include "proc_loop.h"

namespace {

// The body the bench's sendPush arm produces (title, message, data).
constexpr const char* kPayload = R"({"title":"Hi","message":"Your order shipped","data":{"order":42}})";

long loop(void*, double seconds) {
  const svc::crypto::EceKeys ua = svc::crypto::generate_p256_keypair();
  const std::string auth = svc::crypto::random_bytes(16);
  const svc::crypto::VapidKeys vapid = svc::crypto::generate_vapid_keys();
  const auto signer = svc::crypto::VapidSigner::load(vapid);
  if (!signer) return -1;
  const double end = bench_now_s() + seconds;
  long n = 0;
  while (bench_now_s() < end) {
    auto body = svc::crypto::encrypt_push_payload(kPayload, ua.public_key, auth);
    auto origin = svc::crypto::endpoint_origin("http://127.0.0.1:9/push/1");
    if (!body || !origin) return -1;
    const long long exp = static_cast<long long>(std::time(nullptr)) + 12 * 3600;
    auto jwt = signer->jwt(*origin, "mailto:admin@demo.example", exp);
    if (!jwt) return -1;
    std::string header = svc::crypto::vapid_authorization_header(*jwt, vapid.public_key);
    if (header.empty()) return -1;
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "subscription") == 0) {
    const svc::crypto::EceKeys ua = svc::crypto::generate_p256_keypair();
    std::printf("%s %s\n", svc::crypto::base64url_encode(ua.public_key).c_str(),
                svc::crypto::base64url_encode(svc::crypto::random_bytes(16)).c_str());
    return 0;
  }
  if (argc != 4 || std::strcmp(argv[1], "loop") != 0) {
    std::fprintf(stderr, "usage: %s subscription | loop SECONDS PROCS\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  const int procs = std::max(1, std::atoi(argv[3]));
  return proc_loop_report(procs, seconds, loop, nullptr, "push_raw: encryption or signing failed");
}

// Access-token signing for `make bench`: what issuing and checking one
// access token costs with svc's own code (build-release/libsvc_core.a), for
// ES256 (P-256), EdDSA (Ed25519) and the legacy HS256, in one process and
// one run so the three are comparable. Keys are parsed once, as a worker
// keeps them (auth/tokens/signing_keys.hpp); each token is a fresh sign (new jti)
// followed by a full verify, with claims of the size login issues.
//
//   token_sign ROUNDS MS_PER_ROUND   one JSON line per algorithm:
//   {"alg":"ES256","sign_us":…,"verify_us":…,"sign_verify_us":…,"tokens":N}
// The algorithms take turns within every round; each figure is the median
// over the rounds.
#include <sodium.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "crypto/access_token.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"

namespace {

using Clock = std::chrono::steady_clock;
constexpr long long kNow = 1'800'000'000;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

struct Sample {
  double sign_us = 0;
  double verify_us = 0;
  long tokens = 0;
};

// Signs then verifies tokens for `ms` milliseconds; per-token averages.
template <class Sign, class Verify>
Sample measure(int ms, Sign sign, Verify verify) {
  Sample s;
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < end) {
    auto t = Clock::now();
    const std::string token = sign();
    s.sign_us += us_since(t);
    t = Clock::now();
    if (!verify(token)) std::abort();  // a bench of a broken path measures nothing
    s.verify_us += us_since(t);
    ++s.tokens;
  }
  s.sign_us /= static_cast<double>(s.tokens);
  s.verify_us /= static_cast<double>(s.tokens);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || sodium_init() < 0) {
    std::fprintf(stderr, "usage: token_sign ROUNDS MS_PER_ROUND\n");
    return 2;
  }
  const int rounds = std::max(1, std::atoi(argv[1]));
  const int ms = std::max(10, std::atoi(argv[2]));
  using namespace svc::crypto;

  AccessClaims claims;
  claims.iss = "https://auth.example";
  claims.sub = "123456";
  claims.aud = "https://shop.example";
  claims.client_id = "1";
  claims.iat = kNow;
  claims.exp = kNow + 3600;
  claims.auth_time = kNow;
  claims.amr = {"pwd"};
  claims.tbl = "svc_users";
  std::vector<SigningKey> keys;
  for (SigningAlg alg : {SigningAlg::kES256, SigningAlg::kEdDSA}) {
    const SigningKeyMaterial m = generate_signing_key(alg);
    keys.push_back(*SigningKey::load_pair(std::string(alg_name(alg)), alg, m.private_key, m.public_key));
  }
  const JwtKeyRing ring{JwtKey{"k1", random_bytes(32)}, {}};
  Claims legacy;
  legacy.sub = "123456";
  legacy.typ = "access";
  legacy.tbl = "svc_users";
  legacy.app = 1;
  legacy.iat = kNow;
  legacy.exp = kNow + 3600;

  const char* names[] = {"ES256", "EdDSA", "HS256"};
  std::vector<std::vector<Sample>> samples(3);
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const SigningKey& key = keys[k];
      samples[k].push_back(measure(
          ms, [&] { return sign_access_token(claims, key); },
          [&](const std::string& t) { return verify_access_token(t, keys, claims.iss, claims.aud, kNow).ok(); }));
    }
    samples[2].push_back(measure(
        ms, [&] { return jwt_sign(legacy, ring.current); },
        [&](const std::string& t) { return jwt_verify(t, ring, "access", kNow).ok(); }));
  }
  for (std::size_t k = 0; k < 3; ++k) {
    std::vector<double> sign, verify, both;
    long tokens = 0;
    for (const Sample& s : samples[k]) {
      sign.push_back(s.sign_us);
      verify.push_back(s.verify_us);
      both.push_back(s.sign_us + s.verify_us);
      tokens += s.tokens;
    }
    std::printf("{\"alg\":\"%s\",\"sign_us\":%.2f,\"verify_us\":%.2f,\"sign_verify_us\":%.2f,\"tokens\":%ld}\n",
                names[k], median(sign), median(verify), median(both), tokens);
  }
  return 0;
}

// The OpenID Connect token exchange's floor for `make bench`: one RS256
// signature (RSASSA-PKCS1-v1_5 over SHA-256) of an ID token's size and its
// verify, with svc's own SigningKey (build-release/libsvc_core.a, OpenSSL 3)
// and a key of svc's own size (crypto/rsa_key.hpp kBits, 2048 bits), in
// PROCS processes at once. The key is generated and parsed once per
// process, as a worker keeps its key set (auth/tokens/signing_keys.hpp).
//
//   rs256_raw loop SECONDS PROCS     prints one JSON line with ops_per_s
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "crypto/encoding.hpp"
#include "crypto/signing_key.hpp"
#include "proc_loop.h"

namespace {

// The signing input of an ID token with scope "openid email profile" (about
// the size the token endpoint signs): header.payload, base64url.
std::string id_token_input() {
  const std::string header = R"({"alg":"RS256","typ":"JWT","kid":"k_0123456789abcdef0123"})";
  const std::string payload =
      R"({"iss":"https://auth.example.com/oidc/1","sub":"1001","aud":"bench-oidc-client-00000",)"
      R"("exp":1800000900,"iat":1800000000,"auth_time":1800000000,"nonce":"n-0123456789abcdef",)"
      R"("amr":["pwd"],"at_hash":"0123456789abcdefghijkl","sid":"0123456789abcdefghijkl",)"
      R"("email":"bench1@example.com","email_verified":true,"name":"Bench User","given_name":"Bench",)"
      R"("family_name":"User"})";
  return svc::crypto::base64url_encode(header) + "." + svc::crypto::base64url_encode(payload);
}

long loop(void*, double seconds) {
  using namespace svc::crypto;
  SigningKeyMaterial m = generate_signing_key(SigningAlg::kRS256);
  const auto key = SigningKey::load_pair("k", SigningAlg::kRS256, m.private_key, m.public_key);
  if (!key) return -1;
  const std::string input = id_token_input();
  const double end = bench_now_s() + seconds;
  long n = 0;
  while (bench_now_s() < end) {
    const std::string signature = key->sign(input);
    if (!key->verify(input, signature)) return -1;
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || std::strcmp(argv[1], "loop") != 0) {
    std::fprintf(stderr, "usage: %s loop SECONDS PROCS\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  const int procs = std::max(1, std::atoi(argv[3]));
  return proc_loop_report(procs, seconds, loop, nullptr, "rs256_raw: signing or verifying failed");
}

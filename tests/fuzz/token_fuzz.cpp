// JWT verification and sealed-id opening, the two parsers of bearer text.
// Each input is tried three ways:
//   1. as a token, raw: jwt_verify and open_id (both purposes) must refuse it
//      or, for a JWT, accept only an access token (aud svc-access) that has
//      not expired;
//   2. as "header LF payload" JSON texts, signed here with the ring's key, so
//      the claim parser behind the signature check sees the mutations;
//   3. as the plaintext of a sealed id, encrypted here under the id key, so
//      open_id's JSON parser sees them.
// Access tokens (crypto/access_token.hpp) get ways 1 and 2 too, with an
// Ed25519 key (deterministic, fast): accepted only with the expected iss,
// aud and an exp in the future.
#include <sodium.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crypto/access_token.hpp"
#include "crypto/encoding.hpp"
#include "crypto/jwt.hpp"
#include "crypto/sealed_id.hpp"

namespace {

using namespace svc::crypto;

constexpr long long kNow = 1700000000;
const JwtKeyRing kRing{{"k1", "0123456789abcdef0123456789abcdef"}, {{"k0", "an older secret, still accepted!"}}};
const std::string kIdKey(32, 'i');

const SigningKey& access_key() {
  static const SigningKey key = [] {
    const std::string seed(32, 's');
    unsigned char pk[crypto_sign_PUBLICKEYBYTES];
    unsigned char sk[crypto_sign_SECRETKEYBYTES];
    crypto_sign_seed_keypair(pk, sk, reinterpret_cast<const unsigned char*>(seed.data()));
    auto k = SigningKey::load_pair("k1", SigningAlg::kEdDSA, seed, std::string(reinterpret_cast<char*>(pk), sizeof pk));
    if (!k) std::abort();
    return *k;
  }();
  return key;
}

void check_access(const std::string& token) {
  const SigningKey keys[] = {access_key()};
  const AccessTokenResult r = verify_access_token(token, keys, "https://iss.example", "https://aud.example", kNow);
  if (r.ok() &&
      (r.claims.iss != "https://iss.example" || r.claims.aud != "https://aud.example" || r.claims.exp <= kNow)) {
    std::abort();
  }
}

void check_jwt(const std::string& token) {
  const JwtResult r = jwt_verify(token, kRing, "access", kNow);
  if (r.ok() && (r.claims.typ != "access" || r.claims.aud != "svc-access" || r.claims.exp <= kNow)) std::abort();
}

std::string signed_token(std::string_view header, std::string_view payload) {
  const std::string input = base64url_encode(header) + "." + base64url_encode(payload);
  return input + "." + base64url_encode(hmac_sha256(kRing.current.secret, input));
}

const unsigned char* bytes(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

std::string sealed(std::string_view plaintext) {
  static constexpr std::string_view kAd = "svc:user-id:v1";
  constexpr size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  const std::string nonce(kNonce, '\x07');  // fixed: fine for a fuzzer, never for production
  std::string out = nonce + std::string(plaintext.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES, '\0');
  crypto_aead_xchacha20poly1305_ietf_encrypt(reinterpret_cast<unsigned char*>(out.data() + kNonce), nullptr,
                                             bytes(plaintext), plaintext.size(), bytes(kAd), kAd.size(), nullptr,
                                             bytes(nonce), bytes(kIdKey));
  return base64url_encode(out);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return sodium_init() < 0 ? 1 : 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  check_jwt(input);
  check_access(input);
  (void)open_id(input, IdPurpose::User, kIdKey);
  (void)open_id(input, IdPurpose::Customer, kIdKey);

  const size_t lf = input.find('\n');
  if (lf != std::string::npos) {
    check_jwt(signed_token(input.substr(0, lf), input.substr(lf + 1)));
    const std::string signing_input =
        base64url_encode(input.substr(0, lf)) + "." + base64url_encode(input.substr(lf + 1));
    check_access(signing_input + "." + base64url_encode(access_key().sign(signing_input)));
  }

  const std::string token = sealed(input);
  if (auto opened = open_id(token, IdPurpose::User, kIdKey)) (void)opened->exp;
  if (open_id(token, IdPurpose::Customer, kIdKey)) std::abort();  // sealed for the other purpose
  return 0;
}

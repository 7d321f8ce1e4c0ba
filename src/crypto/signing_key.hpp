#pragma once
// Asymmetric JWS signing keys (RFC 7515/7518/8037): ES256 (ECDSA P-256 with
// SHA-256) and EdDSA (Ed25519) for access tokens, RS256 (RSASSA-PKCS1-v1_5
// with SHA-256, 2048-bit keys) for OpenID Connect ID tokens; their JWK form
// (RFC 7517) and the sealing of private halves for storage.
//
// Raw forms, as the database keeps them (base64url):
//   ES256: private = 32-byte scalar, public = 65-byte point 0x04 || X || Y
//   EdDSA: private = 32-byte seed,   public = 32 bytes (RFC 8032)
//   RS256: private = PKCS#8 DER,     public = SubjectPublicKeyInfo DER
// Signatures are the JWS forms: ES256 the fixed 64-byte r || s (never DER),
// EdDSA the 64-byte Ed25519 signature, RS256 the modulus-sized PKCS#1 v1.5
// signature.
//
// A SigningKey is parsed and checked once (what a worker keeps for its key
// set, so no key is parsed per request). Copies share the parsed key and,
// for ES256, one OpenSSL context for signing and one for checking, made on
// first use and reused; a context serves one thread at a time (another
// thread meanwhile makes its own for that call), and OpenSSL allows
// concurrent use of one EVP_PKEY, so a SigningKey is thread-safe. Made after
// fork.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto {

enum class SigningAlg { kES256, kEdDSA, kRS256 };
inline constexpr size_t kSigningAlgs = 3;

// "ES256" | "EdDSA" | "RS256": the JWS `alg` and the name stored and typed by admins.
std::string_view alg_name(SigningAlg alg);
// The inverse of alg_name (exact, case-sensitive); nullopt for anything else.
std::optional<SigningAlg> parse_alg(std::string_view name);

struct SigningKeyMaterial {
  SigningAlg alg = SigningAlg::kES256;
  std::string private_key;  // raw, see above; wipe after use
  std::string public_key;   // raw, see above
};

// A fresh key pair. Throws std::runtime_error only if OpenSSL cannot make one.
SigningKeyMaterial generate_signing_key(SigningAlg alg);

class SigningKey {
 public:
  // A verify-only key; nullopt unless `public_raw` is a valid key of `alg`
  // (ES256: on the curve).
  static std::optional<SigningKey> load_public(std::string kid, SigningAlg alg, std::string_view public_raw);
  // A key that signs too; nullopt unless both halves are valid and match.
  static std::optional<SigningKey> load_pair(std::string kid, SigningAlg alg, std::string_view private_raw,
                                             std::string_view public_raw);

  const std::string& kid() const { return kid_; }
  SigningAlg alg() const { return alg_; }
  const std::string& public_raw() const { return public_raw_; }
  bool can_sign() const;
  // The JWS signature of `input`. Throws std::logic_error when !can_sign(),
  // std::runtime_error if OpenSSL fails. ES256 signatures are not
  // deterministic (fresh nonce); Ed25519 ones are.
  std::string sign(std::string_view input) const;
  // True when `signature` is a valid JWS signature of `input` by this key
  // (ES256: exactly 64 bytes, r and s in range; RS256: the modulus size).
  // Never throws. A signature this key verified before is known without the
  // public key operation (signing_key.cpp, kMemoEntries).
  bool verify(std::string_view input, std::string_view signature) const;
  // The public JWK as one JSON object, members in this order:
  //   ES256: {"kty":"EC","crv":"P-256","x":…,"y":…,"kid":…,"alg":"ES256","use":"sig"}
  //   EdDSA: {"kty":"OKP","crv":"Ed25519","x":…,"kid":…,"alg":"EdDSA","use":"sig"}
  //   RS256: {"kty":"RSA","n":…,"e":…,"kid":…,"alg":"RS256","use":"sig"}
  std::string jwk() const;

 private:
  struct Parsed;
  SigningKey(std::string kid, SigningAlg alg, std::string public_raw, std::shared_ptr<const Parsed> parsed);
  bool verify_signature(std::string_view input, std::string_view signature) const;
  std::string kid_;
  SigningAlg alg_;
  std::string public_raw_;
  std::shared_ptr<const Parsed> parsed_;
};

// The private half sealed for storage with the key-encryption key `kek`
// (32 bytes, [keys] signing_kek): XChaCha20-Poly1305 (libsodium), the kid as
// associated data so a sealed half cannot be moved to another row.
// Result: 24-byte nonce || ciphertext || 16-byte tag. REQUIRES kek.size() == 32.
std::string seal_private_key(std::string_view private_raw, std::string_view kek, std::string_view kid);
// The inverse; nullopt when the kek, the kid or the bytes do not match.
std::optional<std::string> open_private_key(std::string_view sealed, std::string_view kek, std::string_view kid);

}  // namespace svc::crypto

// ES256 and EdDSA through OpenSSL 3. OpenSSL signs ECDSA in DER (a SEQUENCE
// of two INTEGERs); JWS wants the fixed 64-byte r || s (RFC 7518 3.4), so
// signatures are re-encoded both ways here. Ed25519 (RFC 8037) signs the
// message itself in one shot: no digest, no re-encoding.

#include "crypto/signing_key.hpp"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sodium.h>

#include <mutex>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"
#include "crypto/p256.hpp"
#include "crypto/rsa_key.hpp"

namespace svc::crypto {
namespace {

constexpr std::size_t kEd25519Size = 32;
constexpr std::size_t kSignatureSize = 64;  // both algorithms
constexpr int kHalf = 32;                   // r and s of ES256

PkeyPtr load_ed25519_public(std::string_view raw) {
  if (raw.size() != kEd25519Size) return nullptr;
  return PkeyPtr(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, byte_ptr(raw), raw.size()));
}

// The pair from its seed, accepted only when the seed's public key is `public_raw`.
PkeyPtr load_ed25519_pair(std::string_view seed, std::string_view public_raw) {
  if (seed.size() != kEd25519Size || public_raw.size() != kEd25519Size) return nullptr;
  PkeyPtr key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, byte_ptr(seed), seed.size()));
  if (!key) return nullptr;
  std::string derived(kEd25519Size, '\0');
  std::size_t len = derived.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char*>(derived.data()), &len) != 1 ||
      len != kEd25519Size || !constant_time_equal(derived, public_raw)) {
    return nullptr;
  }
  return key;
}

std::string raw_of(EVP_PKEY* key, bool private_half) {
  std::string out(kEd25519Size, '\0');
  std::size_t len = out.size();
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  const int ok = private_half ? EVP_PKEY_get_raw_private_key(key, p, &len) : EVP_PKEY_get_raw_public_key(key, p, &len);
  if (ok != 1 || len != kEd25519Size) throw std::runtime_error("Ed25519 key export failed");
  return out;
}

// DER ECDSA-Sig-Value -> r || s, each left-padded to 32 bytes.
std::string der_to_raw(std::string_view der) {
  const unsigned char* p = byte_ptr(der);
  EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) throw std::runtime_error("ES256 signature decoding failed");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string raw(kSignatureSize, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(r, out, kHalf) != kHalf || BN_bn2binpad(s, out + kHalf, kHalf) != kHalf) {
    throw std::runtime_error("ES256 signature encoding failed");
  }
  return raw;
}

// r || s -> DER; "" when it is not 64 bytes (OpenSSL then checks the range).
std::string raw_to_der(std::string_view raw) {
  if (raw.size() != kSignatureSize) return "";
  EcdsaSigPtr sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(byte_ptr(raw), kHalf, nullptr);
  BIGNUM* s = BN_bin2bn(byte_ptr(raw) + kHalf, kHalf, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return "";
  }
  const int len = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (len <= 0) return "";
  std::string der(static_cast<std::size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  return i2d_ECDSA_SIG(sig.get(), &p) == len ? der : "";
}

template <typename Writer>
void member(Writer& w, const char* name, std::string_view value) {
  w.Key(name);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

}  // namespace

// The parsed key, and for ES256 the OpenSSL contexts every signature and
// check of this process reuses: an EVP_PKEY_CTX initialised once for sign
// and once for verify (EVP_DigestSignInit per token fetched the digest and
// the signature method and built a fresh context each time), and SHA-256
// fetched once. A context is used by one thread at a time: a thread that
// finds it busy makes a fresh one for that call, so copies stay thread-safe.
struct SigningKey::Parsed {
  Parsed(PkeyPtr key, bool private_half) : pkey(std::move(key)), has_private(private_half) {}

  PkeyPtr pkey;
  bool has_private = false;
  mutable std::mutex sign_mutex;
  mutable PkeyCtxPtr sign_ctx;
  mutable std::mutex verify_mutex;
  mutable PkeyCtxPtr verify_ctx;
  // Digests of the signatures this key has verified (kMemoEntries, below).
  mutable std::mutex memo_mutex;
  mutable std::unordered_set<std::string> verified;
};

namespace {

const EVP_MD* sha256_md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);  // for the process's lifetime
  return md;
}

bool sha256(std::string_view input, unsigned char (&out)[32]) {
  const EVP_MD* md = sha256_md();
  unsigned int len = 0;
  return md && EVP_Digest(input.data(), input.size(), out, &len, md, nullptr) == 1 && len == 32;
}

// A context for EVP_PKEY_sign (verify = false) or EVP_PKEY_verify of `key`.
PkeyCtxPtr ecdsa_context(EVP_PKEY* key, bool verify) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  if (!ctx || (verify ? EVP_PKEY_verify_init(ctx.get()) : EVP_PKEY_sign_init(ctx.get())) != 1 ||
      EVP_PKEY_CTX_set_signature_md(ctx.get(), sha256_md()) != 1) {
    return nullptr;
  }
  return ctx;
}

// Runs `use` with the kept context of `slot`, made on first use; with a
// fresh one when another thread holds it. False when no context could be made.
template <class Use>
bool with_ecdsa_context(std::mutex& mutex, PkeyCtxPtr& slot, EVP_PKEY* key, bool verify, Use use) {
  std::unique_lock lock(mutex, std::try_to_lock);
  if (!lock.owns_lock()) {
    PkeyCtxPtr own = ecdsa_context(key, verify);
    return own && use(own.get());
  }
  if (!slot) slot = ecdsa_context(key, verify);
  return slot && use(slot.get());
}

constexpr std::size_t kMaxDerSignature = 72;  // SEQUENCE of two 33-byte INTEGERs

// A signature over fixed bytes by a fixed key stays valid, so a key keeps the
// signatures it has verified and checks a token presented again (an admin
// console sends the same access token with every request) without the public
// key operation. Entries are HMAC-SHA256 digests, keyed by a secret of the process,
// of the input's length, the input and the signature: the same bytes or
// nothing, and the set's lookups reveal nothing about a kept token to whoever
// probes it with near misses. Only successes are kept, at most kMemoEntries
// per key (then the set starts again); every claim of a token is still
// checked on every use (expiry, issuer, audience: verify_access_token).
constexpr std::size_t kMemoEntries = 4096;

std::string memo_digest(std::string_view input, std::string_view signature) {
  static const std::string key = [] {
    std::string k(32, '\0');
    randombytes_buf(k.data(), k.size());
    return k;
  }();
  std::string message = std::to_string(input.size()) + '.';
  message.append(input).append(signature);
  return hmac_sha256(key, message);
}

}  // namespace

std::string_view alg_name(SigningAlg alg) {
  switch (alg) {
    case SigningAlg::kEdDSA:
      return "EdDSA";
    case SigningAlg::kRS256:
      return "RS256";
    case SigningAlg::kES256:
      break;
  }
  return "ES256";
}

std::optional<SigningAlg> parse_alg(std::string_view name) {
  if (name == "ES256") return SigningAlg::kES256;
  if (name == "EdDSA") return SigningAlg::kEdDSA;
  if (name == "RS256") return SigningAlg::kRS256;
  return std::nullopt;
}

SigningKeyMaterial generate_signing_key(SigningAlg alg) {
  if (alg == SigningAlg::kES256) {
    PkeyPtr key = p256::generate();
    return {alg, p256::private_scalar(key.get()), p256::public_point(key.get())};
  }
  if (alg == SigningAlg::kRS256) {
    PkeyPtr key = rsa::generate();
    return {alg, rsa::private_der(key.get()), rsa::public_der(key.get())};
  }
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!key) throw std::runtime_error("Ed25519 key generation failed");
  return {alg, raw_of(key.get(), true), raw_of(key.get(), false)};
}

SigningKey::SigningKey(std::string kid, SigningAlg alg, std::string public_raw, std::shared_ptr<const Parsed> parsed)
    : kid_(std::move(kid)), alg_(alg), public_raw_(std::move(public_raw)), parsed_(std::move(parsed)) {}

std::optional<SigningKey> SigningKey::load_public(std::string kid, SigningAlg alg, std::string_view public_raw) {
  PkeyPtr key = alg == SigningAlg::kES256   ? p256::load_public(public_raw)
                : alg == SigningAlg::kRS256 ? rsa::load_public(public_raw)
                                            : load_ed25519_public(public_raw);
  if (!key) return std::nullopt;
  return SigningKey(std::move(kid), alg, std::string(public_raw),
                    std::make_shared<const Parsed>(std::move(key), false));
}

std::optional<SigningKey> SigningKey::load_pair(std::string kid, SigningAlg alg, std::string_view private_raw,
                                                std::string_view public_raw) {
  PkeyPtr key = alg == SigningAlg::kES256   ? p256::load_keypair(private_raw, public_raw)
                : alg == SigningAlg::kRS256 ? rsa::load_pair(private_raw, public_raw)
                                            : load_ed25519_pair(private_raw, public_raw);
  if (!key) return std::nullopt;
  return SigningKey(std::move(kid), alg, std::string(public_raw), std::make_shared<const Parsed>(std::move(key), true));
}

bool SigningKey::can_sign() const { return parsed_->has_private; }

std::string SigningKey::sign(std::string_view input) const {
  if (!can_sign()) throw std::logic_error("SigningKey::sign: key " + kid_ + " has no private half");
  if (alg_ == SigningAlg::kES256) {
    unsigned char digest[32];
    unsigned char der[kMaxDerSignature];
    std::size_t len = sizeof der;
    const bool ok = sha256(input, digest) &&
                    with_ecdsa_context(
                        parsed_->sign_mutex, parsed_->sign_ctx, parsed_->pkey.get(), false,
                        [&](EVP_PKEY_CTX* ctx) { return EVP_PKEY_sign(ctx, der, &len, digest, sizeof digest) == 1; });
    if (!ok) throw std::runtime_error("JWS signing failed");
    return der_to_raw(std::string_view(reinterpret_cast<const char*>(der), len));
  }
  // Ed25519 signs the message itself (no digest); RS256 is PKCS#1 v1.5
  // over SHA-256, OpenSSL's default padding for an RSA key.
  const EVP_MD* digest = alg_ == SigningAlg::kRS256 ? sha256_md() : nullptr;
  MdCtxPtr md(EVP_MD_CTX_new());
  std::size_t len = 0;
  if (!md || EVP_DigestSignInit(md.get(), nullptr, digest, nullptr, parsed_->pkey.get()) != 1 ||
      EVP_DigestSign(md.get(), nullptr, &len, byte_ptr(input), input.size()) != 1) {
    throw std::runtime_error("JWS signing failed");
  }
  std::string out(len, '\0');
  if (EVP_DigestSign(md.get(), reinterpret_cast<unsigned char*>(out.data()), &len, byte_ptr(input), input.size()) !=
      1) {
    throw std::runtime_error("JWS signing failed");
  }
  out.resize(len);
  return out;
}

bool SigningKey::verify(std::string_view input, std::string_view signature) const {
  const std::string digest = memo_digest(input, signature);
  {
    std::lock_guard lock(parsed_->memo_mutex);
    if (parsed_->verified.count(digest)) return true;
  }
  if (!verify_signature(input, signature)) return false;
  std::lock_guard lock(parsed_->memo_mutex);
  if (parsed_->verified.size() >= kMemoEntries) parsed_->verified.clear();
  parsed_->verified.insert(digest);
  return true;
}

bool SigningKey::verify_signature(std::string_view input, std::string_view signature) const {
  if (alg_ == SigningAlg::kRS256) {
    MdCtxPtr md(EVP_MD_CTX_new());
    return signature.size() == static_cast<std::size_t>(EVP_PKEY_get_size(parsed_->pkey.get())) && md &&
           EVP_DigestVerifyInit(md.get(), nullptr, sha256_md(), nullptr, parsed_->pkey.get()) == 1 &&
           EVP_DigestVerify(md.get(), byte_ptr(signature), signature.size(), byte_ptr(input), input.size()) == 1;
  }
  if (signature.size() != kSignatureSize) return false;
  if (alg_ == SigningAlg::kES256) {
    const std::string der = raw_to_der(signature);
    unsigned char digest[32];
    return !der.empty() && sha256(input, digest) &&
           with_ecdsa_context(parsed_->verify_mutex, parsed_->verify_ctx, parsed_->pkey.get(), true,
                              [&](EVP_PKEY_CTX* ctx) {
                                return EVP_PKEY_verify(ctx, byte_ptr(der), der.size(), digest, sizeof digest) == 1;
                              });
  }
  MdCtxPtr md(EVP_MD_CTX_new());
  return md && EVP_DigestVerifyInit(md.get(), nullptr, nullptr, nullptr, parsed_->pkey.get()) == 1 &&
         EVP_DigestVerify(md.get(), byte_ptr(signature), signature.size(), byte_ptr(input), input.size()) == 1;
}

std::string SigningKey::jwk() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  if (alg_ == SigningAlg::kES256) {
    const std::string_view point(public_raw_);
    member(w, "kty", "EC");
    member(w, "crv", "P-256");
    member(w, "x", base64url_encode(point.substr(1, 32)));
    member(w, "y", base64url_encode(point.substr(33, 32)));
  } else if (alg_ == SigningAlg::kRS256) {
    member(w, "kty", "RSA");
    member(w, "n", base64url_encode(rsa::modulus(parsed_->pkey.get())));
    member(w, "e", base64url_encode(rsa::exponent(parsed_->pkey.get())));
  } else {
    member(w, "kty", "OKP");
    member(w, "crv", "Ed25519");
    member(w, "x", base64url_encode(public_raw_));
  }
  member(w, "kid", kid_);
  member(w, "alg", alg_name(alg_));
  member(w, "use", "sig");
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

std::string seal_private_key(std::string_view private_raw, std::string_view kek, std::string_view kid) {
  if (kek.size() != crypto_aead_xchacha20poly1305_ietf_KEYBYTES) {
    throw std::invalid_argument("seal_private_key: the key-encryption key must be 32 bytes");
  }
  std::string out = random_bytes(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
  out.resize(out.size() + private_raw.size() + crypto_aead_xchacha20poly1305_ietf_ABYTES);
  auto* nonce = reinterpret_cast<unsigned char*>(out.data());
  unsigned long long len = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(nonce + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &len,
                                             byte_ptr(private_raw), private_raw.size(), byte_ptr(kid), kid.size(),
                                             nullptr, nonce, byte_ptr(kek));
  return out;
}

std::optional<std::string> open_private_key(std::string_view sealed, std::string_view kek, std::string_view kid) {
  constexpr std::size_t kNonce = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES;
  constexpr std::size_t kTag = crypto_aead_xchacha20poly1305_ietf_ABYTES;
  if (kek.size() != crypto_aead_xchacha20poly1305_ietf_KEYBYTES || sealed.size() < kNonce + kTag) return std::nullopt;
  std::string out(sealed.size() - kNonce - kTag, '\0');
  unsigned long long len = 0;
  if (crypto_aead_xchacha20poly1305_ietf_decrypt(reinterpret_cast<unsigned char*>(out.data()), &len, nullptr,
                                                 byte_ptr(sealed) + kNonce, sealed.size() - kNonce, byte_ptr(kid),
                                                 kid.size(), byte_ptr(sealed), byte_ptr(kek)) != 0) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

}  // namespace svc::crypto

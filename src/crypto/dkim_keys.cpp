#include "crypto/dkim_keys.hpp"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <stdexcept>
#include <vector>

#include "crypto/encoding.hpp"
#include "crypto/openssl_handles.hpp"

namespace svc::crypto {
namespace {

using BioPtr = std::unique_ptr<BIO, OpensslFree<BIO_free>>;

PkeyPtr generate(const std::string& algorithm) {
  PkeyPtr key;
  if (algorithm == "rsa-sha256") {
    key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048)));
  } else if (algorithm == "ed25519-sha256") {
    key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  } else {
    throw std::runtime_error("unknown DKIM algorithm '" + algorithm + "' (rsa-sha256 or ed25519-sha256)");
  }
  if (!key) throw std::runtime_error("DKIM key generation failed");
  return key;
}

std::string private_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PKCS8PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    throw std::runtime_error("DKIM key: PEM encoding failed");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

PkeyPtr read_pem(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) throw std::runtime_error("DKIM key: not a PEM private key");
  return key;
}

// RFC 6376 3.6.1: p= is the DER SubjectPublicKeyInfo for RSA; RFC 8463
// section 4: the raw 32-byte public key for Ed25519.
std::string txt_for(EVP_PKEY* key) {
  std::vector<unsigned char> pub;
  std::string k;
  if (EVP_PKEY_get_id(key) == EVP_PKEY_ED25519) {
    std::size_t n = 32;
    pub.resize(n);
    if (EVP_PKEY_get_raw_public_key(key, pub.data(), &n) != 1) throw std::runtime_error("DKIM key: no public key");
    pub.resize(n);
    k = "ed25519";
  } else {
    const int n = i2d_PUBKEY(key, nullptr);
    if (n <= 0) throw std::runtime_error("DKIM key: no public key");
    pub.resize(static_cast<std::size_t>(n));
    unsigned char* p = pub.data();
    i2d_PUBKEY(key, &p);
    k = "rsa";
  }
  return "v=DKIM1; k=" + k + "; p=" + base64_encode(std::string(pub.begin(), pub.end()));
}

}  // namespace

DkimKeyPair generate_dkim_keys(const std::string& algorithm) {
  PkeyPtr key = generate(algorithm);
  return {private_pem(key.get()), txt_for(key.get())};
}

std::string dkim_txt_record(const std::string& pem) { return txt_for(read_pem(pem).get()); }

}  // namespace svc::crypto

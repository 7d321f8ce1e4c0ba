#pragma once
// DKIM key pairs (RFC 6376, RFC 8463) for `svc-admin dkim-keys`: a new
// private key as PEM, and the DNS TXT record that publishes its public half.
// OpenSSL underneath; throws std::runtime_error when OpenSSL fails or the
// algorithm is unknown.

#include <string>

namespace svc::crypto {

struct DkimKeyPair {
  std::string private_pem;  // PKCS#8 PEM
  std::string txt_record;   // "v=DKIM1; k=rsa; p=..." / "v=DKIM1; k=ed25519; p=..."
};

// algorithm: "rsa-sha256" (2048-bit RSA) or "ed25519-sha256".
DkimKeyPair generate_dkim_keys(const std::string& algorithm);

// The TXT record of an existing private key (PEM), as generate_dkim_keys prints it.
std::string dkim_txt_record(const std::string& private_pem);

}  // namespace svc::crypto

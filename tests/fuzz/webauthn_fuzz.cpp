// The WebAuthn binary parsers (crypto/webauthn_data, crypto/cose_key): each
// input is read as an attestation object, as authenticator data and as a
// COSE key. Beyond "no crash" it checks what a caller relies on:
//   - accepted authenticator data has a 32-byte rpIdHash, attested data
//     exactly when AT is set, a credential id of 1..1023 bytes, BS only
//     with BE, and a key that is a proper prefix-free CBOR map;
//   - an accepted attestation object always carries attested data, and its
//     authData parses the same on its own;
//   - a COSE key accepted as one of the three algorithms verifies no
//     signature made of the input itself.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "crypto/cose_key.hpp"
#include "crypto/webauthn_data.hpp"

namespace {

using namespace svc::crypto;

void require(bool ok) {
  if (!ok) std::abort();
}

void check_data(const webauthn::AuthenticatorData& d) {
  require(d.rp_id_hash.size() == 32);
  require(d.attested.has_value() == ((d.flags & webauthn::kFlagAttestedData) != 0));
  require(!d.backed_up() || d.backup_eligible());
  if (d.attested) {
    require(d.attested->aaguid.size() == 16);
    require(!d.attested->credential_id.empty() && d.attested->credential_id.size() <= 1023);
    require(!d.attested->public_key.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  if (auto att = webauthn::parse_attestation_object(input)) {
    require(att->parsed.attested.has_value());
    require(!att->fmt.empty());
    check_data(att->parsed);
    auto again = webauthn::parse_authenticator_data(att->auth_data);
    require(again && again->flags == att->parsed.flags && again->sign_count == att->parsed.sign_count);
    cose::key_algorithm(att->parsed.attested->public_key);
  }
  if (auto parsed = webauthn::parse_authenticator_data(input)) check_data(*parsed);
  if (auto alg = cose::key_algorithm(input)) {
    require(*alg == cose::kES256 || *alg == cose::kEdDSA || *alg == cose::kRS256);
    require(!cose::verify(input, input, input));
  }
  return 0;
}

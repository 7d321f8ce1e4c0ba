#pragma once
// The binary structures of WebAuthn Level 3 (https://www.w3.org/TR/webauthn-3/)
// a relying party reads: authenticator data (§6.1) and the attestation
// object (§6.5, CBOR), parsed with libcbor. Parsing only: no signature is
// checked here (crypto/cose_key.hpp verifies them) and no flag is judged.
//
// Every function is pure and reentrant; inputs are untrusted bytes of any
// length (tests/fuzz/webauthn_fuzz.cpp feeds them).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto::webauthn {

// Flag bits of authenticator data (§6.1).
inline constexpr std::uint8_t kFlagUserPresent = 0x01;
inline constexpr std::uint8_t kFlagUserVerified = 0x04;
inline constexpr std::uint8_t kFlagBackupEligible = 0x08;
inline constexpr std::uint8_t kFlagBackedUp = 0x10;
inline constexpr std::uint8_t kFlagAttestedData = 0x40;
inline constexpr std::uint8_t kFlagExtensions = 0x80;

// Attested credential data (§6.5.1), present at registration.
struct AttestedCredential {
  std::string aaguid;         // 16 bytes
  std::string credential_id;  // 1..1023 bytes
  std::string public_key;     // the COSE_Key, exactly the CBOR bytes the authenticator sent
};

struct AuthenticatorData {
  std::string rp_id_hash;  // 32 bytes: SHA-256 of the RP id
  std::uint8_t flags = 0;
  std::uint32_t sign_count = 0;
  std::optional<AttestedCredential> attested;  // set exactly when flag AT is

  bool user_present() const { return (flags & kFlagUserPresent) != 0; }
  bool user_verified() const { return (flags & kFlagUserVerified) != 0; }
  bool backup_eligible() const { return (flags & kFlagBackupEligible) != 0; }
  bool backed_up() const { return (flags & kFlagBackedUp) != 0; }
};

// Parses authenticator data. nullopt unless the bytes are exactly: 37 fixed
// bytes, attested credential data when AT is set (a credential id of 1..1023
// bytes and one well-formed CBOR map as the key), one CBOR map of extensions
// when ED is set, and nothing after. Also nullopt when BS is set without BE
// (§6.1.3 forbids it).
std::optional<AuthenticatorData> parse_authenticator_data(std::string_view bytes);

struct AttestationObject {
  std::string fmt;        // "none", "packed", ... (not judged here)
  bool empty_statement;   // attStmt is the empty map
  std::string auth_data;  // the raw authenticator data bytes
  AuthenticatorData parsed;
};

// Parses an attestation object: one CBOR map (and nothing after it) with a
// text "fmt", a map "attStmt" and a byte string "authData" that
// parse_authenticator_data accepts with attested credential data.
std::optional<AttestationObject> parse_attestation_object(std::string_view bytes);

}  // namespace svc::crypto::webauthn

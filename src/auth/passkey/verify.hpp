#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/webauthn_data.hpp"

// The relying party's checks of a WebAuthn ceremony (WebAuthn Level 3 §7.1
// registration, §7.2 authentication) on the bytes a client sent, against
// what the server expects. Pure: no database, no clock; the caller looks up
// the challenge and the stored credential and judges the sign count
// (auth/passkey/service.hpp).
namespace svc::auth::passkey {

struct Expectation {
  std::string type;       // "webauthn.create" or "webauthn.get"
  std::string challenge;  // base64url, as the options carried it
  std::vector<std::string> origins;
  std::string rp_id;
  bool user_verification = true;  // UV must be set (options said "required")
};

// Why a ceremony was refused; kNone = accepted. describe() is the audit text.
enum class Refusal {
  kNone,
  kClientData,         // clientDataJSON is not a JSON object with string members
  kType,               // wrong ceremony type
  kChallenge,          // not the challenge of this ceremony
  kOrigin,             // origin not among the site's, or crossOrigin true
  kAuthenticatorData,  // authenticator data or attestation object malformed
  kRpIdHash,           // made for another RP id
  kUserPresence,       // UP not set
  kUserVerification,   // UV asked for and not set
  kCredentialId,       // attested credential id differs from the response's id
  kKey,                // public key not a supported COSE key
  kSignature,          // signature does not verify
};
const char* describe(Refusal refusal);

struct RegistrationCheck {
  Refusal refusal = Refusal::kAuthenticatorData;
  std::optional<crypto::webauthn::AttestationObject> attestation;  // set when kNone
  int alg = 0;                                                     // COSE alg when kNone
};

// §7.1 steps 5-26 short of trust decisions: the attestation statement is
// not verified (any fmt is accepted, "none" included; docs/decisions.md).
RegistrationCheck check_registration(const Expectation& expected, std::string_view raw_id,
                                     std::string_view client_data_json, std::string_view attestation_object);

struct AssertionCheck {
  Refusal refusal = Refusal::kAuthenticatorData;
  std::optional<crypto::webauthn::AuthenticatorData> data;  // set when kNone
};

// §7.2 steps 11-21: the signature is checked over
// authenticatorData || SHA-256(clientDataJSON) with the stored COSE key.
AssertionCheck check_assertion(const Expectation& expected, std::string_view client_data_json,
                               std::string_view authenticator_data, std::string_view signature,
                               std::string_view cose_key);

}  // namespace svc::auth::passkey

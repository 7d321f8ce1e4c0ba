#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db/passkey_repo.hpp"
#include "db/user_repo.hpp"
#include "http/validate.hpp"

// The WebAuthn Level 3 JSON forms on the wire: the options a page hands to
// PublicKeyCredential.parseCreationOptionsFromJSON /
// parseRequestOptionsFromJSON, and the RegistrationResponseJSON /
// AuthenticationResponseJSON that credential.toJSON() gives back (binary
// members base64url without padding).
namespace svc::auth::passkey {

struct RegistrationResponse {
  std::string raw_id;  // decoded
  std::string client_data_json;
  std::string attestation_object;
  std::vector<std::string> transports;  // as the browser named them (kept for allowCredentials)
};

struct AuthenticationResponse {
  std::string raw_id;
  std::string client_data_json;
  std::string authenticator_data;
  std::string signature;
  std::string user_handle;  // "" when the response carried none
};

// Read the `credential` member of a request body; every problem is a field
// error on `fields` named by its path ("credential.response.signature").
// nullopt only when an error was added.
std::optional<RegistrationResponse> read_registration(http::Fields& fields);
std::optional<AuthenticationResponse> read_authentication(http::Fields& fields);

struct CreationParams {
  std::string rp_id;
  std::string rp_name;
  std::string user_handle;  // base64url
  const db::User* user = nullptr;
  std::string challenge;  // base64url
  const std::vector<db::Passkey>* exclude = nullptr;
};
// PublicKeyCredentialCreationOptionsJSON: ES256, EdDSA, RS256; a
// discoverable credential with user verification required; attestation
// "none"; the user's passkeys on the site excluded.
std::string creation_options(const CreationParams& p);

// PublicKeyCredentialRequestOptionsJSON for `rp_id`, listing `allow`
// (empty: discoverable credentials), userVerification "required" or
// "preferred".
std::string request_options(const std::string& rp_id, const std::string& challenge,
                            const std::vector<db::Passkey>& allow, bool uv_required);

}  // namespace svc::auth::passkey

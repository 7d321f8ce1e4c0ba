#include "auth/passkey/verify.hpp"

#include <rapidjson/document.h>

#include <algorithm>

#include "crypto/cose_key.hpp"
#include "crypto/encoding.hpp"

namespace svc::auth::passkey {
namespace {

std::optional<std::string> string_member(const rapidjson::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

// §7.1 steps 5-10 / §7.2 steps 11-14: the client data's type, challenge and
// origin. The origin is compared exactly (scheme, host and port as the
// browser serialises them); a crossOrigin ceremony (in an iframe of another
// site) is refused.
Refusal check_client_data(const Expectation& expected, std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return Refusal::kClientData;
  auto type = string_member(doc, "type");
  auto challenge = string_member(doc, "challenge");
  auto origin = string_member(doc, "origin");
  if (!type || !challenge || !origin) return Refusal::kClientData;
  if (*type != expected.type) return Refusal::kType;
  if (!crypto::constant_time_equal(*challenge, expected.challenge)) return Refusal::kChallenge;
  auto cross = doc.FindMember("crossOrigin");
  const bool cross_origin = cross != doc.MemberEnd() && cross->value.IsBool() && cross->value.GetBool();
  if (cross_origin || std::find(expected.origins.begin(), expected.origins.end(), *origin) == expected.origins.end()) {
    return Refusal::kOrigin;
  }
  return Refusal::kNone;
}

Refusal check_flags(const Expectation& expected, const crypto::webauthn::AuthenticatorData& data) {
  if (!crypto::constant_time_equal(data.rp_id_hash, crypto::sha256(expected.rp_id))) return Refusal::kRpIdHash;
  if (!data.user_present()) return Refusal::kUserPresence;
  if (expected.user_verification && !data.user_verified()) return Refusal::kUserVerification;
  return Refusal::kNone;
}

}  // namespace

const char* describe(Refusal refusal) {
  switch (refusal) {
    case Refusal::kNone:
      return "accepted";
    case Refusal::kClientData:
      return "malformed clientDataJSON";
    case Refusal::kType:
      return "wrong clientDataJSON type";
    case Refusal::kChallenge:
      return "wrong challenge";
    case Refusal::kOrigin:
      return "wrong origin";
    case Refusal::kAuthenticatorData:
      return "malformed authenticator data";
    case Refusal::kRpIdHash:
      return "wrong rp id";
    case Refusal::kUserPresence:
      return "user not present";
    case Refusal::kUserVerification:
      return "user not verified";
    case Refusal::kCredentialId:
      return "credential id mismatch";
    case Refusal::kKey:
      return "unsupported public key";
    case Refusal::kSignature:
      return "bad signature";
  }
  return "refused";
}

RegistrationCheck check_registration(const Expectation& expected, std::string_view raw_id,
                                     std::string_view client_data_json, std::string_view attestation_object) {
  if (Refusal r = check_client_data(expected, client_data_json); r != Refusal::kNone) return {r, {}, 0};
  auto attestation = crypto::webauthn::parse_attestation_object(attestation_object);
  if (!attestation) return {Refusal::kAuthenticatorData, {}, 0};
  if (Refusal r = check_flags(expected, attestation->parsed); r != Refusal::kNone) return {r, {}, 0};
  const auto& credential = *attestation->parsed.attested;
  if (credential.credential_id != raw_id) return {Refusal::kCredentialId, {}, 0};
  auto alg = crypto::cose::key_algorithm(credential.public_key);
  if (!alg) return {Refusal::kKey, {}, 0};
  return {Refusal::kNone, std::move(attestation), *alg};
}

AssertionCheck check_assertion(const Expectation& expected, std::string_view client_data_json,
                               std::string_view authenticator_data, std::string_view signature,
                               std::string_view cose_key) {
  if (Refusal r = check_client_data(expected, client_data_json); r != Refusal::kNone) return {r, {}};
  auto data = crypto::webauthn::parse_authenticator_data(authenticator_data);
  if (!data || data->attested) return {Refusal::kAuthenticatorData, {}};
  if (Refusal r = check_flags(expected, *data); r != Refusal::kNone) return {r, {}};
  const std::string signed_bytes = std::string(authenticator_data) + crypto::sha256(client_data_json);
  if (!crypto::cose::verify(cose_key, signed_bytes, signature)) return {Refusal::kSignature, {}};
  return {Refusal::kNone, std::move(data)};
}

}  // namespace svc::auth::passkey

#include "auth/passkey/json.hpp"

#include "auth/passkey/service.hpp"
#include "core/text.hpp"
#include "crypto/cose_key.hpp"
#include "crypto/encoding.hpp"
#include "http/json.hpp"

namespace svc::auth::passkey {
namespace {

// WebAuthn caps: a credential id is at most 1023 bytes; the other members
// stay well within the 64 KiB body.
constexpr std::size_t kMaxMember = 16 * 1024;

const rapidjson::Value* object_member(const rapidjson::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  return it != obj.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

// A base64url member of `obj`; a field error named `path` when it is
// missing, not a string, too long or not base64url (or empty when
// `required`).
std::optional<std::string> binary(http::Fields& fields, const rapidjson::Value& obj, const char* name,
                                  const std::string& path, bool required = true) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) {
    if (required) fields.add(path, path + " is required");
    return required ? std::nullopt : std::optional<std::string>("");
  }
  if (!it->value.IsString() || it->value.GetStringLength() > kMaxMember) {
    fields.add(path, path + " must be a base64url string");
    return std::nullopt;
  }
  auto bytes = crypto::base64url_decode(std::string_view(it->value.GetString(), it->value.GetStringLength()));
  if (!bytes || (required && bytes->empty())) {
    fields.add(path, path + " must be base64url without padding");
    return std::nullopt;
  }
  return bytes;
}

// A base64url member `name` of credential.response, its errors named by its
// path ("credential.response.<name>").
std::optional<std::string> response_binary(http::Fields& fields, const rapidjson::Value& response, const char* name,
                                           bool required = true) {
  return binary(fields, response, name, std::string("credential.response.") + name, required);
}

// The members both response forms share: type "public-key", id == rawId,
// the response object and its clientDataJSON.
struct Envelope {
  std::string raw_id;
  const rapidjson::Value* response = nullptr;  // null after adding an error
  std::optional<std::string> client_data_json;
};

Envelope credential_envelope(http::Fields& fields) {
  Envelope e;
  const rapidjson::Value* cred = fields.required_object("credential");
  if (!cred) return e;
  auto type = cred->FindMember("type");
  if (type == cred->MemberEnd() || !type->value.IsString() || std::string(type->value.GetString()) != "public-key") {
    fields.add("credential.type", "credential.type must be \"public-key\"");
  }
  auto id = binary(fields, *cred, "id", "credential.id");
  auto raw = binary(fields, *cred, "rawId", "credential.rawId");
  if (id && raw && *id != *raw) fields.add("credential.rawId", "credential.rawId must equal credential.id");
  if (raw && raw->size() > 1023) fields.add("credential.rawId", "credential.rawId is longer than 1023 bytes");
  e.response = object_member(*cred, "response");
  if (!e.response) fields.add("credential.response", "credential.response must be an object");
  if (raw) e.raw_id = *raw;
  if (e.response) e.client_data_json = response_binary(fields, *e.response, "clientDataJSON");
  return e;
}

void write_credential_list(http::JsonWriter& w, const char* key, const std::vector<db::Passkey>& keys) {
  w.open_array(key);
  for (const auto& k : keys) {
    w.open().kv("type", "public-key").kv("id", k.credential_id);
    if (!k.transports.empty()) {
      w.open_array("transports");
      for (std::string_view t : core::split_words(k.transports)) w.s(t);
      w.close_array();
    }
    w.close();
  }
  w.close_array();
}

}  // namespace

std::optional<RegistrationResponse> read_registration(http::Fields& fields) {
  Envelope e = credential_envelope(fields);
  if (!e.response) return std::nullopt;
  auto attestation = response_binary(fields, *e.response, "attestationObject");
  RegistrationResponse r;
  auto transports = e.response->FindMember("transports");
  if (transports != e.response->MemberEnd() && transports->value.IsArray()) {
    for (const auto& t : transports->value.GetArray()) {
      // Known transports only (they are stored and echoed in allowCredentials).
      const std::string name = t.IsString() ? t.GetString() : "";
      if (name == "usb" || name == "nfc" || name == "ble" || name == "internal" || name == "hybrid" ||
          name == "smart-card") {
        r.transports.push_back(name);
      }
    }
  }
  if (!fields.ok()) return std::nullopt;
  r.raw_id = std::move(e.raw_id);
  r.client_data_json = std::move(*e.client_data_json);
  r.attestation_object = std::move(*attestation);
  return r;
}

std::optional<AuthenticationResponse> read_authentication(http::Fields& fields) {
  Envelope e = credential_envelope(fields);
  if (!e.response) return std::nullopt;
  auto auth_data = response_binary(fields, *e.response, "authenticatorData");
  auto signature = response_binary(fields, *e.response, "signature");
  auto handle = response_binary(fields, *e.response, "userHandle", false);
  if (!fields.ok()) return std::nullopt;
  AuthenticationResponse r;
  r.raw_id = std::move(e.raw_id);
  r.client_data_json = std::move(*e.client_data_json);
  r.authenticator_data = std::move(*auth_data);
  r.signature = std::move(*signature);
  r.user_handle = std::move(*handle);
  return r;
}

std::string creation_options(const CreationParams& p) {
  http::JsonWriter w;
  w.open();
  w.open("rp").kv("id", p.rp_id).kv("name", p.rp_name).close();
  std::string display = p.user->first_name;
  if (!p.user->last_name.empty()) display += (display.empty() ? "" : " ") + p.user->last_name;
  w.open("user")
      .kv("id", p.user_handle)
      .kv("name", p.user->email)
      .kv("displayName", display.empty() ? p.user->email : display);
  w.close();
  w.kv("challenge", p.challenge);
  w.open_array("pubKeyCredParams");
  for (int alg : {crypto::cose::kES256, crypto::cose::kEdDSA, crypto::cose::kRS256}) {
    w.open().kv("type", "public-key").kv("alg", alg).close();
  }
  w.close_array();
  w.kv("timeout", static_cast<long long>(kChallengeSeconds * 1000));
  write_credential_list(w, "excludeCredentials", *p.exclude);
  w.open("authenticatorSelection")
      .kv("residentKey", "required")
      .kv("requireResidentKey", true)
      .kv("userVerification", "required")
      .close();
  w.open_array("hints").close_array();
  w.kv("attestation", "none");
  w.open("extensions").kv("credProps", true).close();
  w.close();
  return w.str();
}

std::string request_options(const std::string& rp_id, const std::string& challenge,
                            const std::vector<db::Passkey>& allow, bool uv_required) {
  http::JsonWriter w;
  w.open().kv("challenge", challenge).kv("timeout", static_cast<long long>(kChallengeSeconds * 1000));
  w.kv("rpId", rp_id);
  write_credential_list(w, "allowCredentials", allow);
  w.kv("userVerification", uv_required ? "required" : "preferred");
  w.open_array("hints").close_array();
  w.close();
  return w.str();
}

}  // namespace svc::auth::passkey

#include "crypto/access_token.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"

namespace svc::crypto {
namespace {

constexpr std::size_t kMaxTokenBytes = 8 * 1024;
constexpr std::size_t kJtiBytes = 16;
constexpr std::string_view kType = "at+jwt";

using rapidjson::Document;
using rapidjson::Value;

std::string header_json(const SigningKey& key) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_member(w, "alg", alg_name(key.alg()));
  write_member(w, "typ", kType);
  write_member(w, "kid", key.kid());
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

// base64url(header_json(key)), the same for every token of a key: encoded
// once per thread for the last key that signed (a worker signs with one).
const std::string& encoded_header(const SigningKey& key) {
  thread_local std::string last_kid;
  thread_local SigningAlg last_alg = SigningAlg::kES256;
  thread_local std::string last_header;
  if (last_header.empty() || last_kid != key.kid() || last_alg != key.alg()) {
    last_kid = key.kid();
    last_alg = key.alg();
    last_header = base64url_encode(header_json(key));
  }
  return last_header;
}

std::string payload_json(const AccessClaims& c, std::string_view jti) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_member(w, "iss", c.iss);
  write_member(w, "sub", c.sub);
  write_member(w, "aud", c.aud);
  if (!c.client_id.empty()) write_member(w, "client_id", c.client_id);
  if (!c.scope.empty()) write_member(w, "scope", c.scope);
  write_member(w, "iat", c.iat);
  write_member(w, "exp", c.exp);
  write_member(w, "jti", jti);
  write_member(w, "auth_time", c.auth_time);
  w.Key("amr");
  w.StartArray();
  for (const std::string& m : c.amr) w.String(m.data(), static_cast<rapidjson::SizeType>(m.size()));
  w.EndArray();
  write_member(w, "tbl", c.tbl);
  write_member(w, "ver", c.ver);
  w.Key("email_verified");
  w.Bool(c.email_verified);
  if (!c.sid.empty()) write_member(w, "sid", c.sid);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

bool get_amr(const Document& doc, std::vector<std::string>& out) {
  auto it = doc.FindMember("amr");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return false;
  for (const Value& m : it->value.GetArray()) {
    if (!m.IsString()) return false;
    out.emplace_back(json_view(m));
  }
  return true;
}

// Optional (tokens signed before issue 26 lack it: false); a boolean when present.
bool get_email_verified(const Document& doc, bool& out) {
  auto it = doc.FindMember("email_verified");
  if (it == doc.MemberEnd()) return true;
  if (!it->value.IsBool()) return false;
  out = it->value.GetBool();
  return true;
}

// aud is a string, or (RFC 7519 4.1.3) an array of strings; both forms are
// read, and an array passes when it holds the expected audience.
bool get_audience(const Document& doc, std::string_view expected, std::string& out) {
  auto it = doc.FindMember("aud");
  if (it == doc.MemberEnd()) return false;
  if (it->value.IsString()) {
    out = json_view(it->value);
    return true;
  }
  if (!it->value.IsArray()) return false;
  for (const Value& a : it->value.GetArray()) {
    if (!a.IsString()) return false;
    if (out.empty() || json_view(a) == expected) out = json_view(a);
  }
  return true;
}

std::optional<AccessClaims> parse_claims(std::string_view json, std::string_view audience) {
  std::optional<Document> doc = parse_json_object(json);
  if (!doc) return std::nullopt;
  AccessClaims c;
  const bool ok =
      read_string(*doc, "iss", c.iss, Member::kRequired) && read_string(*doc, "sub", c.sub, Member::kRequired) &&
      get_audience(*doc, audience, c.aud) && read_string(*doc, "client_id", c.client_id) &&
      read_string(*doc, "scope", c.scope) && read_int(*doc, "iat", c.iat, Member::kRequired) &&
      read_int(*doc, "exp", c.exp, Member::kRequired) && read_string(*doc, "jti", c.jti, Member::kRequired) &&
      read_int(*doc, "auth_time", c.auth_time, Member::kRequired) && get_amr(*doc, c.amr) &&
      read_string(*doc, "tbl", c.tbl, Member::kRequired) && read_int(*doc, "ver", c.ver, Member::kRequired) &&
      get_email_verified(*doc, c.email_verified) && read_string(*doc, "sid", c.sid);
  if (!ok) return std::nullopt;
  return c;
}

const SigningKey* find_key(std::span<const SigningKey> keys, std::string_view kid) {
  for (const SigningKey& k : keys) {
    if (k.kid() == kid) return &k;
  }
  return nullptr;
}

}  // namespace

std::string sign_access_token(const AccessClaims& claims, const SigningKey& key) {
  const std::string jti = claims.jti.empty() ? base64url_encode(random_bytes(kJtiBytes)) : claims.jti;
  std::string token = encoded_header(key) + "." + base64url_encode(payload_json(claims, jti));
  const std::string signature = key.sign(token);
  return token + "." + base64url_encode(signature);
}

AccessTokenResult verify_access_token(std::string_view token, std::span<const SigningKey> keys, std::string_view issuer,
                                      std::string_view audience, long long now) {
  AccessTokenResult result;  // Malformed until proven otherwise
  if (token.size() > kMaxTokenBytes) return result;
  const std::size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return result;
  const std::size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) return result;
  const std::string_view header_b64 = token.substr(0, dot1);
  const std::string_view payload_b64 = token.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string_view signature_b64 = token.substr(dot2 + 1);
  if (header_b64.empty() || payload_b64.empty() || signature_b64.empty()) return result;

  const std::optional<std::string> header_text = base64url_decode(header_b64);
  if (!header_text) return result;
  const std::optional<Document> header = parse_json_object(*header_text);
  // No "crit" extension is understood, so RFC 7515 4.1.11 says reject.
  if (!header || header->HasMember("crit")) return result;

  const auto kid = header->FindMember("kid");
  const SigningKey* key =
      (kid != header->MemberEnd() && kid->value.IsString()) ? find_key(keys, json_view(kid->value)) : nullptr;
  if (key == nullptr) {
    result.error = AccessTokenError::UnknownKey;
    return result;
  }
  // The key decides the algorithm: a token naming HS256 (to be checked
  // with the public key's bytes as an HMAC secret) or none never gets
  // further than this.
  const auto alg = header->FindMember("alg");
  if (alg == header->MemberEnd() || !alg->value.IsString() || json_view(alg->value) != alg_name(key->alg())) {
    result.error = AccessTokenError::BadAlgorithm;
    return result;
  }
  const auto typ = header->FindMember("typ");
  if (typ == header->MemberEnd() || !typ->value.IsString() || json_view(typ->value) != kType) {
    result.error = AccessTokenError::WrongType;
    return result;
  }
  const std::optional<std::string> signature = base64url_decode(signature_b64);
  if (!signature) return result;
  if (!key->verify(token.substr(0, dot2), *signature)) {
    result.error = AccessTokenError::BadSignature;
    return result;
  }

  const std::optional<std::string> payload_text = base64url_decode(payload_b64);
  if (!payload_text) return result;
  std::optional<AccessClaims> claims = parse_claims(*payload_text, audience);
  if (!claims) return result;
  result.claims = std::move(*claims);
  if (result.claims.iss != issuer) {
    result.error = AccessTokenError::WrongIssuer;
  } else if (result.claims.aud != audience) {
    result.error = AccessTokenError::WrongAudience;
  } else if (now >= result.claims.exp) {
    result.error = AccessTokenError::Expired;
  } else {
    result.error = AccessTokenError::None;
  }
  return result;
}

}  // namespace svc::crypto

#include "crypto/jwt.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <stdexcept>
#include <utility>

#include "crypto/encoding.hpp"
#include "crypto/json_object.hpp"

namespace svc::crypto {
namespace {

constexpr std::size_t kMaxTokenBytes = 8 * 1024;
constexpr std::size_t kJtiBytes = 16;
constexpr std::string_view kAlgorithm = "HS256";

using rapidjson::Document;
using rapidjson::Value;

std::optional<Claims> parse_claims(std::string_view json) {
  std::optional<Document> doc = parse_json_object(json);
  if (!doc) return std::nullopt;
  for (const char* required : {"sub", "typ", "iat", "exp"}) {
    if (!doc->HasMember(required)) return std::nullopt;
  }
  Claims c;
  const bool ok = read_string(*doc, "sub", c.sub) && read_string(*doc, "typ", c.typ) &&
                  read_string(*doc, "aud", c.aud) && read_string(*doc, "tbl", c.tbl) && read_int(*doc, "app", c.app) &&
                  read_int(*doc, "ver", c.ver) && read_int(*doc, "iat", c.iat) && read_int(*doc, "exp", c.exp) &&
                  read_string(*doc, "jti", c.jti) && read_string(*doc, "pwf", c.pwf) &&
                  read_string(*doc, "sid", c.sid) && read_int(*doc, "gen", c.gen);
  if (!ok || !read_int(*doc, "auth_time", c.auth_time)) return std::nullopt;
  if (auto ev = doc->FindMember("email_verified"); ev != doc->MemberEnd()) {
    if (!ev->value.IsBool()) return std::nullopt;
    c.email_verified = ev->value.GetBool();
  }
  if (auto grant = doc->FindMember("oauth_grant"); grant != doc->MemberEnd()) {
    if (!grant->value.IsBool()) return std::nullopt;
    c.oauth_grant = grant->value.GetBool();
  }
  if (auto amr = doc->FindMember("amr"); amr != doc->MemberEnd()) {
    if (!amr->value.IsArray()) return std::nullopt;
    for (const Value& m : amr->value.GetArray()) {
      if (!m.IsString()) return std::nullopt;
      c.amr.emplace_back(json_view(m));
    }
  }
  return c;
}

const JwtKey* find_key(const JwtKeyRing& keys, std::string_view kid) {
  if (keys.current.kid == kid) return &keys.current;
  for (const JwtKey& k : keys.previous) {
    if (k.kid == kid) return &k;
  }
  return nullptr;
}

std::string header_json(std::string_view kid) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_member(w, "alg", kAlgorithm);
  write_member(w, "typ", std::string_view("JWT"));
  write_member(w, "kid", kid);
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

// base64url(header_json(kid)): the same text for every token of a key, so it
// is encoded once per thread for the last kid used (a worker signs with one).
const std::string& encoded_header(std::string_view kid) {
  thread_local std::string last_kid;
  thread_local std::string last_header;
  if (last_header.empty() || last_kid != kid) {
    last_kid.assign(kid);
    last_header = base64url_encode(header_json(kid));
  }
  return last_header;
}

std::string payload_json(const Claims& c, std::string_view jti) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  write_member(w, "sub", std::string_view(c.sub));
  write_member(w, "typ", std::string_view(c.typ));
  write_member(w, "aud", std::string_view(audience_of(c.typ)));
  if (!c.tbl.empty()) write_member(w, "tbl", std::string_view(c.tbl));
  if (c.app != 0) write_member(w, "app", c.app);
  write_member(w, "ver", c.ver);
  write_member(w, "iat", c.iat);
  write_member(w, "exp", c.exp);
  write_member(w, "jti", jti);
  if (!c.pwf.empty()) write_member(w, "pwf", std::string_view(c.pwf));
  if (c.auth_time != 0) write_member(w, "auth_time", c.auth_time);
  if (!c.amr.empty()) {
    w.Key("amr");
    w.StartArray();
    for (const std::string& m : c.amr) w.String(m.data(), static_cast<rapidjson::SizeType>(m.size()));
    w.EndArray();
  }
  if (!c.sid.empty()) write_member(w, "sid", std::string_view(c.sid));
  if (c.gen != 0) write_member(w, "gen", c.gen);
  if (c.email_verified) {
    w.Key("email_verified");
    w.Bool(*c.email_verified);
  }
  if (c.oauth_grant) {
    w.Key("oauth_grant");
    w.Bool(true);
  }
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace

std::string audience_of(std::string_view typ) { return "svc-" + std::string(typ); }

JwtKeyRing derive_key_ring(const JwtKeyRing& keys, std::string_view label) {
  auto derive = [&](const JwtKey& k) {
    // An empty secret stays empty, so the derived key never verifies either.
    return JwtKey{k.kid, k.secret.empty() ? std::string() : hmac_sha256(k.secret, label)};
  };
  JwtKeyRing out{derive(keys.current), {}};
  for (const JwtKey& k : keys.previous) out.previous.push_back(derive(k));
  return out;
}

std::string jwt_sign(const Claims& claims, const JwtKey& key) {
  if (key.secret.empty()) {
    throw std::invalid_argument("jwt_sign: empty secret");
  }
  const std::string jti = claims.jti.empty() ? base64url_encode(random_bytes(kJtiBytes)) : claims.jti;
  std::string signing_input = encoded_header(key.kid) + "." + base64url_encode(payload_json(claims, jti));
  const std::string mac = hmac_sha256(key.secret, signing_input);
  return signing_input + "." + base64url_encode(mac);
}

JwtResult jwt_verify(std::string_view token, const JwtKeyRing& keys, std::string_view expected_typ, long long now) {
  JwtResult result;  // error = Malformed until proven otherwise
  if (token.size() > kMaxTokenBytes) return result;
  const std::size_t dot1 = token.find('.');
  if (dot1 == std::string_view::npos) return result;
  const std::size_t dot2 = token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return result;
  }
  const std::string_view header_b64 = token.substr(0, dot1);
  const std::string_view payload_b64 = token.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string_view signature_b64 = token.substr(dot2 + 1);
  if (header_b64.empty() || payload_b64.empty() || signature_b64.empty()) {
    return result;
  }

  // The header jwt_sign writes for the current key names that key and
  // nothing else: recognised as text, it needs no decoding and parsing.
  const JwtKey* key = nullptr;
  if (!keys.current.secret.empty() && header_b64 == encoded_header(keys.current.kid)) {
    key = &keys.current;
  } else {
    const std::optional<std::string> header_text = base64url_decode(header_b64);
    if (!header_text) return result;
    const std::optional<Document> header = parse_json_object(*header_text);
    if (!header) return result;
    // No "crit" extension is understood, so RFC 7515 §4.1.11 says reject.
    if (header->HasMember("crit")) return result;

    const auto alg = header->FindMember("alg");
    if (alg == header->MemberEnd() || !alg->value.IsString() || json_view(alg->value) != kAlgorithm) {
      result.error = JwtError::BadAlgorithm;
      return result;
    }
    const auto kid = header->FindMember("kid");
    key = (kid != header->MemberEnd() && kid->value.IsString()) ? find_key(keys, json_view(kid->value)) : nullptr;
  }
  // An empty secret would let anyone compute the MAC.
  if (key == nullptr || key->secret.empty()) {
    result.error = JwtError::UnknownKey;
    return result;
  }

  const std::optional<std::string> signature = base64url_decode(signature_b64);
  if (!signature) return result;
  // The MAC covers the exact received bytes; the claims below are decoded
  // from those same bytes, so nothing unverified is ever read.
  const std::string expected = hmac_sha256(key->secret, token.substr(0, dot2));
  if (!constant_time_equal(*signature, expected)) {
    result.error = JwtError::BadSignature;
    return result;
  }

  const std::optional<std::string> payload_text = base64url_decode(payload_b64);
  if (!payload_text) return result;
  std::optional<Claims> claims = parse_claims(*payload_text);
  if (!claims) return result;
  result.claims = std::move(*claims);
  if (result.claims.typ != expected_typ) {
    result.error = JwtError::WrongType;
  } else if (result.claims.aud != audience_of(expected_typ)) {
    result.error = JwtError::WrongAudience;
  } else if (now >= result.claims.exp) {
    result.error = JwtError::Expired;
  } else {
    result.error = JwtError::None;
  }
  return result;
}

}  // namespace svc::crypto

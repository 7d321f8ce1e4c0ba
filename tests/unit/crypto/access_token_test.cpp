// RFC 9068 access tokens (crypto/access_token.hpp): the exact header and
// claims, verification through a key set, and every refusal a consumer's
// checklist (docs/api.md) names: alg none, HS256 keyed with the public key
// (algorithm confusion), an alg other than the key's, unknown kid, header
// typ other than at+jwt, wrong iss, wrong aud, expired, tampered.
#include "crypto/access_token.hpp"

#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "crypto/encoding.hpp"

using namespace svc::crypto;

namespace svc::crypto {
// For BOOST_TEST's messages.
std::ostream& operator<<(std::ostream& os, AccessTokenError e) { return os << static_cast<int>(e); }
}  // namespace svc::crypto

namespace {

constexpr long long kNow = 1'800'000'000;
const std::string kIssuer = "https://auth.example";
const std::string kAudience = "https://shop.example";

SigningKey make_key(SigningAlg alg, const std::string& kid) {
  const auto m = generate_signing_key(alg);
  auto key = SigningKey::load_pair(kid, alg, m.private_key, m.public_key);
  BOOST_REQUIRE(key.has_value());
  return *key;
}

AccessClaims claims() {
  AccessClaims c;
  c.iss = kIssuer;
  c.sub = "42";
  c.aud = kAudience;
  c.client_id = "7";
  c.iat = kNow - 10;
  c.exp = kNow + 3600;
  c.jti = "jti-1";
  c.auth_time = kNow - 100;
  c.amr = {"pwd"};
  c.tbl = "svc_users";
  c.ver = 3;
  return c;
}

std::vector<std::string> split(const std::string& token) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = token.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(token.substr(start, dot - start));
  }
  parts.push_back(token.substr(start));
  return parts;
}

std::string json_of(const std::string& part) { return base64url_decode(part).value_or("?"); }

// A token with a hand-made header over the real payload, signed by `key`
// (to reach the header checks with a valid signature).
std::string with_header(const std::string& header, const SigningKey& key) {
  const std::string input = base64url_encode(header) + "." + split(sign_access_token(claims(), key))[1];
  return input + "." + base64url_encode(key.sign(input));
}

AccessTokenError verify(const std::string& token, const std::vector<SigningKey>& keys, long long now = kNow) {
  return verify_access_token(token, keys, kIssuer, kAudience, now).error;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(access_token_test)

BOOST_AUTO_TEST_CASE(header_and_claims_are_exactly_rfc_9068) {
  const SigningKey es = make_key(SigningAlg::kES256, "es-1");
  const std::vector<std::string> parts = split(sign_access_token(claims(), es));
  BOOST_REQUIRE(parts.size() == 3u);
  BOOST_TEST(json_of(parts[0]) == R"({"alg":"ES256","typ":"at+jwt","kid":"es-1"})");
  BOOST_TEST(json_of(parts[1]) ==
             R"({"iss":"https://auth.example","sub":"42","aud":"https://shop.example","client_id":"7",)"
             R"("iat":1799999990,"exp":1800003600,"jti":"jti-1","auth_time":1799999900,"amr":["pwd"],)"
             R"("tbl":"svc_users","ver":3,"email_verified":false})");
  BOOST_TEST((base64url_decode(parts[2])->size() == 64u));
  const SigningKey ed = make_key(SigningAlg::kEdDSA, "ed-1");
  BOOST_TEST(json_of(split(sign_access_token(claims(), ed))[0]) == R"({"alg":"EdDSA","typ":"at+jwt","kid":"ed-1"})");
  AccessClaims no_client = claims();
  no_client.client_id.clear();
  no_client.jti.clear();
  const std::string payload = json_of(split(sign_access_token(no_client, es))[1]);
  BOOST_TEST(payload.find("client_id") == std::string::npos);
  BOOST_TEST(payload.find(R"("jti":"")") == std::string::npos);  // a fresh random jti
}

BOOST_AUTO_TEST_CASE(round_trip_through_a_key_set_of_both_algorithms) {
  const std::vector<SigningKey> keys = {make_key(SigningAlg::kES256, "a"), make_key(SigningAlg::kEdDSA, "b")};
  for (const SigningKey& key : keys) {
    const AccessTokenResult r = verify_access_token(sign_access_token(claims(), key), keys, kIssuer, kAudience, kNow);
    BOOST_TEST(r.ok(), key.kid());
    BOOST_TEST(r.claims.sub == "42");
    BOOST_TEST(r.claims.client_id == "7");
    BOOST_TEST(r.claims.tbl == "svc_users");
    BOOST_TEST(r.claims.ver == 3);
    BOOST_TEST(r.claims.auth_time == kNow - 100);
    BOOST_TEST((r.claims.amr == std::vector<std::string>{"pwd"}));
  }
}

BOOST_AUTO_TEST_CASE(refusals_of_the_consumer_checklist) {
  const SigningKey key = make_key(SigningAlg::kES256, "k1");
  const std::vector<SigningKey> keys = {key};
  const std::string good = sign_access_token(claims(), key);
  const std::vector<std::string> p = split(good);

  BOOST_TEST(verify(good, keys) == AccessTokenError::None);
  BOOST_TEST(verify(good, keys, kNow + 3600) == AccessTokenError::Expired);
  BOOST_TEST(verify(good, keys, kNow + 3599) == AccessTokenError::None);
  BOOST_TEST(verify_access_token(good, keys, "https://other.example", kAudience, kNow).error ==
             AccessTokenError::WrongIssuer);
  BOOST_TEST(verify_access_token(good, keys, kIssuer, "https://other-site.example", kNow).error ==
             AccessTokenError::WrongAudience);
  // Unknown kid: a key set without it (a retired key).
  BOOST_TEST(verify(good, {make_key(SigningAlg::kES256, "k2")}) == AccessTokenError::UnknownKey);

  // alg none with an empty signature, and with a signature left on.
  const std::string none = base64url_encode(R"({"alg":"none","typ":"at+jwt","kid":"k1"})") + "." + p[1];
  BOOST_TEST(verify(none + ".", keys) == AccessTokenError::Malformed);
  BOOST_TEST(verify(none + "." + p[2], keys) == AccessTokenError::BadAlgorithm);
  // The classic confusion: HS256 keyed with the public key's bytes.
  for (const std::string& secret : {key.public_raw(), base64url_encode(key.public_raw()), key.jwk()}) {
    const std::string input = base64url_encode(R"({"alg":"HS256","typ":"at+jwt","kid":"k1"})") + "." + p[1];
    BOOST_TEST(verify(input + "." + base64url_encode(hmac_sha256(secret, input)), keys) ==
               AccessTokenError::BadAlgorithm);
  }
  // The other asymmetric alg under this key's kid.
  BOOST_TEST(verify(with_header(R"({"alg":"EdDSA","typ":"at+jwt","kid":"k1"})", key), keys) ==
             AccessTokenError::BadAlgorithm);
  // typ other than at+jwt (an ID token, a plain JWT) or absent.
  BOOST_TEST(verify(with_header(R"({"alg":"ES256","typ":"JWT","kid":"k1"})", key), keys) ==
             AccessTokenError::WrongType);
  BOOST_TEST(verify(with_header(R"({"alg":"ES256","kid":"k1"})", key), keys) == AccessTokenError::WrongType);
  BOOST_TEST(verify(with_header(R"({"alg":"ES256","typ":"at+jwt","kid":"k1","crit":["x"]})", key), keys) ==
             AccessTokenError::Malformed);
  BOOST_TEST(verify(with_header(R"({"alg":"ES256","typ":"at+jwt","kid":"k1"})", key), keys) == AccessTokenError::None);

  // Tampered payload (signature of the original) and tampered signature.
  AccessClaims admin = claims();
  admin.sub = "1";
  BOOST_TEST(verify(p[0] + "." + split(sign_access_token(admin, key))[1] + "." + p[2], keys) ==
             AccessTokenError::BadSignature);
  std::string sig = *base64url_decode(p[2]);
  sig[5] = static_cast<char>(sig[5] ^ 0x01);
  BOOST_TEST(verify(p[0] + "." + p[1] + "." + base64url_encode(sig), keys) == AccessTokenError::BadSignature);

  for (const std::string& junk : {std::string(), std::string("a.b"), good + ".x", p[0] + ".." + p[2],
                                  std::string(9000, 'a') + "." + p[1] + "." + p[2]}) {
    BOOST_TEST(verify(junk, keys) == AccessTokenError::Malformed, junk.substr(0, 40));
  }
}

BOOST_AUTO_TEST_CASE(an_audience_array_passes_when_it_holds_ours) {
  const SigningKey key = make_key(SigningAlg::kEdDSA, "k1");
  auto signed_payload = [&](const std::string& payload) {
    const std::string input =
        base64url_encode(R"({"alg":"EdDSA","typ":"at+jwt","kid":"k1"})") + "." + base64url_encode(payload);
    return input + "." + base64url_encode(key.sign(input));
  };
  const std::string rest =
      R"("iss":"https://auth.example","sub":"42","iat":1,"exp":1900000000,"jti":"j","auth_time":1,"amr":["pwd"],)"
      R"("tbl":"svc_users","ver":0})";
  BOOST_TEST(verify(signed_payload(R"({"aud":["https://x.example","https://shop.example"],)" + rest), {key}) ==
             AccessTokenError::None);
  BOOST_TEST(verify(signed_payload(R"({"aud":["https://x.example"],)" + rest), {key}) ==
             AccessTokenError::WrongAudience);
  BOOST_TEST(verify(signed_payload(R"({"aud":[1],)" + rest), {key}) == AccessTokenError::Malformed);
  std::string amr_string = R"({"aud":"https://shop.example",)" + rest;
  amr_string.replace(amr_string.find(R"(["pwd"])"), 7, R"("pwd")");
  BOOST_TEST(verify(signed_payload(amr_string), {key}) == AccessTokenError::Malformed);
  BOOST_TEST(verify(signed_payload(R"({"aud":"https://shop.example",)" + rest), {key}) == AccessTokenError::None);
}

// email_verified (issue 26): absent in tokens of before (false), a boolean
// when present, anything else malformed.
BOOST_AUTO_TEST_CASE(email_verified_is_an_optional_boolean) {
  const SigningKey key = make_key(SigningAlg::kEdDSA, "k1");
  auto check = [&](const std::string& extra) {
    const std::string payload =
        R"({"aud":"https://shop.example","iss":"https://auth.example","sub":"42","iat":1,"exp":1900000000,)"
        R"("jti":"j","auth_time":1,"amr":["otp"],"tbl":"svc_users","ver":0)" +
        extra + "}";
    const std::string input =
        base64url_encode(R"({"alg":"EdDSA","typ":"at+jwt","kid":"k1"})") + "." + base64url_encode(payload);
    const SigningKey keys[] = {key};
    return verify_access_token(input + "." + base64url_encode(key.sign(input)), keys, kIssuer, kAudience, kNow);
  };
  BOOST_TEST((check("").error == AccessTokenError::None && !check("").claims.email_verified));
  BOOST_TEST((check(R"(,"email_verified":true)").error == AccessTokenError::None &&
              check(R"(,"email_verified":true)").claims.email_verified));
  BOOST_TEST(!check(R"(,"email_verified":false)").claims.email_verified);
  BOOST_TEST((check(R"(,"email_verified":"true")").error == AccessTokenError::Malformed));
  BOOST_TEST((check(R"(,"email_verified":1)").error == AccessTokenError::Malformed));
  AccessClaims verified = claims();
  verified.email_verified = true;
  const SigningKey keys[] = {key};
  BOOST_TEST(
      verify_access_token(sign_access_token(verified, key), keys, kIssuer, kAudience, kNow).claims.email_verified);
}

BOOST_AUTO_TEST_SUITE_END()

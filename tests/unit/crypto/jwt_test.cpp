// HS256 JWT: round trip, a PHP-made known answer, and every rejection path.
#include "crypto/jwt.hpp"

#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "crypto/encoding.hpp"

using namespace svc::crypto;

namespace svc::crypto {
std::ostream& operator<<(std::ostream& os, JwtError e) { return os << static_cast<int>(e); }
}  // namespace svc::crypto

namespace {

constexpr long long kNow = 1700000000;
const JwtKey kKey{"k1", "0123456789abcdef0123456789abcdef"};
const JwtKey kOldKey{"k0", "an older secret, still accepted!"};
const JwtKeyRing kRing{kKey, {kOldKey}};

Claims access_claims() {
  Claims c;
  c.sub = "42";
  c.typ = "access";
  c.tbl = "svc_users";
  c.app = 7;
  c.ver = 3;
  c.iat = kNow;
  c.exp = kNow + 3600;
  c.jti = "abc";
  c.pwf = "fp";
  return c;
}

std::string hs256(std::string_view secret, std::string_view input) {
  return base64url_encode(hmac_sha256(secret, input));
}

std::string hs512(std::string_view secret, std::string_view input) {
  crypto_auth_hmacsha512_state st;
  crypto_auth_hmacsha512_init(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  crypto_auth_hmacsha512_update(&st, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  std::string mac(crypto_auth_hmacsha512_BYTES, '\0');
  crypto_auth_hmacsha512_final(&st, reinterpret_cast<unsigned char*>(mac.data()));
  return base64url_encode(mac);
}

// Builds a token from raw JSON texts, signed with HS256 under `secret`.
std::string forge(std::string_view header, std::string_view payload, std::string_view secret = kKey.secret) {
  const std::string input = base64url_encode(header) + "." + base64url_encode(payload);
  return input + "." + hs256(secret, input);
}

const std::string kHeader = R"({"alg":"HS256","typ":"JWT","kid":"k1"})";
const std::string kPayload = R"({"sub":"42","typ":"access","aud":"svc-access","iat":1700000000,"exp":1700003600})";

std::vector<std::string> split(const std::string& token) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = token.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(token.substr(start, dot - start));
  }
  parts.push_back(token.substr(start));
  return parts;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jwt_test)

BOOST_AUTO_TEST_CASE(round_trip_keeps_every_claim) {
  const Claims in = access_claims();
  const JwtResult r = jwt_verify(jwt_sign(in, kKey), kRing, "access", kNow);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.claims.sub == in.sub);
  BOOST_TEST(r.claims.typ == in.typ);
  BOOST_TEST(r.claims.tbl == in.tbl);
  BOOST_TEST(r.claims.app == in.app);
  BOOST_TEST(r.claims.ver == in.ver);
  BOOST_TEST(r.claims.iat == in.iat);
  BOOST_TEST(r.claims.exp == in.exp);
  BOOST_TEST(r.claims.jti == in.jti);
  BOOST_TEST(r.claims.pwf == in.pwf);
}

// The same token made with plain PHP, so the wire format is pinned:
//   php -r '$b=fn($s)=>rtrim(strtr(base64_encode($s),"+/","-_"),"=");
//     $h=$b("{\"alg\":\"HS256\",\"typ\":\"JWT\",\"kid\":\"k1\"}");
//     $p=$b("{\"sub\":\"42\",\"typ\":\"access\",\"aud\":\"svc-access\",
//       \"tbl\":\"svc_users\",\"app\":7,
//       \"ver\":3,\"iat\":1700000000,\"exp\":1700003600,\"jti\":\"abc\",
//       \"pwf\":\"fp\"}");   (one line, no spaces)
//     echo "$h.$p.".$b(hash_hmac("sha256","$h.$p",
//       "0123456789abcdef0123456789abcdef",true));'
BOOST_AUTO_TEST_CASE(matches_token_made_by_php) {
  const std::string php =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImsxIn0."
      "eyJzdWIiOiI0MiIsInR5cCI6ImFjY2VzcyIsImF1ZCI6InN2Yy1hY2Nlc3MiLCJ0YmwiOiJz"
      "dmNfdXNlcnMiLCJhcHAiOjcsInZlciI6MywiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAw"
      "MDM2MDAsImp0aSI6ImFiYyIsInB3ZiI6ImZwIn0."
      "TIazL03waRIDbSEnQvrZ7JfmHtAg-L7Bwd8V3eoJG48";
  BOOST_TEST(jwt_sign(access_claims(), kKey) == php);
  BOOST_TEST(jwt_verify(php, kRing, "access", kNow).ok());
}

BOOST_AUTO_TEST_CASE(optional_claims_are_omitted_and_jti_generated) {
  Claims c = access_claims();
  c.tbl.clear();
  c.app = 0;
  c.pwf.clear();
  c.jti.clear();
  const std::string token = jwt_sign(c, kKey);
  const std::string payload = *base64url_decode(split(token)[1]);
  BOOST_TEST(payload.find("\"app\"") == std::string::npos);
  BOOST_TEST(payload.find("\"tbl\"") == std::string::npos);
  BOOST_TEST(payload.find("\"pwf\"") == std::string::npos);
  const JwtResult r = jwt_verify(token, kRing, "access", kNow);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.claims.jti.size() == 22u);  // 16 bytes, base64url
  BOOST_TEST(r.claims.jti != jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow).claims.jti);
}

BOOST_AUTO_TEST_CASE(email_verified_and_oauth_grant_are_written_only_when_set_and_read_back_as_they_were) {
  Claims c = access_claims();
  BOOST_TEST(!jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow).claims.email_verified.has_value());
  BOOST_TEST(!jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow).claims.oauth_grant);
  BOOST_TEST(base64url_decode(split(jwt_sign(c, kKey))[1])->find("email_verified") == std::string::npos);
  BOOST_TEST(base64url_decode(split(jwt_sign(c, kKey))[1])->find("oauth_grant") == std::string::npos);
  c.oauth_grant = true;
  BOOST_TEST(jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow).claims.oauth_grant);
  for (bool verified : {false, true}) {
    c.email_verified = verified;
    const JwtResult r = jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow);
    BOOST_TEST(r.ok());
    BOOST_TEST((r.claims.email_verified == std::optional<bool>(verified)));
  }
}

BOOST_AUTO_TEST_CASE(claims_with_json_specials_round_trip) {
  Claims c = access_claims();
  c.sub = "a\"b\\c\n";
  c.tbl = std::string("t\0x", 3);
  const JwtResult r = jwt_verify(jwt_sign(c, kKey), kRing, "access", kNow);
  BOOST_TEST(r.ok());
  BOOST_TEST(r.claims.sub == c.sub);
  BOOST_TEST(r.claims.tbl == c.tbl);
}

BOOST_AUTO_TEST_CASE(previous_key_still_verifies) {
  Claims c = access_claims();
  const JwtResult r = jwt_verify(jwt_sign(c, kOldKey), kRing, "access", kNow);
  BOOST_TEST(r.ok());
  // ...but not once it has left the ring.
  BOOST_TEST(jwt_verify(jwt_sign(c, kOldKey), JwtKeyRing{kKey, {}}, "access", kNow).error == JwtError::UnknownKey);
}

// jwt_verify recognises the exact header jwt_sign writes for the current
// key without parsing it; any other spelling of the same header takes the
// full path and verifies the same way.
BOOST_AUTO_TEST_CASE(current_key_header_in_another_spelling_verifies_too) {
  for (const std::string& header : {kHeader, std::string(R"({"kid":"k1","alg":"HS256","typ":"JWT"})"),
                                    std::string(R"({ "alg": "HS256", "kid": "k1" })")}) {
    BOOST_TEST_CONTEXT(header) {
      const JwtResult r = jwt_verify(forge(header, kPayload), kRing, "access", 1700000001);
      BOOST_TEST(r.ok());
      BOOST_TEST(r.claims.sub == "42");
      BOOST_TEST(jwt_verify(forge(header, kPayload, "another secret"), kRing, "access", 1700000001).error ==
                 JwtError::BadSignature);
    }
  }
}

BOOST_AUTO_TEST_CASE(type_confusion_is_refused_both_ways) {
  Claims refresh = access_claims();
  refresh.typ = "refresh";
  const JwtResult a = jwt_verify(jwt_sign(refresh, kKey), kRing, "access", kNow);
  BOOST_TEST(a.error == JwtError::WrongType);
  const JwtResult b = jwt_verify(jwt_sign(access_claims(), kKey), kRing, "refresh", kNow);
  BOOST_TEST(b.error == JwtError::WrongType);
  BOOST_TEST(jwt_verify(jwt_sign(refresh, kKey), kRing, "refresh", kNow).ok());
}

// Each kind names its own audience, and verify checks it for the kind it
// expects: a token whose typ was right but whose aud was not (or absent, as
// before audiences existed) is refused with its claims filled in.
BOOST_AUTO_TEST_CASE(every_kind_carries_and_requires_its_own_audience) {
  for (const char* typ : {"access", "refresh", "reset"}) {
    BOOST_TEST_CONTEXT(typ) {
      Claims c = access_claims();
      c.typ = typ;
      const JwtResult r = jwt_verify(jwt_sign(c, kKey), kRing, typ, kNow);
      BOOST_TEST(r.ok());
      BOOST_TEST(r.claims.aud == std::string("svc-") + typ);
    }
  }
  const std::string no_aud = R"({"sub":"42","typ":"access","iat":1700000000,"exp":1700003600})";
  const JwtResult a = jwt_verify(forge(kHeader, no_aud), kRing, "access", kNow);
  BOOST_TEST(a.error == JwtError::WrongAudience);
  BOOST_TEST(a.claims.aud.empty());
  BOOST_TEST(a.claims.sub == "42");
  const std::string other = R"({"sub":"42","typ":"access","aud":"svc-refresh","iat":1700000000,"exp":1700003600})";
  BOOST_TEST(jwt_verify(forge(kHeader, other), kRing, "access", kNow).error == JwtError::WrongAudience);
  const std::string array = R"({"sub":"42","typ":"access","aud":["svc-access"],"iat":1700000000,"exp":1700003600})";
  BOOST_TEST(jwt_verify(forge(kHeader, array), kRing, "access", kNow).error == JwtError::Malformed);
}

// A derived ring keeps the kids (rotation works the same) and holds other
// secrets: HMAC-SHA256(secret, label), pinned by PHP's
//   bin2hex(hash_hmac("sha256", "svc-reset-token-key", "0123456789abcdef0123456789abcdef", true))
BOOST_AUTO_TEST_CASE(derived_ring_keeps_kids_and_changes_every_secret) {
  const JwtKeyRing d = derive_key_ring(kRing, "svc-reset-token-key");
  BOOST_TEST(d.current.kid == kKey.kid);
  BOOST_TEST(base64url_encode(d.current.secret) == "Z8XcfC7YFG1rLzv5CgrwSp1Ra6u4vaNkybgGxiRC--M");
  BOOST_TEST(d.previous.size() == 1u);
  BOOST_TEST(d.previous.at(0).kid == kOldKey.kid);
  BOOST_TEST(d.previous.at(0).secret != kOldKey.secret);
  Claims c = access_claims();
  c.typ = "reset";
  BOOST_TEST(jwt_verify(jwt_sign(c, d.previous.at(0)), d, "reset", kNow).ok());
  BOOST_TEST(jwt_verify(jwt_sign(c, d.current), kRing, "reset", kNow).error == JwtError::BadSignature);
  BOOST_TEST(jwt_verify(jwt_sign(c, kKey), d, "reset", kNow).error == JwtError::BadSignature);
  BOOST_TEST(derive_key_ring(JwtKeyRing{JwtKey{"k1", ""}, {}}, "x").current.secret.empty());
}

BOOST_AUTO_TEST_CASE(expiry_is_exclusive_and_keeps_claims) {
  const std::string token = jwt_sign(access_claims(), kKey);
  const long long exp = access_claims().exp;
  BOOST_TEST(jwt_verify(token, kRing, "access", exp - 1).ok());
  const JwtResult r = jwt_verify(token, kRing, "access", exp);
  BOOST_TEST(r.error == JwtError::Expired);
  BOOST_TEST(r.claims.sub == "42");
  BOOST_TEST(jwt_verify(token, kRing, "access", exp + 86400).error == JwtError::Expired);
}

BOOST_AUTO_TEST_CASE(empty_secret_never_signs_or_verifies) {
  BOOST_CHECK_THROW(jwt_sign(access_claims(), JwtKey{"k1", ""}), std::invalid_argument);
  const std::string token = forge(kHeader, kPayload, "");
  BOOST_TEST(jwt_verify(token, JwtKeyRing{JwtKey{"k1", ""}, {}}, "access", kNow).error == JwtError::UnknownKey);
}

struct BadToken {
  std::string name;
  std::string token;
  JwtError expected;
};

std::vector<BadToken> bad_tokens() {
  const std::string good = jwt_sign(access_claims(), kKey);
  const std::vector<std::string> p = split(good);
  Claims other = access_claims();
  other.sub = "43";
  const std::vector<std::string> q = split(jwt_sign(other, kKey));

  auto with_header = [&](const std::string& header, bool sign_512 = false) {
    const std::string input = base64url_encode(header) + "." + p[1];
    return input + "." + (sign_512 ? hs512(kKey.secret, input) : hs256(kKey.secret, input));
  };
  const std::string none_input = base64url_encode(R"({"alg":"none","typ":"JWT","kid":"k1"})") + "." + p[1];

  return {
      // Algorithm.
      {"alg none, no signature", none_input + ".", JwtError::Malformed},
      {"alg none, signed", with_header(R"({"alg":"none","typ":"JWT","kid":"k1"})"), JwtError::BadAlgorithm},
      {"alg HS512 re-signed", with_header(R"({"alg":"HS512","typ":"JWT","kid":"k1"})", true), JwtError::BadAlgorithm},
      {"alg RS256", with_header(R"({"alg":"RS256","typ":"JWT","kid":"k1"})"), JwtError::BadAlgorithm},
      {"alg lower case", with_header(R"({"alg":"hs256","typ":"JWT","kid":"k1"})"), JwtError::BadAlgorithm},
      {"alg missing", with_header(R"({"typ":"JWT","kid":"k1"})"), JwtError::BadAlgorithm},
      {"alg not a string", with_header(R"({"alg":256,"kid":"k1"})"), JwtError::BadAlgorithm},
      // Key id.
      {"unknown kid", with_header(R"({"alg":"HS256","typ":"JWT","kid":"k9"})"), JwtError::UnknownKey},
      {"kid missing", with_header(R"({"alg":"HS256","typ":"JWT"})"), JwtError::UnknownKey},
      {"kid not a string", with_header(R"({"alg":"HS256","kid":1})"), JwtError::UnknownKey},
      // Signature.
      {"tampered payload", p[0] + "." + q[1] + "." + p[2], JwtError::BadSignature},
      {"signature of another token", p[0] + "." + p[1] + "." + q[2], JwtError::BadSignature},
      {"other secret, same kid", forge(kHeader, kPayload, "another secret"), JwtError::BadSignature},
      {"signature truncated", p[0] + "." + p[1] + "." + p[2].substr(0, 40), JwtError::BadSignature},
      {"signature padded", good + "=", JwtError::Malformed},
      {"signature not base64url", p[0] + "." + p[1] + ".!!!!", JwtError::Malformed},
      // Shape.
      {"empty", "", JwtError::Malformed},
      {"two parts", "a.b", JwtError::Malformed},
      {"four parts", "a.b.c.d", JwtError::Malformed},
      {"dots only", "..", JwtError::Malformed},
      {"empty payload part", p[0] + ".." + p[2], JwtError::Malformed},
      {"not base64", "!!!.###.$$$", JwtError::Malformed},
      {"header not JSON", base64url_encode("not json") + "." + p[1] + "." + p[2], JwtError::Malformed},
      {"header is an array", with_header(R"(["HS256"])"), JwtError::Malformed},
      {"duplicate alg", with_header(R"({"alg":"none","alg":"HS256","kid":"k1"})"), JwtError::Malformed},
      {"crit header", with_header(R"({"alg":"HS256","kid":"k1","crit":["x"]})"), JwtError::Malformed},
      {"over 8 KiB",
       forge(kHeader, R"({"sub":"42","typ":"access","iat":1,"exp":9999999999,"x":")" + std::string(7000, 'a') + "\"}"),
       JwtError::Malformed},
      // Claims, correctly signed: checked only after the signature.
      {"sub missing", forge(kHeader, R"({"typ":"access","iat":1,"exp":9999999999})"), JwtError::Malformed},
      {"sub a number", forge(kHeader, R"({"sub":42,"typ":"access","iat":1,"exp":9999999999})"), JwtError::Malformed},
      {"typ missing", forge(kHeader, R"({"sub":"42","iat":1,"exp":9999999999})"), JwtError::Malformed},
      {"exp missing", forge(kHeader, R"({"sub":"42","typ":"access","iat":1})"), JwtError::Malformed},
      {"exp a double", forge(kHeader, R"({"sub":"42","typ":"access","iat":1,"exp":9999999999.0})"),
       JwtError::Malformed},
      {"iat a string", forge(kHeader, R"({"sub":"42","typ":"access","iat":"1","exp":9999999999})"),
       JwtError::Malformed},
      {"app a string", forge(kHeader, R"({"sub":"42","typ":"access","iat":1,"exp":9999999999,"app":"7"})"),
       JwtError::Malformed},
      {"duplicate typ", forge(kHeader, R"({"sub":"42","typ":"refresh","typ":"access","iat":1,"exp":9999999999})"),
       JwtError::Malformed},
      {"email_verified a number",
       forge(kHeader, R"({"sub":"42","typ":"access","iat":1,"exp":9999999999,"email_verified":1})"),
       JwtError::Malformed},
      {"oauth_grant a string",
       forge(kHeader, R"({"sub":"42","typ":"access","iat":1,"exp":9999999999,"oauth_grant":"yes"})"),
       JwtError::Malformed},
      {"payload not an object", forge(kHeader, "[]"), JwtError::Malformed},
      {"payload trailing garbage", forge(kHeader, kPayload + "x"), JwtError::Malformed},
      {"other secret, bad claims", forge(kHeader, "[]", "another secret"), JwtError::BadSignature},
  };
}

BOOST_AUTO_TEST_CASE(bad_tokens_are_refused_with_the_right_error) {
  for (const BadToken& t : bad_tokens()) {
    BOOST_TEST_CONTEXT(t.name) {
      const JwtResult r = jwt_verify(t.token, kRing, "access", kNow);
      BOOST_TEST(!r.ok());
      BOOST_TEST(r.error == t.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(forged_helper_builds_valid_tokens) {
  // Guards the table above: its tokens differ from a valid one only where
  // each row says.
  BOOST_TEST(jwt_verify(forge(kHeader, kPayload), kRing, "access", kNow).ok());
}

BOOST_AUTO_TEST_SUITE_END()

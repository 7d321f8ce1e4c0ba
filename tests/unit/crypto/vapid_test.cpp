// VAPID (RFC 8292): the token verifies with the public key through an
// independent path (raw r||s -> DER -> EVP_DigestVerify), claims are exact,
// bad input is refused, and endpoint origins come out as push services expect.
#include "crypto/vapid.hpp"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <rapidjson/document.h>
#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

using svc::crypto::endpoint_origin;
using svc::crypto::generate_vapid_keys;
using svc::crypto::vapid_authorization_header;
using svc::crypto::vapid_jwt;
using svc::crypto::VapidKeys;
using svc::crypto::VapidSigner;

namespace {

std::string b64url_decode(std::string_view in) {
  std::string out(in.size(), '\0');
  std::size_t len = 0;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), in.data(), in.size(), nullptr, &len,
                        nullptr, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    throw std::runtime_error("not base64url: " + std::string(in));
  }
  out.resize(len);
  return out;
}

std::vector<std::string> split_jwt(const std::string& jwt) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = jwt.find('.', start)) != std::string::npos; start = dot + 1) {
    parts.push_back(jwt.substr(start, dot - start));
  }
  parts.push_back(jwt.substr(start));
  return parts;
}

// Verifies a JWS ES256 signature (raw r||s) over `input` with a raw public point.
bool es256_verifies(const std::string& input, const std::string& raw_sig, const std::string& public_key) {
  if (raw_sig.size() != 64) return false;
  auto* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw_sig.data()), 32, nullptr);
  auto* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw_sig.data()) + 32, 32, nullptr);
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(ECDSA_SIG_new(), ECDSA_SIG_free);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return false;
  }
  unsigned char* der = nullptr;
  const int der_len = i2d_ECDSA_SIG(sig.get(), &der);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> der_guard(der, [](unsigned char* p) { OPENSSL_free(p); });
  if (der_len <= 0) return false;

  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(), OSSL_PARAM_BLD_free);
  OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
  OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, public_key.data(), public_key.size());
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(bld.get()), OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> pctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr),
                                                                   EVP_PKEY_CTX_free);
  EVP_PKEY* raw_key = nullptr;
  if (EVP_PKEY_fromdata_init(pctx.get()) <= 0 ||
      EVP_PKEY_fromdata(pctx.get(), &raw_key, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return false;
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw_key, EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  return EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
         EVP_DigestVerify(md.get(), der, static_cast<std::size_t>(der_len),
                          reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vapid_test)

BOOST_AUTO_TEST_CASE(jwt_has_exact_header_and_claims_and_verifies) {
  const VapidKeys keys = generate_vapid_keys();
  BOOST_TEST(keys.private_key.size() == 32u);
  BOOST_TEST(keys.public_key.size() == 65u);

  const auto jwt = vapid_jwt("https://push.example.net", "mailto:ops@example.com", 1700000000, keys);
  BOOST_REQUIRE(jwt.has_value());
  const auto parts = split_jwt(*jwt);
  BOOST_REQUIRE_EQUAL(parts.size(), 3u);
  BOOST_TEST(b64url_decode(parts[0]) == R"({"typ":"JWT","alg":"ES256"})");
  BOOST_TEST(b64url_decode(parts[1]) ==
             R"({"aud":"https://push.example.net","exp":1700000000,"sub":"mailto:ops@example.com"})");

  const std::string signing_input = parts[0] + "." + parts[1];
  const std::string sig = b64url_decode(parts[2]);
  BOOST_TEST(sig.size() == 64u);
  BOOST_TEST(es256_verifies(signing_input, sig, keys.public_key));
  // The check is real: another key or other claims do not verify.
  BOOST_TEST(!es256_verifies(signing_input, sig, generate_vapid_keys().public_key));
  BOOST_TEST(!es256_verifies(signing_input + "x", sig, keys.public_key));
}

BOOST_AUTO_TEST_CASE(claims_are_json_escaped) {
  const VapidKeys keys = generate_vapid_keys();
  const auto jwt = vapid_jwt("https://push.example.net:8443", "https://example.com/\"contact\"", 42, keys);
  BOOST_REQUIRE(jwt.has_value());
  rapidjson::Document claims;
  const std::string json = b64url_decode(split_jwt(*jwt)[1]);
  claims.Parse(json.c_str());
  BOOST_REQUIRE(!claims.HasParseError());
  BOOST_TEST(std::string(claims["aud"].GetString()) == "https://push.example.net:8443");
  BOOST_TEST(claims["exp"].GetInt64() == 42);
  BOOST_TEST(std::string(claims["sub"].GetString()) == "https://example.com/\"contact\"");
}

BOOST_AUTO_TEST_CASE(bad_subject_audience_or_keys_are_refused) {
  const VapidKeys keys = generate_vapid_keys();
  const char* aud = "https://push.example.net";
  for (const char* subject :
       {"", "ops@example.com", "http://example.com", "MAILTO:x@y", "javascript:alert(1)", "mailto", "https"}) {
    BOOST_TEST_CONTEXT("subject " << subject) { BOOST_TEST(!vapid_jwt(aud, subject, 1700000000, keys).has_value()); }
  }
  for (const char* bad_aud : {"", "push.example.net", "https://push.example.net/", "https://push.example.net/send/x",
                              "HTTPS://push.example.net", "ftp://push.example.net"}) {
    BOOST_TEST_CONTEXT("aud " << bad_aud) {
      BOOST_TEST(!vapid_jwt(bad_aud, "mailto:a@b", 1700000000, keys).has_value());
    }
  }
  BOOST_TEST(!vapid_jwt(aud, "mailto:a@b", 0, keys).has_value());
  BOOST_TEST(!vapid_jwt(aud, "mailto:a@b", 1, VapidKeys{keys.private_key, ""}).has_value());
  BOOST_TEST(
      !vapid_jwt(aud, "mailto:a@b", 1, VapidKeys{keys.private_key, generate_vapid_keys().public_key}).has_value());
  BOOST_TEST(vapid_jwt(aud, "mailto:a@b", 1, keys).has_value());  // control
}

// A worker parses a site's key pair once (VapidSigner) and signs many tokens
// with it: each verifies with the public key, and the same refusals apply.
BOOST_AUTO_TEST_CASE(signer_loaded_once_signs_many_verifiable_tokens) {
  const VapidKeys keys = generate_vapid_keys();
  const auto signer = VapidSigner::load(keys);
  BOOST_REQUIRE(signer.has_value());
  for (long long exp : {1700000000LL, 1700000001LL}) {
    const auto jwt = signer->jwt("https://push.example.net", "mailto:ops@example.com", exp);
    BOOST_REQUIRE(jwt.has_value());
    const auto parts = split_jwt(*jwt);
    BOOST_REQUIRE_EQUAL(parts.size(), 3u);
    BOOST_TEST(es256_verifies(parts[0] + "." + parts[1], b64url_decode(parts[2]), keys.public_key));
  }
  const VapidSigner copy = *signer;  // copies share the parsed key
  BOOST_TEST(copy.jwt("https://push.example.net", "mailto:a@b", 1).has_value());
  BOOST_TEST(!signer->jwt("https://push.example.net/", "mailto:a@b", 1).has_value());
  BOOST_TEST(!signer->jwt("https://push.example.net", "ops@example.com", 1).has_value());
  BOOST_TEST(!signer->jwt("https://push.example.net", "mailto:a@b", 0).has_value());
  BOOST_TEST(!VapidSigner::load(VapidKeys{keys.private_key, generate_vapid_keys().public_key}).has_value());
  BOOST_TEST(!VapidSigner::load(VapidKeys{keys.private_key, ""}).has_value());
}

BOOST_AUTO_TEST_CASE(authorization_header_format) {
  const std::string pub("\x04\xfb\xff", 3);
  BOOST_TEST(vapid_authorization_header("a.b.c", pub) == "vapid t=a.b.c, k=BPv_");
  const VapidKeys keys = generate_vapid_keys();
  const std::string header = vapid_authorization_header("h.p.s", keys.public_key);
  BOOST_TEST(header.starts_with("vapid t=h.p.s, k=B"));
  BOOST_TEST(b64url_decode(header.substr(header.find("k=") + 2)) == keys.public_key);
}

BOOST_AUTO_TEST_CASE(endpoint_origin_table) {
  struct Case {
    const char* url;
    const char* origin;  // nullptr: refused
  };
  const Case cases[] = {
      {"https://fcm.googleapis.com/fcm/send/abc:def", "https://fcm.googleapis.com"},
      {"https://updates.push.services.mozilla.com/wpush/v2/gAAA", "https://updates.push.services.mozilla.com"},
      {"https://Push.Example.NET:443/a?b#c", "https://push.example.net"},
      {"HTTPS://push.example.net:8443", "https://push.example.net:8443"},
      {"https://push.example.net:08443/x", "https://push.example.net:8443"},
      {"https://push.example.net:/x", "https://push.example.net"},
      {"https://user:pw@push.example.net/x", "https://push.example.net"},
      {"https://push.example.net?x=1", "https://push.example.net"},
      {"https://[2001:DB8::1]:8443/x", "https://[2001:db8::1]:8443"},
      {"https://[2001:db8::1]/x", "https://[2001:db8::1]"},
      {"http://127.0.0.1:8080/push", "http://127.0.0.1:8080"},
      {"http://sink.local:80/", "http://sink.local"},
      {"ftp://push.example.net/", nullptr},
      {"push.example.net/x", nullptr},
      {"https:///x", nullptr},
      {"https://", nullptr},
      {"https://push.example.net:0/", nullptr},
      {"https://push.example.net:65536/", nullptr},
      {"https://push.example.net:44a/", nullptr},
      {"https://push.example.net:-1/", nullptr},
      {"https://push example.net/", nullptr},
      {"https://push.example.net/\r\nX: y", nullptr},
      {"https://[2001:db8::1/x", nullptr},
      {"https://[2001:db8::1]x/", nullptr},
      {"https://[]/", nullptr},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("url " << c.url) {
      const auto got = endpoint_origin(c.url);
      if (c.origin == nullptr) {
        BOOST_TEST(!got.has_value());
      } else {
        BOOST_TEST(got.value_or("<nullopt>") == c.origin);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

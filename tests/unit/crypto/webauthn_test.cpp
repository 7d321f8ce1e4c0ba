// WebAuthn parsing and verification (crypto/webauthn_data, crypto/cose_key,
// auth/passkey/verify) on fixed vectors: one registration and one assertion
// per algorithm, made once by Chromium's virtual authenticator
// (tests/integration/passkey_browser.js vectors) and kept in tests/data/.

#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "auth/passkey/verify.hpp"
#include "crypto/cose_key.hpp"
#include "crypto/encoding.hpp"
#include "crypto/webauthn_data.hpp"

namespace {

using svc::auth::passkey::Expectation;
using svc::auth::passkey::Refusal;
namespace webauthn = svc::crypto::webauthn;
namespace cose = svc::crypto::cose;

struct Vector {
  int alg = 0;
  std::string rp_id, origin;
  std::string reg_challenge, raw_id, reg_client_data, attestation_object;
  std::string get_challenge, get_client_data, authenticator_data, signature;
};

std::string member(const rapidjson::Value& v, const char* name) { return v[name].GetString(); }

std::string bytes(const rapidjson::Value& v, const char* name) {
  auto decoded = svc::crypto::base64url_decode(member(v, name));
  BOOST_REQUIRE(decoded);
  return *decoded;
}

Vector load(const std::string& name) {
  std::ifstream file(std::string(SVC_TESTDATA_DIR) + "/webauthn-" + name + ".json");
  BOOST_REQUIRE(file);
  std::stringstream text;
  text << file.rdbuf();
  rapidjson::Document doc;
  doc.Parse(text.str().c_str());
  BOOST_REQUIRE(!doc.HasParseError());
  Vector v;
  v.alg = doc["alg"].GetInt();
  v.rp_id = member(doc, "rp_id");
  v.origin = member(doc, "origin");
  const auto& reg = doc["registration"];
  v.reg_challenge = member(reg, "challenge");
  v.raw_id = bytes(reg["credential"], "rawId");
  v.reg_client_data = bytes(reg["credential"]["response"], "clientDataJSON");
  v.attestation_object = bytes(reg["credential"]["response"], "attestationObject");
  const auto& get = doc["assertion"];
  v.get_challenge = member(get, "challenge");
  v.get_client_data = bytes(get["credential"]["response"], "clientDataJSON");
  v.authenticator_data = bytes(get["credential"]["response"], "authenticatorData");
  v.signature = bytes(get["credential"]["response"], "signature");
  return v;
}

Expectation create_expectation(const Vector& v) {
  return {"webauthn.create", v.reg_challenge, {v.origin}, v.rp_id, true};
}
Expectation get_expectation(const Vector& v) { return {"webauthn.get", v.get_challenge, {v.origin}, v.rp_id, true}; }

// The stored key of the vector's registration (the check must accept it).
std::string registered_key(const Vector& v) {
  auto reg =
      svc::auth::passkey::check_registration(create_expectation(v), v.raw_id, v.reg_client_data, v.attestation_object);
  BOOST_REQUIRE(reg.refusal == Refusal::kNone);
  return reg.attestation->parsed.attested->public_key;
}

Refusal assert_with(const Vector& v, const Expectation& e, const std::string& auth_data, const std::string& sig) {
  return svc::auth::passkey::check_assertion(e, v.get_client_data, auth_data, sig, registered_key(v)).refusal;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(webauthn_test)

BOOST_AUTO_TEST_CASE(registration_vectors_parse_and_verify) {
  for (const auto& [name, alg] :
       {std::pair<const char*, int>{"es256", cose::kES256}, {"eddsa", cose::kEdDSA}, {"rs256", cose::kRS256}}) {
    BOOST_TEST_CONTEXT(name) {
      const Vector v = load(name);
      auto reg = svc::auth::passkey::check_registration(create_expectation(v), v.raw_id, v.reg_client_data,
                                                        v.attestation_object);
      BOOST_TEST(static_cast<int>(reg.refusal) == static_cast<int>(Refusal::kNone));
      BOOST_TEST(reg.alg == alg);
      BOOST_TEST(reg.attestation->fmt == "none");
      BOOST_TEST(reg.attestation->empty_statement);
      const auto& data = reg.attestation->parsed;
      BOOST_TEST(data.rp_id_hash == svc::crypto::sha256("localhost"));
      BOOST_TEST(data.user_present());
      BOOST_TEST(data.user_verified());
      BOOST_TEST(data.attested->credential_id == v.raw_id);
      BOOST_TEST(data.attested->aaguid.size() == 16u);
      BOOST_TEST(cose::key_algorithm(data.attested->public_key).value_or(0) == alg);
    }
  }
}

BOOST_AUTO_TEST_CASE(assertion_vectors_verify) {
  for (const char* name : {"es256", "eddsa", "rs256"}) {
    BOOST_TEST_CONTEXT(name) {
      const Vector v = load(name);
      auto got = svc::auth::passkey::check_assertion(get_expectation(v), v.get_client_data, v.authenticator_data,
                                                     v.signature, registered_key(v));
      BOOST_TEST(static_cast<int>(got.refusal) == static_cast<int>(Refusal::kNone));
      BOOST_TEST(got.data->user_verified());
      BOOST_TEST(got.data->sign_count == 2u);  // the virtual authenticator counts registration as use 1
      BOOST_TEST(!got.data->attested);
    }
  }
}

// Each check refuses on its own: one thing wrong at a time.
BOOST_AUTO_TEST_CASE(assertion_refusals) {
  for (const char* name : {"es256", "eddsa", "rs256"}) {
    BOOST_TEST_CONTEXT(name) {
      const Vector v = load(name);
      auto expect = [&](Expectation e, Refusal want, std::string auth_data, std::string sig) {
        BOOST_TEST(static_cast<int>(assert_with(v, e, auth_data, sig)) == static_cast<int>(want));
      };
      Expectation e = get_expectation(v);
      expect(e, Refusal::kNone, v.authenticator_data, v.signature);

      std::string sig = v.signature;
      sig[sig.size() / 2] = static_cast<char>(sig[sig.size() / 2] ^ 0x01);
      expect(e, Refusal::kSignature, v.authenticator_data, sig);

      std::string counter = v.authenticator_data;  // signed bytes changed: the counter raised by hand
      counter[36] = static_cast<char>(counter[36] + 1);
      expect(e, Refusal::kSignature, counter, v.signature);

      Expectation other_rp = e;
      other_rp.rp_id = "b.localhost";
      expect(other_rp, Refusal::kRpIdHash, v.authenticator_data, v.signature);

      Expectation other_origin = e;
      other_origin.origins = {"http://localhost:1"};
      expect(other_origin, Refusal::kOrigin, v.authenticator_data, v.signature);

      Expectation other_challenge = e;
      other_challenge.challenge = v.reg_challenge;
      expect(other_challenge, Refusal::kChallenge, v.authenticator_data, v.signature);

      Expectation create = e;
      create.type = "webauthn.create";
      expect(create, Refusal::kType, v.authenticator_data, v.signature);

      std::string no_uv = v.authenticator_data;  // UV cleared: refused before the signature is looked at
      no_uv[32] = static_cast<char>(no_uv[32] & ~webauthn::kFlagUserVerified);
      expect(e, Refusal::kUserVerification, no_uv, v.signature);
      Expectation uv_optional = e;
      uv_optional.user_verification = false;
      expect(uv_optional, Refusal::kSignature, no_uv, v.signature);

      std::string no_up = v.authenticator_data;
      no_up[32] = static_cast<char>(no_up[32] & ~webauthn::kFlagUserPresent);
      expect(uv_optional, Refusal::kUserPresence, no_up, v.signature);

      expect(e, Refusal::kAuthenticatorData, v.authenticator_data + "x", v.signature);
      expect(e, Refusal::kAuthenticatorData, v.authenticator_data.substr(0, 36), v.signature);
    }
  }
}

BOOST_AUTO_TEST_CASE(registration_refusals) {
  const Vector v = load("es256");
  const Expectation e = create_expectation(v);
  auto refusal = [&](const Expectation& x, const std::string& raw_id, const std::string& client_data,
                     const std::string& att) {
    return static_cast<int>(svc::auth::passkey::check_registration(x, raw_id, client_data, att).refusal);
  };
  BOOST_TEST(refusal(e, v.raw_id, v.reg_client_data, v.attestation_object) == static_cast<int>(Refusal::kNone));
  BOOST_TEST(refusal(e, v.raw_id + "x", v.reg_client_data, v.attestation_object) ==
             static_cast<int>(Refusal::kCredentialId));
  BOOST_TEST(refusal(e, v.raw_id, v.get_client_data, v.attestation_object) == static_cast<int>(Refusal::kType));
  BOOST_TEST(refusal(e, v.raw_id, "not json", v.attestation_object) == static_cast<int>(Refusal::kClientData));
  Expectation other_rp = e;
  other_rp.rp_id = "example.com";
  BOOST_TEST(refusal(other_rp, v.raw_id, v.reg_client_data, v.attestation_object) ==
             static_cast<int>(Refusal::kRpIdHash));
  // Every cut of the attestation object is malformed, never accepted.
  for (std::size_t n = 0; n < v.attestation_object.size(); n += 7) {
    BOOST_TEST(refusal(e, v.raw_id, v.reg_client_data, v.attestation_object.substr(0, n)) ==
               static_cast<int>(Refusal::kAuthenticatorData));
  }
}

// Attestation formats other than "none" are accepted without judging the
// statement (docs/decisions.md): the same authData under fmt "packed" with a
// statement that proves nothing.
BOOST_AUTO_TEST_CASE(other_attestation_formats_are_accepted_unverified) {
  const Vector v = load("es256");
  auto none = webauthn::parse_attestation_object(v.attestation_object);
  BOOST_REQUIRE(none.has_value());
  const std::string& auth_data = none->auth_data;
  BOOST_REQUIRE(auth_data.size() < 256);
  std::string packed(
      "\xa3\x63"
      "fmt"
      "\x66"
      "packed"
      "\x67"
      "attStmt"
      "\xa2\x63"
      "alg"
      "\x26\x63"
      "sig"
      "\x43"
      "abc"
      "\x68"
      "authData"
      "\x58");
  packed += static_cast<char>(auth_data.size());
  packed += auth_data;
  auto reg = svc::auth::passkey::check_registration(create_expectation(v), v.raw_id, v.reg_client_data, packed);
  BOOST_TEST(static_cast<int>(reg.refusal) == static_cast<int>(Refusal::kNone));
  BOOST_TEST(reg.attestation->fmt == "packed");
  BOOST_TEST(!reg.attestation->empty_statement);
  BOOST_TEST(reg.alg == cose::kES256);
}

BOOST_AUTO_TEST_CASE(authenticator_data_layout) {
  // 37 fixed bytes: rpIdHash, flags UP|BE|BS, counter 0x01020304.
  std::string data(32, 'h');
  data += static_cast<char>(webauthn::kFlagUserPresent | webauthn::kFlagBackupEligible | webauthn::kFlagBackedUp);
  data += std::string("\x01\x02\x03\x04", 4);
  auto parsed = webauthn::parse_authenticator_data(data);
  BOOST_REQUIRE(parsed);
  BOOST_TEST(parsed->sign_count == 0x01020304u);
  BOOST_TEST(parsed->backup_eligible());
  BOOST_TEST(parsed->backed_up());
  // Backed up but not eligible is not a state an authenticator may report.
  data[32] = static_cast<char>(webauthn::kFlagUserPresent | webauthn::kFlagBackedUp);
  BOOST_TEST(!webauthn::parse_authenticator_data(data).has_value());
  // ED set: a CBOR map of extensions must follow, and nothing after it.
  data[32] = static_cast<char>(webauthn::kFlagUserPresent | webauthn::kFlagExtensions);
  BOOST_TEST(!webauthn::parse_authenticator_data(data).has_value());
  BOOST_TEST(webauthn::parse_authenticator_data(data + "\xa0").has_value());
  BOOST_TEST(!webauthn::parse_authenticator_data(data + std::string("\xa0\x00", 2)).has_value());
  // A map header that declares 3 billion pairs in 5 bytes: refused before
  // libcbor would allocate them (found by tests/fuzz/webauthn_fuzz.cpp).
  BOOST_TEST(!webauthn::parse_authenticator_data(data + "\xba\xba\xba\xba\xba").has_value());
  // Indefinite lengths and tags are not CTAP2's canonical CBOR.
  BOOST_TEST(!webauthn::parse_authenticator_data(data + "\xbf\xff").has_value());
  BOOST_TEST(!webauthn::parse_authenticator_data(data + "\xc1\xa0").has_value());
  // AT set without attested credential data.
  data[32] = static_cast<char>(webauthn::kFlagUserPresent | webauthn::kFlagAttestedData);
  BOOST_TEST(!webauthn::parse_authenticator_data(data).has_value());
}

BOOST_AUTO_TEST_CASE(cose_keys_refused) {
  BOOST_TEST(!cose::key_algorithm("").has_value());
  BOOST_TEST(!cose::key_algorithm("\xa0").has_value());  // an empty map
  const Vector v = load("es256");
  std::string key = registered_key(v);
  BOOST_TEST(cose::key_algorithm(key).value_or(0) == cose::kES256);
  BOOST_TEST(!cose::key_algorithm(key + std::string(1, '\0')).has_value());  // trailing byte
  BOOST_TEST(!cose::verify(key.substr(0, key.size() - 1), "message", "signature"));
}

BOOST_AUTO_TEST_SUITE_END()

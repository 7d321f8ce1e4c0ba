// ES256 and EdDSA JWS keys (crypto/signing_key.hpp): each algorithm signs
// and verifies its own signatures, refuses tampered ones, keys of the other
// algorithm or curve, and halves that do not match; the JWK has exactly the
// RFC 7517/7518/8037 members; sealed private halves open only with their
// kek and kid.
#include "crypto/signing_key.hpp"

#include <rapidjson/document.h>

#include <boost/test/unit_test.hpp>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "crypto/encoding.hpp"

using svc::crypto::alg_name;
using svc::crypto::base64url_decode;
using svc::crypto::generate_signing_key;
using svc::crypto::open_private_key;
using svc::crypto::parse_alg;
using svc::crypto::seal_private_key;
using svc::crypto::SigningAlg;
using svc::crypto::SigningKey;
using svc::crypto::SigningKeyMaterial;

namespace svc::crypto {
// For BOOST_TEST's messages.
std::ostream& operator<<(std::ostream& os, SigningAlg alg) { return os << alg_name(alg); }
}  // namespace svc::crypto

namespace {

SigningKey pair_of(const SigningKeyMaterial& m, const std::string& kid = "k1") {
  auto key = SigningKey::load_pair(kid, m.alg, m.private_key, m.public_key);
  BOOST_REQUIRE(key.has_value());
  return *key;
}

const SigningAlg kAlgs[] = {SigningAlg::kES256, SigningAlg::kEdDSA};

}  // namespace

BOOST_AUTO_TEST_SUITE(signing_key_test)

BOOST_AUTO_TEST_CASE(alg_names_round_trip_exactly) {
  for (SigningAlg alg : kAlgs) BOOST_TEST((parse_alg(alg_name(alg)) == alg));
  BOOST_TEST((parse_alg("RS256") == SigningAlg::kRS256));
  for (const char* bad : {"es256", "EDDSA", "HS256", "none", "", "rs256", "RS384", "PS256", "ES256 "}) {
    BOOST_TEST(!parse_alg(bad).has_value(), bad);
  }
}

BOOST_AUTO_TEST_CASE(raw_key_sizes_are_the_documented_ones) {
  const auto es = generate_signing_key(SigningAlg::kES256);
  BOOST_TEST(es.private_key.size() == 32u);
  BOOST_TEST(es.public_key.size() == 65u);
  BOOST_TEST(static_cast<unsigned char>(es.public_key[0]) == 0x04);
  const auto ed = generate_signing_key(SigningAlg::kEdDSA);
  BOOST_TEST(ed.private_key.size() == 32u);
  BOOST_TEST(ed.public_key.size() == 32u);
}

BOOST_AUTO_TEST_CASE(sign_then_verify_round_trips_with_the_public_half_alone) {
  for (SigningAlg alg : kAlgs) {
    BOOST_TEST_CONTEXT(alg_name(alg)) {
      const auto m = generate_signing_key(alg);
      const SigningKey signer = pair_of(m);
      const auto verifier = SigningKey::load_public("k1", alg, m.public_key);
      BOOST_REQUIRE(verifier.has_value());
      BOOST_TEST(signer.can_sign());
      BOOST_TEST(!verifier->can_sign());
      const std::string sig = signer.sign("header.payload");
      BOOST_TEST(sig.size() == 64u);  // r || s, never DER (70-72 bytes)
      BOOST_TEST(verifier->verify("header.payload", sig));
      BOOST_TEST(signer.verify("header.payload", sig));
      BOOST_CHECK_THROW(verifier->sign("x"), std::logic_error);
    }
  }
}

BOOST_AUTO_TEST_CASE(tampered_signatures_and_inputs_fail) {
  for (SigningAlg alg : kAlgs) {
    BOOST_TEST_CONTEXT(alg_name(alg)) {
      const SigningKey key = pair_of(generate_signing_key(alg));
      const std::string sig = key.sign("header.payload");
      for (std::size_t i : {std::size_t{0}, std::size_t{31}, std::size_t{32}, std::size_t{63}}) {
        std::string bad = sig;
        bad[i] = static_cast<char>(bad[i] ^ 0x01);
        BOOST_TEST(!key.verify("header.payload", bad), "byte " << i);
      }
      BOOST_TEST(!key.verify("header.payloaD", sig));
      BOOST_TEST(!key.verify("header.payload", sig.substr(0, 63)));
      BOOST_TEST(!key.verify("header.payload", sig + "x"));
      BOOST_TEST(!key.verify("header.payload", std::string(64, '\0')));
      BOOST_TEST(!key.verify("header.payload", std::string(64, '\xff')));
      BOOST_TEST(!key.verify("header.payload", ""));
    }
  }
}

// Each key keeps its OpenSSL contexts for every later signature and check:
// a refused signature leaves nothing behind, and two threads using copies
// of one key at once (one then gets a context of its own) both succeed.
BOOST_AUTO_TEST_CASE(kept_contexts_serve_many_signatures_and_threads) {
  for (SigningAlg alg : kAlgs) {
    BOOST_TEST_CONTEXT(alg_name(alg)) {
      const SigningKey key = pair_of(generate_signing_key(alg));
      const std::string first = key.sign("one");
      BOOST_TEST(!key.verify("two", first));
      const std::string second = key.sign("two");
      BOOST_TEST(key.verify("one", first));
      BOOST_TEST(key.verify("two", second));
      std::vector<int> good(2, 0);
      std::vector<std::thread> threads;
      for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&good, t, copy = key] {
          for (int i = 0; i < 50; ++i) {
            const std::string message = "m" + std::to_string(t) + "-" + std::to_string(i);
            good[static_cast<std::size_t>(t)] += copy.verify(message, copy.sign(message)) ? 1 : 0;
          }
        });
      }
      for (std::thread& th : threads) th.join();
      BOOST_TEST(good[0] == 50);
      BOOST_TEST(good[1] == 50);
    }
  }
}

// A key remembers the signatures it verified (signing_key.cpp, kMemoEntries):
// what it remembers vouches for exactly those bytes with that key. After a
// success, the same signature over other input, a changed signature over the
// same input, a prefix or extension of either, and another key (even one
// with the same kid) still fail; the success itself holds every time, also
// past the memo's size, when it starts again.
BOOST_AUTO_TEST_CASE(a_remembered_signature_vouches_for_its_bytes_and_key_only) {
  for (SigningAlg alg : kAlgs) {
    BOOST_TEST_CONTEXT(alg_name(alg)) {
      const SigningKey key = pair_of(generate_signing_key(alg));
      const SigningKey same_kid = pair_of(generate_signing_key(alg));
      const std::string input = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0";
      const std::string sig = key.sign(input);
      for (int i = 0; i < 3; ++i) BOOST_TEST(key.verify(input, sig));
      BOOST_TEST(!key.verify(input + "x", sig));
      BOOST_TEST(!key.verify(input.substr(0, input.size() - 1), sig));
      BOOST_TEST(!key.verify(input.substr(0, input.size() - 1), input.back() + sig));
      std::string flipped = sig;
      flipped[10] = static_cast<char>(flipped[10] ^ 0x40);
      BOOST_TEST(!key.verify(input, flipped));
      BOOST_TEST(!same_kid.verify(input, sig));
      const SigningKey copy = key;  // copies share what the key remembers, and its refusals
      BOOST_TEST(copy.verify(input, sig));
      BOOST_TEST(!copy.verify(input, flipped));
      for (int i = 0; i < 4200; ++i) {
        const std::string m = "m" + std::to_string(i);
        BOOST_TEST_REQUIRE(key.verify(m, key.sign(m)));
      }
      BOOST_TEST(key.verify(input, sig));
      BOOST_TEST(!key.verify(input, flipped));
    }
  }
}

BOOST_AUTO_TEST_CASE(another_key_or_curve_does_not_verify) {
  const SigningKey es_a = pair_of(generate_signing_key(SigningAlg::kES256));
  const SigningKey es_b = pair_of(generate_signing_key(SigningAlg::kES256));
  const SigningKey ed_a = pair_of(generate_signing_key(SigningAlg::kEdDSA));
  const SigningKey ed_b = pair_of(generate_signing_key(SigningAlg::kEdDSA));
  BOOST_TEST(!es_b.verify("m", es_a.sign("m")));
  BOOST_TEST(!ed_b.verify("m", ed_a.sign("m")));
  // Both signatures are 64 bytes: the other algorithm must still refuse them.
  BOOST_TEST(!ed_a.verify("m", es_a.sign("m")));
  BOOST_TEST(!es_a.verify("m", ed_a.sign("m")));
}

BOOST_AUTO_TEST_CASE(keys_of_the_wrong_shape_or_curve_are_refused) {
  const auto es = generate_signing_key(SigningAlg::kES256);
  const auto ed = generate_signing_key(SigningAlg::kEdDSA);
  // A 32-byte Ed25519 key is no P-256 point, a P-256 point no Ed25519 key.
  BOOST_TEST(!SigningKey::load_public("k", SigningAlg::kES256, ed.public_key).has_value());
  BOOST_TEST(!SigningKey::load_public("k", SigningAlg::kEdDSA, es.public_key).has_value());
  // A point off the curve.
  std::string off = es.public_key;
  off[64] = static_cast<char>(off[64] ^ 0x01);
  BOOST_TEST(!SigningKey::load_public("k", SigningAlg::kES256, off).has_value());
  // Halves of two different pairs.
  const auto es2 = generate_signing_key(SigningAlg::kES256);
  const auto ed2 = generate_signing_key(SigningAlg::kEdDSA);
  BOOST_TEST(!SigningKey::load_pair("k", SigningAlg::kES256, es.private_key, es2.public_key).has_value());
  BOOST_TEST(!SigningKey::load_pair("k", SigningAlg::kEdDSA, ed.private_key, ed2.public_key).has_value());
  BOOST_TEST(!SigningKey::load_pair("k", SigningAlg::kEdDSA, es.private_key, ed.public_key).has_value());
}

BOOST_AUTO_TEST_CASE(jwk_has_exactly_the_rfc_members) {
  const auto es = generate_signing_key(SigningAlg::kES256);
  rapidjson::Document d;
  d.Parse(pair_of(es, "es-1").jwk().c_str());
  BOOST_REQUIRE(d.IsObject());
  BOOST_TEST(d.MemberCount() == 7u);
  BOOST_TEST(std::string(d["kty"].GetString()) == "EC");
  BOOST_TEST(std::string(d["crv"].GetString()) == "P-256");
  BOOST_TEST(std::string(d["kid"].GetString()) == "es-1");
  BOOST_TEST(std::string(d["alg"].GetString()) == "ES256");
  BOOST_TEST(std::string(d["use"].GetString()) == "sig");
  BOOST_TEST((base64url_decode(d["x"].GetString()) == es.public_key.substr(1, 32)));
  BOOST_TEST((base64url_decode(d["y"].GetString()) == es.public_key.substr(33, 32)));
  BOOST_TEST(!d.HasMember("d"));  // never the private half

  const auto ed = generate_signing_key(SigningAlg::kEdDSA);
  rapidjson::Document e;
  e.Parse(pair_of(ed, "ed-1").jwk().c_str());
  BOOST_REQUIRE(e.IsObject());
  BOOST_TEST(e.MemberCount() == 6u);
  BOOST_TEST(std::string(e["kty"].GetString()) == "OKP");
  BOOST_TEST(std::string(e["crv"].GetString()) == "Ed25519");
  BOOST_TEST(std::string(e["alg"].GetString()) == "EdDSA");
  BOOST_TEST(std::string(e["use"].GetString()) == "sig");
  BOOST_TEST((base64url_decode(e["x"].GetString()) == ed.public_key));
  BOOST_TEST(!e.HasMember("d"));
}

// RS256 (issue 39: OpenID Connect ID tokens): PKCS#8 / SubjectPublicKeyInfo
// DER halves, PKCS#1 v1.5 signatures of the modulus size, the RSA JWK.
BOOST_AUTO_TEST_CASE(rs256_signs_verifies_and_publishes_n_and_e) {
  const auto m = generate_signing_key(SigningAlg::kRS256);
  const SigningKey signer = pair_of(m, "rs-1");
  const auto verifier = SigningKey::load_public("rs-1", SigningAlg::kRS256, m.public_key);
  BOOST_REQUIRE(verifier.has_value());
  const std::string sig = signer.sign("header.payload");
  BOOST_TEST(sig.size() == 256u);  // 2048-bit modulus
  BOOST_TEST(verifier->verify("header.payload", sig));
  BOOST_TEST(!verifier->verify("header.payloaD", sig));
  std::string bad = sig;
  bad[100] = static_cast<char>(bad[100] ^ 0x01);
  BOOST_TEST(!verifier->verify("header.payload", bad));
  BOOST_TEST(!verifier->verify("header.payload", sig.substr(0, 64)));
  // Another RSA key, or an ES256 key's signature, does not verify.
  const SigningKey other = pair_of(generate_signing_key(SigningAlg::kRS256));
  BOOST_TEST(!other.verify("header.payload", sig));
  const SigningKey es = pair_of(generate_signing_key(SigningAlg::kES256));
  BOOST_TEST(!verifier->verify("m", es.sign("m")));
  // Halves of two pairs, and an EC key read as RSA, are refused.
  const auto m2 = generate_signing_key(SigningAlg::kRS256);
  BOOST_TEST(!SigningKey::load_pair("k", SigningAlg::kRS256, m.private_key, m2.public_key).has_value());
  BOOST_TEST(!SigningKey::load_public("k", SigningAlg::kRS256, generate_signing_key(SigningAlg::kES256).public_key)
                  .has_value());

  rapidjson::Document d;
  d.Parse(signer.jwk().c_str());
  BOOST_REQUIRE(d.IsObject());
  BOOST_TEST(d.MemberCount() == 6u);
  BOOST_TEST(std::string(d["kty"].GetString()) == "RSA");
  BOOST_TEST(std::string(d["alg"].GetString()) == "RS256");
  BOOST_TEST(std::string(d["kid"].GetString()) == "rs-1");
  BOOST_TEST(std::string(d["e"].GetString()) == "AQAB");  // 65537
  BOOST_TEST(base64url_decode(d["n"].GetString())->size() == 256u);
  BOOST_TEST(!d.HasMember("d"));
}

BOOST_AUTO_TEST_CASE(sealed_private_halves_open_only_with_their_kek_and_kid) {
  const std::string kek(32, 'k');
  const std::string other(32, 'o');
  const std::string secret = generate_signing_key(SigningAlg::kES256).private_key;
  const std::string sealed = seal_private_key(secret, kek, "kid-1");
  BOOST_TEST(sealed.size() == 24u + secret.size() + 16u);
  BOOST_TEST(sealed.find(secret) == std::string::npos);
  BOOST_TEST((open_private_key(sealed, kek, "kid-1") == secret));
  BOOST_TEST(!open_private_key(sealed, other, "kid-1").has_value());
  BOOST_TEST(!open_private_key(sealed, kek, "kid-2").has_value());
  std::string flipped = sealed;
  flipped[30] = static_cast<char>(flipped[30] ^ 0x01);
  BOOST_TEST(!open_private_key(flipped, kek, "kid-1").has_value());
  BOOST_TEST(!open_private_key(sealed.substr(0, 20), kek, "kid-1").has_value());
  BOOST_TEST(seal_private_key(secret, kek, "kid-1") != sealed);  // fresh nonce
  BOOST_CHECK_THROW(seal_private_key(secret, std::string(16, 'k'), "kid-1"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

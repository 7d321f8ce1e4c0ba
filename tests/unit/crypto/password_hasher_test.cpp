// Argon2id, PHP bcrypt and PHP AES-encrypted legacy passwords.
#include "crypto/password_hasher.hpp"

#include <sodium.h>

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "crypto/argon2_arena.hpp"
#include "crypto/encoding.hpp"

using namespace svc::crypto;

namespace {

// libsodium's minimums keep these tests fast.
const Argon2Params kFast{crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN};
const std::string kLegacyKey = "short-key";

struct Vector {
  std::string stored;
  std::string password;
};

// bcrypt hashes made by real PHP 8.2:
//   php -r 'echo password_hash("correct horse", PASSWORD_BCRYPT, ["cost"=>4]);'
//   php -r 'echo password_hash("", PASSWORD_BCRYPT, ["cost"=>4]);'
//   php -r 'echo password_hash("correct horse", PASSWORD_BCRYPT);'
//   php -r 'echo crypt("pw", "\$2a\$04\$abcdefghijklmnopqrstuu");'
//   php -r 'echo crypt("pw", "\$2b\$04\$abcdefghijklmnopqrstuu");'
const std::vector<Vector> kBcrypt = {
    {"$2y$04$w0Jui/stymPzucyZIlRMXeMN2e5a2rH9T96fqmOtmBVD45pdVMaUe", "correct horse"},
    {"$2y$04$EjitnPuOLuYwMNS1PxIyH.RQ96Jz2kTWsA.V2grit7FrvFvbuoSPq", ""},
    {"$2y$10$BuhSsXFTX.3bMdA32TFSReDt0OkHjvEimGilNLsFtuwDlJvXJ0s2C", "correct horse"},
    {"$2a$04$abcdefghijklmnopqrstuuyvPXIbu7xe6/CED2DzX8z6Si09MlzlW", "pw"},
    {"$2b$04$abcdefghijklmnopqrstuuyvPXIbu7xe6/CED2DzX8z6Si09MlzlW", "pw"},
};

// Legacy "encrypted" passwords made by real PHP 8.2, key "short-key"
// (PHP NUL-pads it to 32 bytes):
//   php -r '$iv=str_repeat("\x01",16); echo base64_encode($iv .
//     openssl_encrypt("legacy secret", "aes-256-cbc", "short-key",
//     OPENSSL_RAW_DATA, $iv));'
const Vector kLegacyShortKey = {"AQEBAQEBAQEBAQEBAQEBAeY59ZBCjVJuFP+21el4C/U=", "legacy secret"};
// Key longer than 32 bytes (PHP truncates it); 16-byte plaintext, so the
// ciphertext ends in a whole padding block:
//   php -r '$iv=hex2bin("000102030405060708090a0b0c0d0e0f");
//     echo base64_encode($iv . openssl_encrypt("exactly16bytes!!",
//     "aes-256-cbc", "0123456789abcdef0123456789abcdef-and-more",
//     OPENSSL_RAW_DATA, $iv));'
const Vector kLegacyLongKey = {"AAECAwQFBgcICQoLDA0OD0PjhG6TJfM1wRH1884zp4FKkDvFGICLTsFo1jWUNA7s", "exactly16bytes!!"};
const std::string kLongKey = "0123456789abcdef0123456789abcdef-and-more";

// Argon2id from PHP's password_hash, params equal to kFast:
//   php -r 'echo password_hash("correct horse", PASSWORD_ARGON2ID,
//     ["memory_cost"=>8, "time_cost"=>1, "threads"=>1]);'
const Vector kPhpArgon2id = {
    "$argon2id$v=19$m=8,t=1,p=1$a3cxV1lXcmJEc0VKMzBGUw$"
    "VOgHN4RiyNpiLH5iOWUlFkbB0SQifDY3BTNtfqDVvvY",
    "correct horse"};

}  // namespace

BOOST_AUTO_TEST_SUITE(password_hasher_test)

BOOST_AUTO_TEST_CASE(argon2id_round_trip) {
  Argon2PasswordHasher hasher(kFast, "");
  const std::string stored = hasher.hash("s3cret pass");
  BOOST_TEST(stored.starts_with("$argon2id$v=19$m=8,t=1,p=1$"));
  BOOST_TEST(stored != hasher.hash("s3cret pass"));  // random salt

  const VerifyResult good = hasher.verify(stored, "s3cret pass");
  BOOST_TEST(good.ok);
  BOOST_TEST(!good.needs_upgrade);
  for (const std::string wrong : {"s3cret pasS", "s3cret pas", "", "s3cret pass "}) {
    const VerifyResult bad = hasher.verify(stored, wrong);
    BOOST_TEST(!bad.ok, "password '" << wrong << "'");
    BOOST_TEST(!bad.needs_upgrade);
  }
}

BOOST_AUTO_TEST_CASE(argon2id_passwords_are_bytes) {
  Argon2PasswordHasher hasher(kFast, "");
  const std::string with_nul("ab\0cd", 5);
  const std::string stored = hasher.hash(with_nul);
  BOOST_TEST(hasher.verify(stored, with_nul).ok);
  BOOST_TEST(!hasher.verify(stored, "ab").ok);
  const std::string long_pw(1024, 'x');
  BOOST_TEST(hasher.verify(hasher.hash(long_pw), long_pw).ok);
  BOOST_TEST(!hasher.verify(hasher.hash(long_pw), long_pw + "x").ok);
}

BOOST_AUTO_TEST_CASE(argon2id_with_default_params) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const std::string stored = hasher.hash("pw");
  BOOST_TEST(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
  const VerifyResult r = hasher.verify(stored, "pw");
  BOOST_TEST(r.ok);
  BOOST_TEST(!r.needs_upgrade);
}

BOOST_AUTO_TEST_CASE(argon2id_with_other_params_needs_upgrade) {
  Argon2PasswordHasher old_hasher(kFast, "");
  Argon2PasswordHasher new_hasher(Argon2Params{crypto_pwhash_OPSLIMIT_MIN + 1, crypto_pwhash_MEMLIMIT_MIN}, "");
  const std::string stored = old_hasher.hash("pw");
  const VerifyResult r = new_hasher.verify(stored, "pw");
  BOOST_TEST(r.ok);
  BOOST_TEST(r.needs_upgrade);
  BOOST_TEST(!new_hasher.verify(stored, "wrong").needs_upgrade);
}

BOOST_AUTO_TEST_CASE(argon2id_from_php_verifies) {
  Argon2PasswordHasher same_params(kFast, "");
  const VerifyResult r = same_params.verify(kPhpArgon2id.stored, kPhpArgon2id.password);
  BOOST_TEST(r.ok);
  BOOST_TEST(!r.needs_upgrade);
  BOOST_TEST(!same_params.verify(kPhpArgon2id.stored, "correct horsE").ok);
}

BOOST_AUTO_TEST_CASE(php_bcrypt_verifies_and_needs_upgrade) {
  Argon2PasswordHasher hasher(kFast, kLegacyKey);
  for (const Vector& v : kBcrypt) {
    BOOST_TEST_CONTEXT(v.stored) {
      const VerifyResult r = hasher.verify(v.stored, v.password);
      BOOST_TEST(r.ok);
      BOOST_TEST(r.needs_upgrade);
      BOOST_TEST(!hasher.verify(v.stored, v.password + "x").ok);
      BOOST_TEST(!hasher.verify(v.stored, v.password + "x").needs_upgrade);
      // crypt_r would stop at the NUL and accept the prefix; we must not.
      BOOST_TEST(!hasher.verify(v.stored, v.password + std::string(1, '\0') + "tail").ok);
      std::string tampered = v.stored;
      tampered.back() = tampered.back() == 'a' ? 'b' : 'a';
      BOOST_TEST(!hasher.verify(tampered, v.password).ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(php_aes_legacy_password_verifies_and_needs_upgrade) {
  struct Case {
    Vector v;
    std::string key;
  };
  for (const Case& c : {Case{kLegacyShortKey, kLegacyKey}, Case{kLegacyLongKey, kLongKey},
                        // Only the first 32 key bytes count, as in PHP.
                        Case{kLegacyLongKey, kLongKey.substr(0, 32)}}) {
    BOOST_TEST_CONTEXT(c.v.stored << " key " << c.key) {
      Argon2PasswordHasher hasher(kFast, c.key);
      const VerifyResult r = hasher.verify(c.v.stored, c.v.password);
      BOOST_TEST(r.ok);
      BOOST_TEST(r.needs_upgrade);
      const std::string& pw = c.v.password;
      for (const std::string& wrong : {pw + "x", pw.substr(0, pw.size() - 1), std::string(""), pw + '\0'}) {
        BOOST_TEST(!hasher.verify(c.v.stored, wrong).ok);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(aes_legacy_fails_with_wrong_or_empty_key) {
  Argon2PasswordHasher wrong_key(kFast, "other-key");
  BOOST_TEST(!wrong_key.verify(kLegacyShortKey.stored, kLegacyShortKey.password).ok);
  Argon2PasswordHasher no_key(kFast, "");
  BOOST_TEST(!no_key.verify(kLegacyShortKey.stored, kLegacyShortKey.password).ok);
  // "short-key" and "short-key\0" are the same key to PHP.
  Argon2PasswordHasher nul_padded(kFast, std::string("short-key\0", 10));
  BOOST_TEST(nul_padded.verify(kLegacyShortKey.stored, kLegacyShortKey.password).ok);
}

BOOST_AUTO_TEST_CASE(garbage_stored_values_never_verify) {
  Argon2PasswordHasher hasher(kFast, kLegacyKey);
  const std::string iv_only = base64_encode(std::string(16, '\x01'));
  const std::vector<std::string> garbage = {
      "",
      "NULL",
      "null",
      "*0",
      "$argon2id$",
      "$argon2id$v=19$m=8,t=1,p=1$garbage$garbage",
      "$argon2i$v=19$m=8,t=1,p=1$a3cxV1lXcmJEc0VKMzBGUw$"
      "VOgHN4RiyNpiLH5iOWUlFkbB0SQifDY3BTNtfqDVvvY",
      kPhpArgon2id.stored + std::string(1, '\0'),
      kPhpArgon2id.stored + std::string(200, 'A'),
      "$2y$04$short",
      "$2y$",
      "$1$saltsalt$abcdefghijklmnopqrstuv",
      "plaintext-password",
      iv_only,
      kLegacyShortKey.stored.substr(0, kLegacyShortKey.stored.size() - 1),
      // ciphertext one byte short of a block
      base64_encode(base64_decode(kLegacyShortKey.stored)->substr(0, 31)),
  };
  for (const std::string& stored : garbage) {
    for (const std::string pw : {"", "x", "NULL", "plaintext-password", "correct horse"}) {
      BOOST_TEST(!hasher.verify(stored, pw).ok, "stored '" << stored << "' password '" << pw << "'");
    }
  }
}

// dummy_verify builds its reference hash once and reuses it: counted in
// Argon2id computations (the arena hands its region to libsodium once per
// computation, crypto/argon2_arena.hpp), not timed. The first call costs a
// hash and a verify, every later one exactly one verify, like verify() of a
// real user. What it costs in time next to a real verify is `make bench`'s
// (login of an unknown vs a known user).
BOOST_AUTO_TEST_CASE(dummy_verify_builds_its_hash_once_then_costs_one_verify) {
  Argon2PasswordHasher hasher(Argon2Params{}, "");
  const std::string stored = hasher.hash("pw");
  std::uint64_t before = argon2_arena_handouts();
  hasher.dummy_verify("pw");  // builds the lazy hash, then verifies against it
  BOOST_TEST(argon2_arena_handouts() == before + 2);
  for (const char* password : {"pw", "other", ""}) {
    before = argon2_arena_handouts();
    hasher.dummy_verify(password);  // reuses it
    BOOST_TEST(argon2_arena_handouts() == before + 1, "password '" << password << "'");
  }
  before = argon2_arena_handouts();
  BOOST_TEST(hasher.verify(stored, "pw").ok);
  BOOST_TEST(argon2_arena_handouts() == before + 1);  // the same cost as one dummy_verify
}

// full_cost says whether a verify ran one Argon2id, right or wrong password:
// a well-formed Argon2id hash does, whatever its parameters (issue 22: an old
// hash plus a dummy cost two); the login service adds a dummy_verify after
// any other failure.
BOOST_AUTO_TEST_CASE(full_cost_for_every_well_formed_argon2id_hash) {
  Argon2PasswordHasher hasher(kFast, kLegacyKey);
  Argon2PasswordHasher other_params(Argon2Params{crypto_pwhash_OPSLIMIT_MIN + 1, crypto_pwhash_MEMLIMIT_MIN}, "");
  const std::string current = hasher.hash("pw");
  const std::string stale = other_params.hash("pw");
  struct Case {
    const char* label;
    std::string stored, password;
    bool ok, full_cost;
  };
  const Case cases[] = {
      {"current, right", current, "pw", true, true},
      {"current, wrong", current, "nope", false, true},
      {"other params, right", stale, "pw", true, true},
      {"other params, wrong", stale, "nope", false, true},
      {"Argon2id prefix, garbage", "$argon2id$v=19$nonsense", "pw", false, false},
      {"bcrypt, right", kBcrypt[0].stored, kBcrypt[0].password, true, false},
      {"bcrypt, wrong", kBcrypt[0].stored, "nope", false, false},
      {"AES, right", kLegacyShortKey.stored, kLegacyShortKey.password, true, false},
      {"AES, wrong", kLegacyShortKey.stored, "nope", false, false},
      {"!", "!", "pw", false, false},
      {"empty", "", "pw", false, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.label) {
      const VerifyResult r = hasher.verify(c.stored, c.password);
      BOOST_TEST(r.ok == c.ok);
      BOOST_TEST(r.full_cost == c.full_cost);
    }
  }
}

BOOST_AUTO_TEST_CASE(verifiable_hashes_are_the_formats_verify_knows) {
  struct Case {
    std::string stored;
    bool with_legacy_key, expected;
  };
  const Case cases[] = {
      {"$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", false, true},
      {kBcrypt[0].stored, false, true},
      {kLegacyShortKey.stored, true, true},
      {kLegacyShortKey.stored, false, false},  // AES needs the legacy key
      {"!", true, false},
      {"*", true, false},
      {"", true, false},
      {"$1$md5crypt-is-not-supported-here-at-all-no-no", true, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.stored << " / key " << c.with_legacy_key) {
      BOOST_TEST(is_verifiable_hash(c.stored, c.with_legacy_key) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(password_fingerprint_is_truncated_hmac) {
  // php -r 'echo bin2hex(substr(hash_hmac("sha256", "\$argon2id\$x",
  //   "fpkey", true), 0, 16));'
  const std::string fp = password_fingerprint("$argon2id$x", "fpkey");
  BOOST_TEST(fp.size() == 22u);
  BOOST_TEST(hex_encode(*base64url_decode(fp)) == "7bf829c2d69488e11bb044300b7290bb");
  BOOST_TEST(fp != password_fingerprint("$argon2id$y", "fpkey"));
  BOOST_TEST(fp != password_fingerprint("$argon2id$x", "fpkey2"));
}

BOOST_AUTO_TEST_SUITE_END()

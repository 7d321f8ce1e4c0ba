"""POST /auth/user-email (and the encrypted-id checks shared with
/auth/user-sms-code and /auth/verify-sms-code) through nginx + workers + MariaDB.

The encrypted id (design: Encrypted ids) is XChaCha20-Poly1305 over
{"uid":N,"exp":unix} with associated data "svc:user-id:v1" (customer ids:
"svc:customer-id:v1"), sent as base64url(nonce || ciphertext) without padding,
key = [keys] id_key. These tests check that format from the outside with PHP's
libsodium binding: tokens minted by `svc-admin mint-user-id` open in PHP, and
tokens sealed in PHP are accepted by the service, so other backends can mint
them from the documentation alone.

Covers: the exact success reply; --ttl (90s, 15m, 1h, 7d and the 1h default)
as seen in the plaintext; 400 Token expired (svc-admin --ttl 1s once that
second has passed, and a PHP token with a past exp) on all three endpoints;
500 generic for a customer id, a tampered / truncated / garbage / wrong-key /
wrong-shape token; 404 User not found; 400 Validation error for a missing,
empty, non-string or oversized userId; hostile strings never leak internals.
"""

import json
import os
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, mint_id, post, sql, sql_value, unique_email
from svc_stack import b64url_decode, config_value

GENERIC_500 = {"status": "Failed", "message": "An error occurred while processing your request"}
EXPIRED = {"status": "Failed", "message": "Token expired"}
NOT_FOUND = {"status": "Failed", "message": "User not found"}
USER_AD = "svc:user-id:v1"
CUSTOMER_AD = "svc:customer-id:v1"
LOOKUP_ENDPOINTS = ("/auth/user-email", "/auth/user-sms-code", "/auth/verify-sms-code")
LEAK_WORDS = ("sql syntax", "sqlstate", "mariadb", "mysql", "exception", "what()", "errno", "sodium", "decrypt")


ID_KEY_HEX = b64url_decode(config_value("keys", "id_key")).hex()

PHP_SEAL = r'''
$key = hex2bin($argv[1]);
$nonce = random_bytes(SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES);
$ct = sodium_crypto_aead_xchacha20poly1305_ietf_encrypt($argv[2], $argv[3], $nonce, $key);
echo sodium_bin2base64($nonce . $ct, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
'''

PHP_OPEN = r'''
$key = hex2bin($argv[1]);
$raw = sodium_base642bin($argv[2], SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
$n = SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES;
$plain = sodium_crypto_aead_xchacha20poly1305_ietf_decrypt(substr($raw, $n), $argv[3], substr($raw, 0, $n), $key);
echo $plain === false ? "FALSE" : $plain;
'''


def php(code, *args):
    out = subprocess.run(["php", "-r", code, "--"] + list(args), capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise AssertionError("php failed: %s %s" % (out.stdout, out.stderr))
    return out.stdout


def php_seal(plaintext, ad=USER_AD, key_hex=None):
    """An encrypted id sealed by PHP's libsodium, independent of the service."""
    return php(PHP_SEAL, key_hex or ID_KEY_HEX, plaintext, ad).strip()


def php_open(token, ad=USER_AD):
    text = php(PHP_OPEN, ID_KEY_HEX, token, ad)
    return None if text == "FALSE" else json.loads(text)


def create_user(prefix="lookup", role=None, mobile="+15550123"):
    email = unique_email(prefix)
    args = ["user", "create", "--email", email]
    if role:
        args += ["--role", role]
    if mobile:
        args += ["--mobile", mobile]
    out = svc_stack.admin(*args, stdin="Pass@1234\n").stdout
    return int(out.strip().splitlines()[-1]), email


def flip(token, index=None):
    i = len(token) // 2 if index is None else index
    return token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1:]


def body_for(path, token):
    body = {"userId": token}
    if path == "/auth/verify-sms-code":
        body["code"] = "123456"
    return body


class UserLookupTest(ApiTest):
    LEAK_WORDS = LEAK_WORDS

    # --- success ------------------------------------------------------------------------

    def test_success_reply_is_exact(self):
        uid, email = create_user("lookup-ok", role="editor")
        reply = post("/auth/user-email", {"userId": mint_id(uid)})
        self.assertExact(reply, 200, {"status": "Success", "email": email, "role": "editor"})
        self.assertEqual(list(reply.json), ["status", "email", "role"])
        # Default role; the token is not single-use.
        uid2, email2 = create_user("lookup-default")
        token = mint_id(uid2)
        for _ in range(2):
            self.assertExact(post("/auth/user-email", {"userId": token}), 200,
                             {"status": "Success", "email": email2, "role": "user"})
        # The demo user.
        self.assertExact(post("/auth/user-email", {"userId": mint_id(1)}), 200,
                         {"status": "Success", "email": "demo@example.com",
                          "role": sql_value("SELECT primary_role FROM svc_users WHERE id = 1")})

    def test_minted_token_format_opens_in_php(self):
        uid, _ = create_user("lookup-fmt")
        for ttl, seconds in ((None, 3600), ("90s", 90), ("15m", 900), ("1h", 3600), ("7d", 7 * 86400)):
            with self.subTest(ttl=ttl):
                now = int(time.time())
                token = mint_id(uid, ttl=ttl)
                self.assertRegex(token, r"^[A-Za-z0-9_-]+$")  # base64url, no padding
                raw = b64url_decode(token)
                self.assertEqual(len(raw), 24 + len(json.dumps({"uid": uid, "exp": now + seconds},
                                                               separators=(",", ":"))) + 16)
                plain = php_open(token)
                self.assertEqual(set(plain), {"uid", "exp"})
                self.assertEqual(plain["uid"], uid)
                self.assertLessEqual(abs(plain["exp"] - (now + seconds)), 5)
                # Negative control: the customer purpose does not open it.
                self.assertIsNone(php_open(token, CUSTOMER_AD))
        customer = mint_id(7, kind="customer")
        self.assertEqual(php_open(customer, CUSTOMER_AD)["uid"], 7)
        self.assertLessEqual(abs(php_open(customer, CUSTOMER_AD)["exp"] - (int(time.time()) + 30 * 86400)), 5)
        self.assertIsNone(php_open(customer, USER_AD))
        # Two mints of the same id differ (random nonce).
        self.assertNotEqual(mint_id(uid), mint_id(uid))

    def test_mint_refuses_bad_arguments(self):
        for args in (("--user", "0"), ("--user", "-4"), ("--user", "abc"), ("--user", "1", "--ttl", "soon"),
                     ("--user", "1", "--ttl", "-1h"), ("--customer", "1"), ()):
            with self.subTest(args=args):
                out = svc_stack.admin("mint-user-id", *args, check=False)
                self.assertNotEqual(out.returncode, 0, out)
                self.assertEqual(out.stdout.strip(), "")

    def test_token_sealed_in_php_is_accepted(self):
        uid, email = create_user("lookup-php", role="viewer")
        now = int(time.time())
        token = php_seal(json.dumps({"uid": uid, "exp": now + 300}, separators=(",", ":")))
        self.assertExact(post("/auth/user-email", {"userId": token}), 200,
                         {"status": "Success", "email": email, "role": "viewer"})
        # Whitespace in the JSON plaintext is JSON too.
        spaced = php_seal('{ "uid" : %d , "exp" : %d }' % (uid, now + 300))
        self.assertExact(post("/auth/user-email", {"userId": spaced}), 200,
                         {"status": "Success", "email": email, "role": "viewer"})
        # Same format, exp in the past: 400 Token expired on every lookup endpoint.
        past = php_seal(json.dumps({"uid": uid, "exp": now - 10}))
        for path in LOOKUP_ENDPOINTS:
            with self.subTest(path=path, case="expired"):
                self.assertExact(post(path, body_for(path, past)), 400, EXPIRED)
        # Same format, wrong purpose / key / shape: 500 generic.
        other_key = os.urandom(32).hex()
        bad = {
            "customer purpose": php_seal(json.dumps({"uid": uid, "exp": now + 300}), CUSTOMER_AD),
            "empty purpose": php_seal(json.dumps({"uid": uid, "exp": now + 300}), ""),
            "other key": php_seal(json.dumps({"uid": uid, "exp": now + 300}), key_hex=other_key),
            "uid as string": php_seal(json.dumps({"uid": str(uid), "exp": now + 300})),
            "exp as string": php_seal(json.dumps({"uid": uid, "exp": str(now + 300)})),
            "no exp": php_seal(json.dumps({"uid": uid})),
            "duplicate uid": php_seal('{"uid":1,"uid":%d,"exp":%d}' % (uid, now + 300)),
            "not json": php_seal("uid=%d" % uid),
            "array": php_seal(json.dumps([uid, now + 300])),
        }
        for name, token in bad.items():
            for path in LOOKUP_ENDPOINTS:
                with self.subTest(case=name, path=path):
                    self.assertExact(post(path, body_for(path, token)), 500, GENERIC_500)

    def expired_lookup(self, token):
        """True when /auth/user-email refuses `token` as expired; False when
        it still answers for the user."""
        reply = post("/auth/user-email", {"userId": token})
        if reply.status == 400:
            self.assertExact(reply, 400, EXPIRED)
            return True
        self.assertEqual(reply.status, 200, reply)
        return False

    def test_expired_admin_token(self):
        uid, _ = create_user("lookup-ttl")
        tokens = {path: mint_id(uid, ttl="1s") for path in LOOKUP_ENDPOINTS}
        # svc-admin sets exp = its clock + 1 s, so every token has expired
        # once the workers' clock reaches this whole second.
        expired_by = int(time.time()) + 1
        fresh = mint_id(uid, ttl="1h")
        for path, token in tokens.items():
            with self.subTest(path=path):
                # Waits on /auth/user-email, which changes nothing while the
                # token still opens (the SMS routes would send a code).
                svc_stack.wait_for_change("a 1 s encrypted id", lambda: self.expired_lookup(token), expired_by)
                self.assertExact(post(path, body_for(path, token)), 400, EXPIRED)
        self.assertEqual(post("/auth/user-email", {"userId": fresh}).status, 200)
        # Expiry is checked before the user is looked up: no SMS went out.
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_sms_codes WHERE user_id = %d" % uid), "0")

    def test_customer_id_is_not_a_user_id(self):
        for path in LOOKUP_ENDPOINTS:
            with self.subTest(path=path):
                self.assertExact(post(path, body_for(path, mint_id(1, kind="customer"))), 500, GENERIC_500)

    def test_undecryptable_tokens_are_500_generic(self):
        uid, _ = create_user("lookup-bad")
        good = mint_id(uid)
        cases = {
            "flipped middle": flip(good),
            "flipped nonce": flip(good, 3),
            "flipped tag": flip(good, len(good) - 3),
            "truncated": good[:-2],
            "extended": good + "AAAA",
            "garbage": "garbage",
            "sql": "' OR 1=1 --",
            "html": "<script>alert(1)</script>",
            "crlf": "abc\r\nX-Injected: 1",
            "short base64": "AAAA",
            "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "unicode": "\u00e9\u00e8\u4e2d\U0001F600",
            "1000 chars": "A" * 1000,
        }
        for name, token in cases.items():
            for path in LOOKUP_ENDPOINTS:
                with self.subTest(case=name, path=path):
                    self.assertExact(post(path, body_for(path, token)), 500, GENERIC_500)
        self.assertEqual(post("/auth/user-email", {"userId": good}).status, 200)

    def test_user_not_found(self):
        uid, _ = create_user("lookup-gone")
        token = mint_id(uid)
        sql("DELETE FROM svc_users WHERE id = %d" % uid)
        for path in LOOKUP_ENDPOINTS:
            with self.subTest(path=path):
                self.assertExact(post(path, body_for(path, token)), 404, NOT_FOUND)
                self.assertExact(post(path, body_for(path, mint_id(9_000_000_000_000))), 404, NOT_FOUND)

    def test_missing_or_malformed_user_id_is_a_validation_error(self):
        for path in LOOKUP_ENDPOINTS:
            for body in ({}, {"userId": ""}, {"userId": None}, {"userId": 1}, {"userId": 1.5},
                         {"userId": True}, {"userId": ["x"]}, {"userId": {"uid": 1}}, {"userId": "A" * 2000},
                         {"user_id": mint_id(1)}, {"userid": mint_id(1)}):
                body = dict(body)
                if path == "/auth/verify-sms-code":
                    body["code"] = "123456"
                with self.subTest(path=path, body=str(body)[:60]):
                    reply = post(path, body)
                    self.assertValidation(reply, "userId")
                    self.assertEqual([e["field"] for e in reply.json["errors"]], ["userId"], reply)
        for raw in (b"{not json", b"[]", b"null", b"\xff\xfe", b'"%s"' % mint_id(1).encode()):
            for path in LOOKUP_ENDPOINTS:
                with self.subTest(path=path, raw=raw[:20]):
                    reply = post(path, raw=raw)
                    self.assertEqual(reply.status, 400, reply)
                    self.assertEqual(reply.json.get("message"), "Validation error", reply)


if __name__ == "__main__":
    svc_stack.main()

"""Access tokens verified by three independent consumers through the JWKS
URL, each exactly as docs/api.md "Verifying access tokens" shows it: npm
`jose` (jose_verify.mjs, createRemoteJWKSet), PyJWT (pyjwt_verify.py,
PyJWKClient, run with /usr/bin/python3) and plain PHP with ext-openssl /
ext-sodium (jwt_check.php); and by the PHP client's own
Client::verifyAccessToken (php_client_verify.php). The documented functions
and the ones these scripts run are the same text (checked here).

Covers: GET /.well-known/jwks.json (RFC 7517 members only, public halves,
Cache-Control max-age=300); real access tokens of login and refresh pass all
three (RFC 9068 header and claims, amr and auth_time kept across refresh);
all three refuse the refresh token, a reset token taken from the mail the
SMTP sink received, a real token of another site's audience, an expired
token, alg none, HS256 keyed with the public key (algorithm confusion), an
unknown kid, and tokens made with the stack's [keys] jwt_secret, which svc's
own bearer check (getFolderLimits) refuses too. Tokens that only a test
could make (expired, wrong issuer) are signed with a key this test publishes
itself: a row of svc_signing_keys whose activate_at lies years ahead, so it
is in the JWKS but never signs (removed afterwards).

Rotation: `signing-keys rotate --now` → two keys published, new tokens carry
the new kid, tokens of the old key still verify; `retire OLD --now` refuses
the key that signs, then removes OLD from the JWKS, its tokens fail, and
refresh still works.

After every change of svc_signing_keys the test waits for [tokens]
key_cache_seconds, the bound within which every worker shows it (the
verifiers fetch the JWKS from whichever worker nginx picks), and then
expects the change on every request.
"""

import hashlib
import hmac
import json
import os
import re
import secrets
import subprocess
import time
import urllib.request

import jwt  # PyJWT (Debian python3-jwt): here only to mint the test's own tokens
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import svc_stack
from svc_stack import ApiTest, admin, post, q, sql, unique_email, wait_for_mail
from svc_stack import b64url, b64url_decode, cache_seconds, config_value, wait_for_every_worker

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
API_MD = os.path.join(REPO, "docs", "api.md")
JOSE = os.path.join(HERE, "jose_verify.mjs")
PYJWT = os.path.join(HERE, "pyjwt_verify.py")
PHP = os.path.join(HERE, "jwt_check.php")
PHP_CLIENT = os.path.join(HERE, "php_client_verify.php")  # clients/php Client::verifyAccessToken
BASE = "http://127.0.0.1:%d" % svc_stack.HTTP_PORT
JWKS_URL = BASE + "/.well-known/jwks.json"
ISSUER = config_value("tokens", "issuer")
SITE1_AUDIENCE = "https://localhost"  # the demo site's domain (scripts/stack.sh)
PASSWORD = "Interop@2026"
KEY_CACHE = cache_seconds("tokens", "key_cache_seconds", 5)  # how long a worker keeps its key set


def get_jwks():
    with urllib.request.urlopen(JWKS_URL, timeout=10) as reply:
        return reply.status, dict(reply.headers), json.loads(reply.read())


def published_kids():
    return [k["kid"] for k in get_jwks()[2]["keys"]]


def on_every_worker(what, condition, changed_by):
    """condition()'s value once no worker may hold a key set older than a
    change of svc_signing_keys made before `changed_by` ([tokens]
    key_cache_seconds): the verifiers fetch the JWKS from any worker."""
    return wait_for_every_worker(what, condition, changed_by, KEY_CACHE)


def parts(token):
    h, p, _ = token.split(".")
    return json.loads(b64url_decode(h)), json.loads(b64url_decode(p))


def run_verifier(name, tokens, audience):
    """One consumer's verdicts, [{"ok": bool, "payload"|"why": ...}], one per token."""
    env = dict(os.environ, SVC_JWKS_URL=JWKS_URL, SVC_ISSUER=ISSUER, SVC_AUDIENCE=audience)
    if name == "jose":
        if not os.path.isdir(os.path.join(REPO, "node_modules", "jose")):
            raise AssertionError("npm package jose is missing: run `npm ci` in %s (package.json pins it)" % REPO)
        cmd = ["node", JOSE]
    elif name == "pyjwt":
        cmd = ["/usr/bin/python3", PYJWT]
    elif name == "php-client":
        cmd = ["php", PHP_CLIENT]
    else:
        cmd = ["php", PHP]
    out = subprocess.run(cmd, input="\n".join(tokens) + "\n", capture_output=True, text=True, env=env, timeout=60)
    if out.returncode not in (0, 1) or (name != "php" and out.returncode != 0):
        raise AssertionError("%s verifier failed (%d): %s" % (name, out.returncode, out.stderr))
    verdicts = []
    for line in out.stdout.splitlines():
        v = json.loads(line)
        ok = v.get("ok", v.get("valid"))
        verdicts.append({"ok": ok, "payload": v.get("payload"),
                         "why": v.get("code") or v.get("reason") or "", "message": v.get("message", "")})
    assert len(verdicts) == len(tokens), out.stdout
    return verdicts


VERIFIERS = ("jose", "pyjwt", "php", "php-client")


class PublishedTestKey:
    """A P-256 key this test holds, published through svc_signing_keys with
    an activate_at years ahead: in the JWKS, never used by svc to sign (the
    sealed private half is a placeholder no worker opens)."""

    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.kid = "interop-%s" % secrets.token_hex(6)
        point = self.private.public_key().public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint)
        now = int(time.time())
        sql("INSERT INTO svc_signing_keys (kid, alg, public_key, private_key_sealed, created_at, activate_at)"
            " VALUES (%s, 'ES256', %s, 'not-sealed', %d, %d)" % (q(self.kid), q(b64url(point)), now, now + 10 * 365 * 86400))
        on_every_worker("test key %s in the JWKS" % self.kid, lambda: self.kid in published_kids(), time.time())

    def remove(self):
        sql("DELETE FROM svc_signing_keys WHERE kid = %s" % q(self.kid))

    def sign(self, claims, header=None):
        headers = {"kid": self.kid, "typ": "at+jwt"}
        headers.update(header or {})
        return jwt.encode(claims, self.private, algorithm="ES256", headers=headers)


def hs256(header, claims, secret):
    signing_input = b64url(json.dumps(header, separators=(",", ":"))) + "." + \
        b64url(json.dumps(claims, separators=(",", ":")))
    return signing_input + "." + b64url(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def reset_token_from_mail(email):
    """The token of the reset link in the mail the SMTP sink received."""
    before = svc_stack.mail_files()
    assert post("/auth/request-pass", {"email": email, "appID": 1}).status == 200
    msg = wait_for_mail(lambda m: email in str(m["To"]), timeout=30, after=before)
    body = msg.get_body(preferencelist=("plain", "html")).get_content()
    tokens = set(re.findall(r"token=([A-Za-z0-9_.-]+)", body))
    assert len(tokens) == 1, body
    return tokens.pop()


def login(email, app_id=1):
    reply = post("/auth/login", {"email": email, "password": PASSWORD, "appID": app_id})
    assert reply.status == 200, reply
    return reply.json["token"]


def refresh(pair):
    reply = post("/auth/refresh-token", {"payload": {"access_token": pair["access_token"],
                                                     "refresh_token": pair["refresh_token"]}})
    assert reply.status == 200, reply
    return reply.json["token"]


def code_block_after(heading, language):
    """The ```language block of docs/api.md under `heading`'s section."""
    with open(API_MD) as f:
        text = f.read()
    section = text[text.index(heading):]
    match = re.search(r"```%s\n(.*?)```" % re.escape(language), section, re.S)
    assert match, "no %s block after %r in docs/api.md" % (language, heading)
    return match.group(1)


class TokenInteropTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        cls.email = unique_email("interop")
        signed_up = post("/auth/sign-up", {"email": cls.email, "password": PASSWORD})
        assert signed_up.status == 200, signed_up
        cls.user_id = signed_up.json["token"]["user"]["id"]
        out = admin("site", "create", "--user-pool", "default", "--name", unique_email("interop-site"), "--domain", "other.example",
                    "--api-key", "none", "--audience", "https://other.example/api").stdout
        cls.other_site = int(out.strip().splitlines()[-1])

    def assertAll(self, tokens, audience, expect_ok, labels, php_reasons=None):
        """Every consumer gives every token the expected verdict (and the PHP
        check, whose reasons are plain words, the expected reason)."""
        for name in VERIFIERS:
            for i, (label, verdict) in enumerate(zip(labels, run_verifier(name, tokens, audience))):
                with self.subTest(verifier=name, token=label):
                    self.assertEqual(verdict["ok"], expect_ok, verdict)
                    if name == "php" and php_reasons:
                        self.assertEqual(verdict["why"], php_reasons[i], verdict)
        return True

    def test_documented_examples_are_the_ones_run_here(self):
        heading = "### Verifying access tokens"
        for language, script, start, end in (
                ("js", JOSE, "const JWKS", "// ----"),
                ("python", PYJWT, "import jwt", "# ----"),
                ("php", PHP, "function svc_verify_access_token", "// ----")):
            with self.subTest(language):
                with open(script) as f:
                    code = f.read()
                documented = code_block_after(heading, language)
                core = code[code.index(start):code.index(end, code.index(start))].strip()
                self.assertIn(core, documented, "docs/api.md %s example differs from %s" % (language, script))

    def test_jwks_publishes_public_keys_only(self):
        status, headers, body = get_jwks()
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("Cache-Control"), "max-age=300")
        self.assertTrue(headers.get("Content-Type", "").startswith("application/json"), headers)
        self.assertEqual(list(body), ["keys"])
        self.assertGreaterEqual(len(body["keys"]), 1)
        for key in body["keys"]:
            with self.subTest(key["kid"]):
                if key["kty"] == "EC":
                    self.assertEqual(set(key), {"kty", "crv", "x", "y", "kid", "alg", "use"})
                    self.assertEqual((key["crv"], key["alg"]), ("P-256", "ES256"))
                    self.assertEqual(len(b64url_decode(key["x"])), 32)
                    self.assertEqual(len(b64url_decode(key["y"])), 32)
                elif key["kty"] == "RSA":  # the ID tokens' key (issue 39)
                    self.assertEqual(set(key), {"kty", "n", "e", "kid", "alg", "use"})
                    self.assertEqual(key["alg"], "RS256")
                    self.assertEqual(len(b64url_decode(key["n"])), 256)
                else:
                    self.assertEqual(set(key), {"kty", "crv", "x", "kid", "alg", "use"})
                    self.assertEqual((key["kty"], key["crv"], key["alg"]), ("OKP", "Ed25519", "EdDSA"))
                self.assertEqual(key["use"], "sig")

    def test_real_access_tokens_pass_every_consumer(self):
        pair = login(self.email)
        before = int(time.time())
        renewed = refresh(pair)
        for label, token in (("login", pair["access_token"]), ("refresh", renewed["access_token"])):
            header, claims = parts(token)
            with self.subTest(label):
                self.assertEqual(header["typ"], "at+jwt")
                self.assertIn(header["alg"], ("ES256", "EdDSA"))
                self.assertIn(header["kid"], published_kids())
                self.assertEqual(set(claims), {"iss", "sub", "aud", "client_id", "iat", "exp", "jti", "auth_time",
                                               "amr", "tbl", "ver", "email_verified", "sid"})
                self.assertRegex(claims["sid"], r"^[A-Za-z0-9_-]{22}$")  # the session (issue 37)
                self.assertIs(claims["email_verified"], False)
                self.assertEqual(claims["iss"], ISSUER)
                self.assertEqual(claims["sub"], str(self.user_id))
                self.assertEqual(claims["aud"], SITE1_AUDIENCE)
                self.assertEqual(claims["client_id"], "1")
                self.assertEqual(claims["amr"], ["pwd"])
                self.assertEqual(claims["tbl"], "svc_users")
                self.assertEqual(claims["exp"] - claims["iat"], 3600)
        # The refreshed token keeps when and how the user signed in.
        self.assertEqual(parts(renewed["access_token"])[1]["auth_time"], parts(pair["access_token"])[1]["auth_time"])
        self.assertLessEqual(parts(pair["access_token"])[1]["auth_time"], before)
        tokens = [pair["access_token"], renewed["access_token"]]
        for name in VERIFIERS:
            for verdict in run_verifier(name, tokens, SITE1_AUDIENCE):
                with self.subTest(verifier=name):
                    self.assertTrue(verdict["ok"], verdict)
                    self.assertEqual(verdict["payload"]["sub"], str(self.user_id))

    def test_every_consumer_refuses_what_is_not_an_access_token_of_this_site(self):
        pair = login(self.email)
        other = login(self.email, self.other_site)
        reset = reset_token_from_mail(self.email)
        # Control: the other site's token is good for that site's audience.
        self.assertAll([other["access_token"]], "https://other.example/api", True, ["other site, own audience"])

        test_key = PublishedTestKey()
        self.addCleanup(test_key.remove)
        now = int(time.time())
        good = dict(parts(pair["access_token"])[1], jti=secrets.token_urlsafe(8))
        # Control: a token of the test's published key passes, so the refusals
        # below are for what was changed, not for the key.
        self.assertAll([test_key.sign(good)], SITE1_AUDIENCE, True, ["control"])

        signer_kid = parts(pair["access_token"])[0]["kid"]
        jwk = next(k for k in get_jwks()[2]["keys"] if k["kid"] == signer_kid)
        public_secrets = [json.dumps(jwk).encode(), b64url_decode(jwk["x"]) + b64url_decode(jwk.get("y", ""))]
        if jwk["kty"] == "EC":
            public = ec.EllipticCurvePublicNumbers(int.from_bytes(b64url_decode(jwk["x"]), "big"),
                                                   int.from_bytes(b64url_decode(jwk["y"]), "big"),
                                                   ec.SECP256R1()).public_key()
            public_secrets.append(public.public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo))
        jwt_secret = b64url_decode(config_value("keys", "jwt_secret"))
        jwt_kid = config_value("keys", "jwt_kid")
        stranger = PublishedTestKey.__new__(PublishedTestKey)  # never published
        stranger.private, stranger.kid = ec.generate_private_key(ec.SECP256R1()), "not-published"

        # (label, token, the PHP check's reason)
        cases = [
            ("refresh token", pair["refresh_token"], "typ is not at+jwt"),
            ("reset token from the mail", reset, "typ is not at+jwt"),
            ("another site's audience", other["access_token"], "wrong aud"),
            ("expired", test_key.sign(dict(good, iat=now - 7200, exp=now - 3600)), "expired"),
            ("wrong issuer", test_key.sign(dict(good, iss="https://evil.example")), "wrong iss"),
            ("typ JWT", test_key.sign(good, {"typ": "JWT"}), "typ is not at+jwt"),
            ("alg none", b64url(json.dumps({"alg": "none", "typ": "at+jwt", "kid": signer_kid})) + "." +
             b64url(json.dumps(good)) + ".", "alg does not match the key"),
            ("unknown kid", stranger.sign(good), "unknown kid"),
            ("[keys] jwt_secret, svc's kid", hs256({"alg": "HS256", "typ": "at+jwt", "kid": signer_kid}, good,
                                                  jwt_secret), "alg does not match the key"),
            ("[keys] jwt_secret, its own kid", hs256({"alg": "HS256", "typ": "at+jwt", "kid": jwt_kid}, good,
                                                    jwt_secret), "unknown kid"),
        ] + [("HS256 keyed with the public key #%d" % i,
              hs256({"alg": "HS256", "typ": "at+jwt", "kid": signer_kid}, good, s), "alg does not match the key")
             for i, s in enumerate(public_secrets)]
        self.assertAll([t for _, t, _ in cases], SITE1_AUDIENCE, False, [label for label, _, _ in cases],
                       [reason for _, _, reason in cases])

        # The real token's signature is no HMAC of [keys] jwt_secret either.
        h, p, s = pair["access_token"].split(".")
        self.assertNotEqual(b64url(hmac.new(jwt_secret, (h + "." + p).encode(), hashlib.sha256).digest()), s)

    def test_svc_own_bearer_check_refuses_jwt_secret_tokens(self):
        demo = post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!", "appID": 1})
        self.assertEqual(demo.status, 200, demo)
        token = demo.json["token"]["access_token"]
        body = {"appID": 1, "table": "svc_folders", "userId": 1}
        ok = post("/auth/getFolderLimits", body, headers={"Authorization": "Bearer " + token})
        self.assertReply(ok, 200)
        header, claims = parts(token)
        secret = b64url_decode(config_value("keys", "jwt_secret"))
        for kid in (header["kid"], config_value("keys", "jwt_kid")):
            for typ in ("at+jwt", "JWT"):
                forged = hs256({"alg": "HS256", "typ": typ, "kid": kid}, dict(claims, jti="forged"), secret)
                with self.subTest(kid=kid, typ=typ):
                    self.assertReply(post("/auth/getFolderLimits", body, headers={"Authorization": "Bearer " + forged}),
                                     401, {"status": "Failed", "message": "Unauthorized"})

    def test_rotation_publishes_first_and_retires_without_breaking_refresh(self):
        pair = login(self.email)
        old_kid = parts(pair["access_token"])[0]["kid"]
        new_kid = admin("signing-keys", "rotate", "--now", "--alg", "EdDSA").stdout.strip()
        rotated = time.time()
        self.assertRegex(new_kid, r"^eddsa-[0-9a-f]{12}$")
        on_every_worker("both keys published", lambda: {old_kid, new_kid} <= set(published_kids()), rotated)
        renewed = on_every_worker("a refreshed token signed by %s" % new_kid,
                                  lambda: (lambda t: t if parts(t["access_token"])[0]["kid"] == new_kid else None)(
                                      refresh(pair)), rotated)
        self.assertEqual(parts(renewed["access_token"])[0]["alg"], "EdDSA")
        # Both the old key's token and the new one verify everywhere.
        self.assertAll([pair["access_token"], renewed["access_token"]], SITE1_AUDIENCE, True, ["old kid", "new kid"])
        listing = admin("signing-keys", "list").stdout
        self.assertRegex(listing, r"(?m)^%s\s+EdDSA\s+signing\s" % re.escape(new_kid))
        self.assertRegex(listing, r"(?m)^%s\s+\S+\s+verifying\s" % re.escape(old_kid))

        # The key that signs cannot be retired at once: rotate first.
        refused = admin("signing-keys", "retire", new_kid, "--now", check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("rotate first", refused.stderr)
        # Without --now the old key stays published until its tokens expired.
        later = admin("signing-keys", "retire", old_kid).stdout
        self.assertRegex(later, r"^%s retired at \d{4}-\d\d-\d\d \d\d:" % re.escape(old_kid))
        self.assertIn(old_kid, published_kids())

        admin("signing-keys", "retire", old_kid, "--now")
        on_every_worker("%s gone from the JWKS" % old_kid, lambda: old_kid not in published_kids(), time.time())
        self.assertAll([pair["access_token"]], SITE1_AUDIENCE, False, ["token of the retired key"])
        after = refresh(renewed)
        self.assertEqual(parts(after["access_token"])[0]["kid"], new_kid)
        self.assertAll([after["access_token"]], SITE1_AUDIENCE, True, ["refreshed after the retirement"])
        self.assertRegex(admin("signing-keys", "list").stdout, r"(?m)^%s\s+\S+\s+retired\s" % re.escape(old_kid))


if __name__ == "__main__":
    svc_stack.main()

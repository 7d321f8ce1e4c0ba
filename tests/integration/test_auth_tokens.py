"""Tokens through nginx + workers + MariaDB: POST /auth/refresh-token and
POST /auth/sign-out, and the JWTs of login / sign-up / refresh checked by an
independent implementation (jwt_check.php: access tokens with ext-openssl /
ext-sodium through the JWKS URL, refresh tokens with PHP hash_hmac and the
secret read from the stack's svc.conf).

Covers: claims and lifetimes of access and refresh tokens; refresh chains;
400 Invalid token format for garbage, an access token, alg none, HS512, an
unknown or missing kid, a tampered payload, a borrowed signature, a missing
refresh_token and wrong types inside payload; 400 Validation error naming
`payload` when there is no payload object (issue 36); 401 Refresh token has expired for a
correctly signed expired token (minted here with hmac + hashlib, with a
non-expired control minted the same way); 401 for a deleted user, an inactive
user and a bumped token_version; sign-out is always 200 with the same body.
"""

import hashlib
import hmac
import json
import os
import secrets
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, post, sql, sql_value, unique_email
from svc_stack import b64url, b64url_decode, cache_seconds, config_value

STRONG = "Token@Test1"
INVALID_FORMAT = {"status": "Failed", "message": "Invalid token format"}
EXPIRED = {"status": "Failed", "message": "Refresh token has expired"}
SIGNED_OUT = {"status": "Success", "message": "Signed out successfully"}
ACCESS_TTL = 3600
REFRESH_TTL = 30 * 86400
JWT_CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jwt_check.php")


KID = config_value("keys", "jwt_kid")
SECRET_B64 = config_value("keys", "jwt_secret")


SECRET = b64url_decode(SECRET_B64)
HEADER_JSON = json.dumps({"alg": "HS256", "typ": "JWT", "kid": KID}, separators=(",", ":"))


def parts(token):
    h, p, s = token.split(".")
    return json.loads(b64url_decode(h)), json.loads(b64url_decode(p)), s


def mint(payload, header=None, secret=SECRET, digest=hashlib.sha256):
    """Signs a JWT here (Python hmac + hashlib), independent of the service."""
    header = header if header is not None else {"alg": "HS256", "typ": "JWT", "kid": KID}
    signing_input = b64url(json.dumps(header, separators=(",", ":"))) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")))
    return signing_input + "." + b64url(hmac.new(secret, signing_input.encode(), digest).digest())


def sign_raw(header_json, payload_json, secret=SECRET):
    """Signs exact JSON texts (for members a dict cannot hold twice, or non-JSON)."""
    signing_input = b64url(header_json) + "." + b64url(payload_json)
    return signing_input + "." + b64url(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


def refresh_claims(user_id, table="svc_users", ver=0, iat=None, exp=None):
    now = int(time.time())
    iat = now if iat is None else iat
    return {"sub": str(user_id), "typ": "refresh", "aud": "svc-refresh", "tbl": table, "ver": ver, "iat": iat,
            "exp": iat + REFRESH_TTL if exp is None else exp, "jti": secrets.token_urlsafe(16)}


ISSUER = config_value("tokens", "issuer")
JWKS_URL = "http://127.0.0.1:%d/.well-known/jwks.json" % svc_stack.HTTP_PORT


def php_check(*tokens, secret_b64=SECRET_B64, audience=None):
    """Verifies tokens with jwt_check.php (HS256 with the secret, or, given
    an audience, as access tokens through the JWKS URL); returns its
    per-token verdicts."""
    env = dict(os.environ, SVC_JWT_SECRET=secret_b64)
    if audience is not None:
        env.update(SVC_JWKS_URL=JWKS_URL, SVC_ISSUER=ISSUER, SVC_AUDIENCE=audience)
    out = subprocess.run(["php", JWT_CHECK], input="\n".join(tokens) + "\n", capture_output=True, text=True,
                         env=env, timeout=30)
    if out.returncode not in (0, 1):
        raise AssertionError("jwt_check.php failed: %s" % out.stderr)
    return [json.loads(line) for line in out.stdout.splitlines()]


def refresh(refresh_token, access_token="unused-access-token"):
    return post("/auth/refresh-token", {"payload": {"access_token": access_token, "refresh_token": refresh_token}})


def sign_up(email=None, table=None):
    """A fresh user and its first tokens: sign-up for the default table; for
    another (not open for sign-up, issue 22) svc-admin creates it and it logs in."""
    email = email or unique_email("tokens")
    body = {"email": email, "password": STRONG, "firstname": "Tok", "lastname": "En"}
    if table:
        svc_stack.admin("user", "create", "--email", email, "--first", "Tok", "--last", "En", "--table", table,
                        stdin=STRONG + "\n")
        reply = post("/auth/login", {"email": email, "password": STRONG, "authTable": table})
    else:
        reply = post("/auth/sign-up", body)
    assert reply.status == 200, reply
    return email, reply.json["token"]


class TokenTest(ApiTest):

    def assertRefreshed(self, reply):
        return self.assertTokenReply(reply, ("access_token", "refresh_token"))

    def assertClaims(self, pair, user_id, table="svc_users", ver=0, app=None):
        """Both tokens verify in PHP and carry the claims of the design: the
        access token (RFC 9068) through the JWKS URL with the audience of
        `app` (the issuer without one), the refresh token with the secret."""
        access = php_check(pair["access_token"], audience="https://localhost" if app == 1 else ISSUER)[0]
        refresh_check = php_check(pair["refresh_token"])[0]
        now = int(time.time())
        for check in (access, refresh_check):
            self.assertTrue(check["valid"], check)
            payload = check["payload"]
            self.assertEqual(payload["sub"], str(user_id))
            self.assertIsInstance(payload["sub"], str)
            self.assertEqual(payload["tbl"], table)
            self.assertEqual(payload["ver"], ver)
            self.assertIsInstance(payload["iat"], int)
            self.assertLessEqual(abs(payload["iat"] - now), 60)
            self.assertIsInstance(payload["jti"], str)
            self.assertGreaterEqual(len(payload["jti"]), 16)
            self.assertEqual(payload["amr"], ["pwd"])
            self.assertIsInstance(payload["auth_time"], int)
            self.assertLessEqual(payload["auth_time"], payload["iat"])
            for secret_field in ("password", "pwd", "hash", "email", "user_email"):
                self.assertNotIn(secret_field, payload)
        header, payload = access["header"], access["payload"]
        self.assertIn(header["alg"], ("ES256", "EdDSA"))
        self.assertEqual(header["typ"], "at+jwt")
        self.assertEqual(set(header), {"alg", "typ", "kid"})
        self.assertEqual(payload["iss"], ISSUER)
        self.assertEqual(payload["aud"], "https://localhost" if app == 1 else ISSUER)
        self.assertEqual(payload.get("client_id"), None if app is None else str(app))
        self.assertEqual(payload["exp"], payload["iat"] + ACCESS_TTL)
        self.assertNotIn("typ", payload)
        header, payload = refresh_check["header"], refresh_check["payload"]
        self.assertEqual(header, {"alg": "HS256", "typ": "JWT", "kid": KID})
        self.assertEqual(payload["typ"], "refresh")
        self.assertEqual(payload["aud"], "svc-refresh")
        self.assertEqual(payload["exp"], payload["iat"] + REFRESH_TTL)
        self.assertEqual(payload.get("app"), app)
        jtis = [access["payload"]["jti"], payload["jti"]]
        self.assertNotEqual(jtis[0], jtis[1])
        return jtis

    # --- independent verification -------------------------------------------------

    def test_checker_rejects_a_wrong_secret_and_a_tampered_token(self):
        # Negative controls: the PHP verifier is able to say no.
        _, token = sign_up()
        other_secret = b64url(secrets.token_bytes(32))
        self.assertFalse(php_check(token["refresh_token"], secret_b64=other_secret)[0]["valid"])
        self.assertFalse(php_check(token["access_token"])[0]["valid"])  # not HS256 with the secret
        self.assertTrue(php_check(token["access_token"], audience=ISSUER)[0]["valid"])
        self.assertFalse(php_check(token["access_token"], audience="https://localhost")[0]["valid"])
        h, p, s = token["refresh_token"].split(".")
        forged = mint(dict(parts(token["refresh_token"])[1], sub="1"))
        self.assertTrue(php_check(forged)[0]["valid"])  # minted here with the real key: valid
        self.assertFalse(php_check(h + "." + forged.split(".")[1] + "." + s)[0]["valid"])

    def test_sign_up_login_and_refresh_tokens_verify_in_php(self):
        email, token = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        seen = set(self.assertClaims(token, uid))

        login = post("/auth/login", {"email": email, "password": STRONG, "appID": 1})
        self.assertReply(login, 200)
        seen.update(self.assertClaims(login.json["token"], uid, app=1))

        pair = self.assertRefreshed(refresh(login.json["token"]["refresh_token"], login.json["token"]["access_token"]))
        seen.update(self.assertClaims(pair, uid, app=1))  # the app of the session is kept
        self.assertEqual(len(seen), 6)  # every token has its own jti

    def test_demo_admin_tokens_verify_in_php(self):
        login = post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!"})
        self.assertReply(login, 200)
        ver = int(sql_value("SELECT token_version FROM svc_users WHERE id = 1"))
        self.assertClaims(login.json["token"], 1, ver=ver)

    # --- refresh: success -------------------------------------------------------------

    def test_refresh_chain(self):
        email, token = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        first = self.assertRefreshed(refresh(token["refresh_token"], token["access_token"]))
        self.assertNotEqual(first["refresh_token"], token["refresh_token"])
        second = self.assertRefreshed(refresh(first["refresh_token"], first["access_token"]))
        third = self.assertRefreshed(refresh(second["refresh_token"]))
        self.assertClaims(third, uid)
        # The access token in the payload may be expired or garbage: only its presence counts.
        expired_access = mint(dict(parts(token["access_token"])[1], iat=1, exp=2))
        self.assertRefreshed(refresh(third["refresh_token"], expired_access))

    def test_refresh_with_a_token_minted_here_works(self):
        # Control for the expiry test below: the same minting with a future exp is accepted.
        email, _ = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        pair = self.assertRefreshed(refresh(mint(refresh_claims(uid))))
        self.assertClaims(pair, uid)

    def test_staff_refresh_keeps_the_table(self):
        email, token = sign_up(table="svc_staff")
        uid = int(sql_value("SELECT id FROM svc_staff WHERE user_email = '%s'" % email))
        self.assertEqual(parts(token["refresh_token"])[1]["tbl"], "svc_staff")
        pair = self.assertRefreshed(refresh(token["refresh_token"]))
        self.assertClaims(pair, uid, table="svc_staff")

    # --- refresh: 400 Invalid token format -------------------------------------------------

    def test_malformed_and_forged_tokens_are_invalid_format(self):
        email, token = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        _, other = sign_up()
        rt, at = token["refresh_token"], token["access_token"]
        h, p, s = rt.split(".")
        header, claims, _ = parts(rt)

        tampered_sub = b64url(json.dumps(dict(claims, sub="1"), separators=(",", ":")))
        tampered_ver = b64url(json.dumps(dict(claims, ver=claims["ver"] + 1), separators=(",", ":")))
        tampered_exp = b64url(json.dumps(dict(claims, exp=claims["exp"] + 10**6), separators=(",", ":")))
        cases = [
            ("garbage", "garbage"),
            ("three dots of nothing", ".."),
            ("three parts of junk", "a.b.c"),
            ("four parts", rt + ".x"),
            ("two parts", h + "." + p),
            ("empty signature", h + "." + p + "."),
            ("signature not base64url", h + "." + p + ".***"),
            ("access token sent as refresh", at),
            ("alg none, no signature",
             b64url(json.dumps({"alg": "none", "typ": "JWT", "kid": KID})) + "." + p + "."),
            ("alg none, old signature",
             b64url(json.dumps({"alg": "none", "typ": "JWT", "kid": KID})) + "." + p + "." + s),
            ("alg None", mint(claims, header={"alg": "None", "typ": "JWT", "kid": KID})),
            ("alg hs256 lower-case", mint(claims, header={"alg": "hs256", "typ": "JWT", "kid": KID})),
            ("alg HS512 re-signed with the real key",
             mint(claims, header={"alg": "HS512", "typ": "JWT", "kid": KID}, digest=hashlib.sha512)),
            ("alg HS384 re-signed with the real key",
             mint(claims, header={"alg": "HS384", "typ": "JWT", "kid": KID}, digest=hashlib.sha384)),
            ("alg RS256", mint(claims, header={"alg": "RS256", "typ": "JWT", "kid": KID})),
            ("unknown kid", mint(claims, header={"alg": "HS256", "typ": "JWT", "kid": "not-" + KID})),
            ("no kid", mint(claims, header={"alg": "HS256", "typ": "JWT"})),
            ("kid as number", mint(claims, header={"alg": "HS256", "typ": "JWT", "kid": 1})),
            ("crit header", mint(claims, header={"alg": "HS256", "typ": "JWT", "kid": KID, "crit": ["exp"]})),
            ("another secret", mint(claims, secret=secrets.token_bytes(32))),
            ("empty secret", mint(claims, secret=b"")),
            ("sub changed, signature kept", h + "." + tampered_sub + "." + s),
            ("ver changed, signature kept", h + "." + tampered_ver + "." + s),
            ("exp changed, signature kept", h + "." + tampered_exp + "." + s),
            ("signature of another token", h + "." + p + "." + other["refresh_token"].split(".")[2]),
            ("typ access minted with the real key", mint(dict(claims, typ="access"))),
            ("no typ", mint({k: v for k, v in claims.items() if k != "typ"})),
            ("no sub", mint({k: v for k, v in claims.items() if k != "sub"})),
            ("sub not a number", mint(dict(claims, sub="abc"))),
            ("sub as SQL", mint(dict(claims, sub="%d OR 1=1" % uid))),
            ("sub zero", mint(dict(claims, sub="0"))),
            ("sub negative", mint(dict(claims, sub="-%d" % uid))),
            ("tbl not allowlisted", mint(dict(claims, tbl="information_schema.tables"))),
            ("tbl with SQL", mint(dict(claims, tbl="svc_users; DROP TABLE svc_users"))),
            ("exp as string", mint(dict(claims, exp=str(claims["exp"])))),
            ("ver as string", mint(dict(claims, ver=str(claims["ver"])))),
            ("duplicate sub member, signed",
             sign_raw(HEADER_JSON, '{"sub":"%d","sub":"1","typ":"refresh","tbl":"svc_users","ver":0,"iat":%d,'
                                   '"exp":%d}' % (uid, claims["iat"], claims["exp"]))),
            ("duplicate typ member, signed",
             sign_raw(HEADER_JSON, '{"sub":"%d","typ":"access","typ":"refresh","tbl":"svc_users","ver":0,'
                                   '"iat":%d,"exp":%d}' % (uid, claims["iat"], claims["exp"]))),
            ("duplicate alg member, signed",
             sign_raw('{"alg":"none","alg":"HS256","typ":"JWT","kid":"%s"}' % KID, json.dumps(claims))),
            ("payload not JSON, signed", sign_raw(HEADER_JSON, "not json")),
            ("payload a JSON array, signed", sign_raw(HEADER_JSON, json.dumps([claims]))),
            ("9 KB token", "a" * 3000 + "." + "b" * 3000 + "." + "c" * 3000),
        ]
        for label, bad in cases:
            with self.subTest(label):
                self.assertReply(refresh(bad, at), 400, INVALID_FORMAT)
        # The genuine token still works after all of that.
        self.assertRefreshed(refresh(rt, at))

    def test_missing_or_mistyped_fields_are_invalid_format(self):
        _, token = sign_up()
        rt, at = token["refresh_token"], token["access_token"]
        # No payload object: a Validation error naming it (issue 36).
        for label, body, message in (
                ("empty body object", {}, "payload is required"),
                ("no payload", {"refresh_token": rt, "access_token": at}, "payload is required"),
                ("payload null", {"payload": None}, "payload is required"),
                ("payload string", {"payload": rt}, "payload must be an object"),
                ("payload array", {"payload": [at, rt]}, "payload must be an object")):
            with self.subTest(label):
                self.assertReply(post("/auth/refresh-token", body), 400, {
                    "status": "Failed", "message": "Validation error",
                    "errors": [{"field": "payload", "message": message}]})
        cases = [
            ("payload empty", {"payload": {}}),
            ("no refresh_token", {"payload": {"access_token": at}}),
            ("no access_token", {"payload": {"refresh_token": rt}}),
            ("refresh_token empty", {"payload": {"access_token": at, "refresh_token": ""}}),
            ("refresh_token null", {"payload": {"access_token": at, "refresh_token": None}}),
            ("refresh_token number", {"payload": {"access_token": at, "refresh_token": 12345}}),
            ("refresh_token object", {"payload": {"access_token": at, "refresh_token": {"token": rt}}}),
            ("refresh_token array", {"payload": {"access_token": at, "refresh_token": [rt]}}),
        ]
        for label, body in cases:
            with self.subTest(label):
                self.assertReply(post("/auth/refresh-token", body), 400, INVALID_FORMAT)

    # --- refresh: 401 ----------------------------------------------------------------------

    def assertRejected401(self, reply):
        self.assertEqual(reply.status, 401, reply)
        self.assertIsNotNone(reply.json, reply)
        self.assertEqual(set(reply.json), {"status", "message"}, reply)
        self.assertEqual(reply.json["status"], "Failed")
        self.assertIsInstance(reply.json["message"], str)
        self.assertTrue(reply.json["message"])

    def test_expired_refresh_token_is_401(self):
        email, _ = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        now = int(time.time())
        for label, claims in (
                ("expired ten days ago", refresh_claims(uid, iat=now - 40 * 86400, exp=now - 10 * 86400)),
                ("expired a minute ago", refresh_claims(uid, iat=now - REFRESH_TTL - 60, exp=now - 60)),
                ("expired at the epoch", refresh_claims(uid, iat=0, exp=1))):
            with self.subTest(label):
                self.assertReply(refresh(mint(claims)), 401, EXPIRED)
        # Expired *and* badly signed is a format error: the signature is checked first.
        forged = mint(refresh_claims(uid, iat=now - 40 * 86400, exp=now - 10 * 86400), secret=b"x" * 32)
        self.assertReply(refresh(forged), 400, INVALID_FORMAT)

    def test_refresh_token_from_before_audiences_is_401_and_other_audiences_are_invalid(self):
        # Decision (docs/decisions.md): a genuine refresh token signed before
        # tokens carried `aud` ends the session like a revoked one.
        email, _ = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        legacy = {k: v for k, v in refresh_claims(uid).items() if k != "aud"}
        self.assertReply(refresh(mint(legacy)), 401, {"status": "Failed", "message": "Refresh token is no longer valid"})
        for aud in ("svc-access", "svc-reset", "svc-refresh ", ["svc-refresh"]):
            with self.subTest(aud=aud):
                self.assertReply(refresh(mint(dict(refresh_claims(uid), aud=aud))), 400, INVALID_FORMAT)
        self.assertRefreshed(refresh(mint(refresh_claims(uid))))

    def assertRejectedOnceCacheBoundPassed(self, refresh_token, changed_by):
        """Exchanges `refresh_token` until it is refused with 401. A worker may
        answer refresh-token from a user row it read at most [auth]
        user_cache_seconds (0 or 1) ago, kept within the whole clock second
        it was read in (docs/configuration.md): until then a worker that read
        the row before the change (made before `changed_by`) may still
        exchange the token; from that bound on every one must refuse it."""
        seconds = cache_seconds("auth", "user_cache_seconds", 1)

        def refused():
            reply = refresh(refresh_token)
            if reply.status == 401:
                self.assertRejected401(reply)
                return True
            self.assertRefreshed(reply)  # the row from before the change
            return False

        svc_stack.wait_for_change("refresh-token after the user row changed", refused, int(changed_by) + seconds)

    def test_deleted_user_is_401(self):
        email, token = sign_up()
        self.assertRefreshed(refresh(token["refresh_token"]))
        sql("DELETE FROM svc_users WHERE user_email = '%s'" % email)
        self.assertRejectedOnceCacheBoundPassed(token["refresh_token"], time.time())

    def test_inactive_user_is_401(self):
        email, token = sign_up()
        sql("UPDATE svc_users SET active = 0 WHERE user_email = '%s'" % email)
        self.assertRejected401(refresh(token["refresh_token"]))

    def test_password_change_revokes_refresh_tokens(self):
        email, token = sign_up()
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = '%s'" % email))
        pair = self.assertRefreshed(refresh(token["refresh_token"]))
        sql("UPDATE svc_users SET token_version = token_version + 1 WHERE id = %d" % uid)
        changed_by = time.time()
        self.assertRejectedOnceCacheBoundPassed(token["refresh_token"], changed_by)
        self.assertRejectedOnceCacheBoundPassed(pair["refresh_token"], changed_by)
        # A fresh login carries the new version and refreshes again.
        login = post("/auth/login", {"email": email, "password": STRONG})
        self.assertReply(login, 200)
        self.assertEqual(parts(login.json["token"]["refresh_token"])[1]["ver"], 1)
        self.assertClaims(self.assertRefreshed(refresh(login.json["token"]["refresh_token"])), uid, ver=1)

    # --- sign-out --------------------------------------------------------------------------

    def test_sign_out_is_always_200(self):
        _, token = sign_up()
        bearer = {"Authorization": "Bearer " + token["access_token"]}
        cases = [
            ("no body", dict()),
            ("empty JSON", dict(body={})),
            ("refreshToken", dict(body={"refreshToken": token["refresh_token"]})),
            ("bearer header", dict(body={"refreshToken": token["refresh_token"]}, headers=bearer)),
            ("bearer garbage", dict(headers={"Authorization": "Bearer garbage"})),
            ("basic auth", dict(headers={"Authorization": "Basic Zm9vOmJhcg=="})),
            ("malformed JSON", dict(raw='{"refreshToken":')),
            ("garbage bytes", dict(raw=b"\x00\xff\xfe garbage \r\n")),
            ("JSON array", dict(raw="[1,2,3]")),
            ("text/plain", dict(raw="hello", headers={"Content-Type": "text/plain"})),
            ("deep nesting", dict(raw="[" * 10000 + "]" * 10000)),
        ]
        for label, kwargs in cases:
            with self.subTest(label):
                reply = post("/auth/sign-out", **kwargs)
                self.assertReply(reply, 200, SIGNED_OUT)
                self.assertTrue(reply.headers.get("content-type", "").startswith("application/json"))
        # The "refreshToken" case ended the session: its refresh token is refused.
        reply = refresh(token["refresh_token"])
        self.assertReply(reply, 401, {"status": "Failed", "message": "Refresh token has been revoked"})


if __name__ == "__main__":
    svc_stack.main()

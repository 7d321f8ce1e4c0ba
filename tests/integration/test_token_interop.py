"""Access tokens verified by a common library, as docs/api.md "Verifying
access tokens" tells a consumer to: npm `jose` (jose_verify.mjs, run with
node; jose from the repository root's node_modules, pinned by package.json)
with alg HS256 only, the key of the token's `kid`, header typ "JWT", aud
"svc-access" and exp.

Covers: real access tokens from sign-up, login and refresh pass the check
(sub and aud as documented); the refresh token of the same login, and a real
reset token read out of the outbox, fail that same check (aud / signature);
so does an expired access token, one with an unknown kid, alg none, and an
access token without aud (as issued before audiences existed).
"""

import hashlib
import hmac
import html
import json
import os
import re
import subprocess
import time
import urllib.parse

import svc_stack
from svc_stack import ApiTest, post, q, sql, unique_email
from svc_stack import b64url, b64url_decode, config_value

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "jose_verify.mjs")
KID = config_value("keys", "jwt_kid")
SECRET_B64 = config_value("keys", "jwt_secret")
PASSWORD = "Interop@2026"


def jose_check(*tokens, keys=None):
    """Runs the documented jose check on each token; returns its verdicts."""
    if not os.path.isdir(os.path.join(REPO, "node_modules", "jose")):
        raise AssertionError("npm package jose is missing: run `npm ci` in %s (package.json pins jose@6.2.18)" % REPO)
    env = dict(os.environ, SVC_JWT_KEYS=json.dumps(keys if keys is not None else {KID: SECRET_B64}))
    out = subprocess.run(["node", SCRIPT], input="\n".join(tokens) + "\n", capture_output=True, text=True,
                         env=env, timeout=60)
    if out.returncode != 0:
        raise AssertionError("jose_verify.mjs failed (%d): %s" % (out.returncode, out.stderr))
    verdicts = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(verdicts) == len(tokens), out.stdout
    return verdicts


def forge(header, payload):
    """HS256 over hand-made JSON with the real access key (to reach the claim checks)."""
    signing_input = b64url(json.dumps(header, separators=(",", ":"))) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")))
    mac = hmac.new(b64url_decode(SECRET_B64), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


def reset_token_of(email):
    """The token of the newest reset mail queued for `email` (read from the outbox)."""
    reply = post("/auth/request-pass", {"email": email, "appID": 1})
    assert reply.status == 200, reply
    rows = sql("SELECT body FROM svc_notification_log WHERE recipient = %s ORDER BY id DESC LIMIT 1" % q(email))
    assert rows, "no reset mail for %s" % email
    links = [html.unescape(h) for h in re.findall(r'href="([^"]*)"', rows[0][0])]
    tokens = [t for link in links for t in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query).get("token", [])]
    assert len(tokens) == 1, rows[0][0]
    return tokens[0]


class TokenInteropTest(ApiTest):
    def test_real_access_tokens_pass_and_refresh_and_reset_tokens_fail_the_documented_check(self):
        email = unique_email("interop")
        signed_up = post("/auth/sign-up", {"email": email, "password": PASSWORD})
        self.assertReply(signed_up, 200)
        uid = signed_up.json["token"]["user"]["id"]
        logged_in = post("/auth/login", {"email": email, "password": PASSWORD, "appID": 1})
        self.assertReply(logged_in, 200)
        pair = logged_in.json["token"]
        refreshed = post("/auth/refresh-token", {"payload": pair})
        self.assertReply(refreshed, 200)
        reset = reset_token_of(email)

        access = [signed_up.json["token"]["access_token"], pair["access_token"],
                  refreshed.json["token"]["access_token"]]
        for verdict in jose_check(*access):
            self.assertTrue(verdict["ok"], verdict)
            self.assertEqual(verdict["payload"]["sub"], str(uid))
            self.assertEqual(verdict["payload"]["aud"], "svc-access")
            self.assertEqual(verdict["payload"]["typ"], "access")

        # The same check refuses the other kinds: a refresh token is signed
        # with the same key but names another audience; a reset token is not
        # even signed with the access tokens' key.
        refresh_verdict, refreshed_verdict, reset_verdict = jose_check(
            pair["refresh_token"], refreshed.json["token"]["refresh_token"], reset)
        for verdict in (refresh_verdict, refreshed_verdict):
            self.assertFalse(verdict["ok"], verdict)
            self.assertEqual(verdict["code"], "ERR_JWT_CLAIM_VALIDATION_FAILED", verdict)
            self.assertIn("aud", verdict["message"])
        self.assertFalse(reset_verdict["ok"], reset_verdict)
        self.assertEqual(reset_verdict["code"], "ERR_JWS_SIGNATURE_VERIFICATION_FAILED", reset_verdict)

    def test_the_check_refuses_expired_foreign_and_pre_audience_tokens(self):
        now = int(time.time())
        header = {"alg": "HS256", "typ": "JWT", "kid": KID}
        claims = {"sub": "1", "typ": "access", "aud": "svc-access", "tbl": "svc_users", "ver": 0,
                  "iat": now - 60, "exp": now + 600, "jti": "interop"}
        cases = [
            ("control: a well-formed access token", forge(header, claims), None),
            ("expired", forge(header, dict(claims, exp=now - 5)), "ERR_JWT_EXPIRED"),
            ("no aud (issued before audiences)", forge(header, {k: v for k, v in claims.items() if k != "aud"}),
             "ERR_JWT_CLAIM_VALIDATION_FAILED"),
            ("aud svc-refresh", forge(header, dict(claims, aud="svc-refresh")), "ERR_JWT_CLAIM_VALIDATION_FAILED"),
            ("unknown kid", forge(dict(header, kid="not-" + KID), claims), "ERR_JWKS_NO_MATCHING_KEY"),
            ("header typ other", forge(dict(header, typ="refresh+jwt"), claims), "ERR_JWT_CLAIM_VALIDATION_FAILED"),
            ("alg none", b64url(json.dumps({"alg": "none", "typ": "JWT", "kid": KID})) + "." +
             b64url(json.dumps(claims)) + ".", "ERR_JOSE_ALG_NOT_ALLOWED"),
        ]
        verdicts = jose_check(*(token for _, token, _ in cases))
        for (label, _, code), verdict in zip(cases, verdicts):
            with self.subTest(label):
                if code is None:
                    self.assertTrue(verdict["ok"], verdict)
                else:
                    self.assertFalse(verdict["ok"], verdict)
                    self.assertEqual(verdict["code"], code, verdict)


if __name__ == "__main__":
    svc_stack.main()

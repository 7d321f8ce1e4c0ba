"""Account takeover (issue 36, items 1 and 4) through nginx + workers +
MariaDB + svc-sender + the SMTP sink.

Covers: a site's access token (aud = the site's audience) is refused by the
account-security routes (TOTP setup, passkey list and register options),
while the sign-in reply's `account_token` (aud = svc's issuer, client_id =
the site) is accepted there, and a refresh reply carries none; enrolling
(TOTP setup and confirm, passkey register options and register) needs a
proven address (403 Email not verified: the pre-hijacker who signed up with
someone else's address on a `--verify-email` site enrols nothing) and a
sign-in less than 10 minutes old (401 Recent sign-in required, log in
again: a refresh token minted here with an old auth_time); the first proof
of an address (an e-mail code, a verification link) removes the factor and
the passkeys enrolled before it and mails the owner, so the code then signs
in without the planted second factor; a password reset ends every session
(the old refresh token is refused) and removes what was enrolled since the
last proof, keeping what is older.
"""

import hashlib
import hmac
import json
import secrets
import time

import svc_stack
from svc_stack import ApiTest, b64url, b64url_decode, cache_seconds, config_value, post, q, sql, sql_value
from svc_stack import unique_email
import runner
from test_email_identity import code_of, create_site, create_user, delivered, links

PASSWORD = "Engine@1843"
NEW_PASSWORD = "Fresh@Pass99"
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}
NOT_VERIFIED = {"status": "Failed", "message": "Email not verified"}
NOT_RECENT = {"status": "Failed", "message": "Recent sign-in required, log in again"}
# A reset ends every session (issue 37) and bumps the token version: the
# refresh is refused by whichever check meets it first.
REVOKED_MESSAGES = ("Refresh token is no longer valid", "Refresh token has been revoked")
ISSUER = config_value("tokens", "issuer")
KID = config_value("keys", "jwt_kid")
JWT_SECRET = b64url_decode(config_value("keys", "jwt_secret"))
ORIGIN = "http://localhost:%d" % svc_stack.HTTP_PORT


def claims(jwt):
    return json.loads(b64url_decode(jwt.split(".")[1]))


def bearer(jwt):
    return {"Authorization": "Bearer " + jwt}


def account_token(token):
    """The sign-in reply's account token (before issue 36 there was none: the access token)."""
    return token.get("account_token", token["access_token"])


def prove(uid, seconds_ago=0):
    sql("UPDATE svc_users SET email_verified_at = FROM_UNIXTIME(%d) WHERE id = %d"
        % (int(time.time()) - seconds_ago, uid))


def plant_factor(uid, created_at):
    """A confirmed TOTP factor enrolled at `created_at` (as an attacker's, before any proof)."""
    sql("INSERT INTO svc_mfa_factors (auth_table, user_id, secret_sealed, created_at, confirmed_at)"
        " VALUES ('svc_users', %d, 'planted', %d, %d)" % (uid, created_at, created_at))


def plant_passkey(site, uid, created_at):
    """A passkey row enrolled at `created_at`; returns its id."""
    cred = secrets.token_urlsafe(16)
    sql("INSERT INTO svc_passkeys (site_id, auth_table, user_id, credential_hash, credential_id, public_key, alg,"
        " user_handle, created_at) VALUES (%d, 'svc_users', %d, %s, %s, 'planted', -7, 'h', %d)"
        % (site, uid, q(hashlib.sha256(cred.encode()).hexdigest()), q(cred), created_at))
    return int(sql_value("SELECT MAX(id) FROM svc_passkeys WHERE user_id = %d" % uid))


def factor_count(uid):
    return int(sql_value("SELECT COUNT(*) FROM svc_mfa_factors WHERE auth_table = 'svc_users' AND user_id = %d"
                         % uid))


def passkey_ids(uid):
    return [int(r[0]) for r in sql("SELECT id FROM svc_passkeys WHERE auth_table = 'svc_users' AND user_id = %d"
                                   " ORDER BY id" % uid)]


def outbox_events(email):
    return [r[0] for r in sql("SELECT event FROM svc_notification_log WHERE recipient = %s ORDER BY id"
                              % q(email))]


def mint_refresh(uid, auth_time, app=None, amr=("pwd",)):
    """A refresh token made here (HS256 with [keys] jwt) whose session began at `auth_time`."""
    now = int(time.time())
    payload = {"sub": str(uid), "typ": "refresh", "aud": "svc-refresh", "tbl": "svc_users", "ver": 0, "iat": now,
               "exp": now + 3600, "jti": secrets.token_urlsafe(16), "auth_time": auth_time, "amr": list(amr)}
    if app is not None:
        payload["app"] = app
    header = {"alg": "HS256", "typ": "JWT", "kid": KID}
    signing_input = b64url(json.dumps(header, separators=(",", ":"))) + "." + \
        b64url(json.dumps(payload, separators=(",", ":")))
    return signing_input + "." + b64url(hmac.new(JWT_SECRET, signing_input.encode(), hashlib.sha256).digest())


def refresh(refresh_token):
    return post("/auth/refresh-token", {"payload": {"access_token": "unused", "refresh_token": refresh_token}})


class AccountSecurityTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Account security", "--rp-id", "localhost", "--origins", ORIGIN)
        cls.verifying = create_site("Account security verify", "--verify-email")

    def login(self, email, site=None):
        body = {"email": email, "password": PASSWORD}
        if site is not None:
            body["appID"] = site
        reply = post("/auth/login", body)
        self.assertReply(reply, 200)
        return reply.json["token"]

    def assertRefusedOnceCacheBoundPassed(self, refresh_token, changed_by):
        """As test_auth_tokens: a worker may answer from a user row read at most
        [auth] user_cache_seconds before the change; from that bound on every
        one refuses the token."""
        def refused():
            reply = refresh(refresh_token)
            if reply.status == 401:
                self.assertEqual(reply.json["status"], "Failed", reply)
                self.assertIn(reply.json["message"], REVOKED_MESSAGES, reply)
                return True
            self.assertReply(reply, 200)
            return False

        seconds = cache_seconds("auth", "user_cache_seconds", 1)
        svc_stack.wait_for_change("refresh-token after the reset", refused, int(changed_by) + seconds)

    # Item 4: only a token whose audience is svc manages account security.
    def test_a_site_token_cannot_manage_account_security(self):
        email, uid = create_user("acct-aud")
        prove(uid)
        token = self.login(email, self.site)
        site_token = token["access_token"]
        self.assertNotEqual(claims(site_token)["aud"], ISSUER)
        for path in ("/auth/mfa/totp/setup", "/auth/passkey/list", "/auth/passkey/register/options"):
            with self.subTest(path=path):
                self.assertExact(post(path, headers=bearer(site_token)), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/passkey/delete", {"id": 1}, headers=bearer(site_token)), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/mfa/disable", {"password": PASSWORD}, headers=bearer(site_token)), 401,
                         UNAUTHORIZED)

        mine = token["account_token"]
        c = claims(mine)
        self.assertEqual((c["aud"], c["client_id"], c["sub"]), (ISSUER, str(self.site), str(uid)))
        self.assertReply(post("/auth/passkey/list", headers=bearer(mine)), 200, {"status": "Success", "passkeys": []})
        self.assertReply(post("/auth/passkey/register/options", headers=bearer(mine)), 200)
        self.assertReply(post("/auth/mfa/totp/setup", headers=bearer(mine)), 200)

        # A refresh yields no account token: the account routes want a fresh sign-in anyway.
        refreshed = refresh(token["refresh_token"])
        self.assertReply(refreshed, 200)
        self.assertEqual(set(refreshed.json["token"]), {"access_token", "refresh_token"})

    # Item 1 (a): the pre-hijacker signs up with someone else's address.
    def test_an_unproven_address_enrols_nothing(self):
        email = unique_email("acct-prehijack")
        signed_up = post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": self.verifying})
        self.assertReply(signed_up, 200)
        mine = account_token(signed_up.json["token"])
        self.assertExact(post("/auth/mfa/totp/setup", headers=bearer(mine)), 403, NOT_VERIFIED)
        self.assertExact(post("/auth/mfa/totp/confirm", {"code": "123456"}, headers=bearer(mine)), 403, NOT_VERIFIED)
        self.assertExact(post("/auth/passkey/register/options", headers=bearer(mine)), 403, NOT_VERIFIED)
        self.assertExact(post("/auth/passkey/register", {"challenge_token": "x" * 43, "credential": {}},
                              headers=bearer(mine)), 403, NOT_VERIFIED)
        uid = int(claims(mine)["sub"])
        self.assertEqual((factor_count(uid), passkey_ids(uid)), (0, []))

    # Item 1 (a): a session that began more than 10 minutes ago enrols nothing.
    def test_an_old_sign_in_enrols_nothing(self):
        email, uid = create_user("acct-stale")
        prove(uid)
        stale = refresh(mint_refresh(uid, int(time.time()) - 11 * 60))
        self.assertReply(stale, 200)
        old = stale.json["token"]["access_token"]
        self.assertEqual(claims(old)["aud"], ISSUER)  # issued without an appID: svc's own audience
        self.assertExact(post("/auth/mfa/totp/setup", headers=bearer(old)), 401, NOT_RECENT)
        self.assertExact(post("/auth/passkey/register/options", headers=bearer(old)), 401, NOT_RECENT)
        self.assertReply(post("/auth/passkey/list", headers=bearer(old)), 400)  # listing is allowed (no rp_id: 400)
        self.assertEqual(factor_count(uid), 0)
        recent = refresh(mint_refresh(uid, int(time.time()) - 9 * 60))
        self.assertReply(post("/auth/mfa/totp/setup", headers=bearer(recent.json["token"]["access_token"])), 200)

    # Item 1 (b): the first proof removes what was enrolled before it.
    def test_the_first_proof_by_an_email_code_removes_earlier_factors(self):
        email, uid = create_user("acct-first-code")
        long_ago = int(time.time()) - 86400
        plant_factor(uid, long_ago)
        plant_passkey(self.site, uid, long_ago)
        self.assertReply(post("/auth/email-code", {"email": email, "appID": 1}), 200)
        code = code_of(delivered(email))
        reply = post("/auth/email-code/verify", {"email": email, "appID": 1, "code": code})
        # The planted second factor is gone before the sign-in looks for one.
        self.assertTokenReply(reply)
        self.assertEqual((factor_count(uid), passkey_ids(uid)), (0, []))
        events = outbox_events(email)
        self.assertIn("mfa-disabled", events)
        self.assertIn("passkey-removed", events)

    def test_the_first_proof_by_a_verification_link_removes_earlier_factors(self):
        email = unique_email("acct-first-link")
        signed_up = post("/auth/sign-up", {"email": email, "password": PASSWORD, "appID": self.verifying})
        uid = int(claims(signed_up.json["token"]["access_token"])["sub"])
        plant_factor(uid, int(time.time()) - 5)
        plant_passkey(self.site, uid, int(time.time()) - 5)
        found = [link for link in links(delivered(email)) if "#token=" in link]
        self.assertEqual(len(found), 1, found)
        self.assertReply(post("/auth/verify-email", {"token": found[0].split("#token=", 1)[1]}), 200)
        self.assertEqual((factor_count(uid), passkey_ids(uid)), (0, []))
        self.assertIn("passkey-removed", outbox_events(email))
        # A later proof removes nothing more.
        later = plant_passkey(self.site, uid, int(time.time()))
        self.assertReply(post("/auth/email-code", {"email": email, "appID": self.verifying}), 200)
        self.assertTokenReply(post("/auth/email-code/verify", {"email": email, "appID": self.verifying,
                                                               "code": code_of(delivered(email))}))
        self.assertEqual(passkey_ids(uid), [later])

    # Item 1 (c): a reset ends every session and removes what came since the last proof.
    def test_a_reset_ends_sessions_and_removes_what_was_enrolled_since_the_last_proof(self):
        email, uid = create_user("acct-reset")
        now = int(time.time())
        older = plant_passkey(self.site, uid, now - 2000)
        prove(uid, seconds_ago=1000)
        plant_passkey(self.site, uid, now - 100)
        plant_factor(uid, now - 100)
        session = post("/auth/login", {"email": email, "password": PASSWORD, "appID": 1})
        self.assertEqual(session.status, 401, session)  # the factor enrolled since guards the login

        self.assertReply(post("/auth/request-pass", {"email": email, "appID": 1}), 200)
        link = next(link for link in links(delivered(email)) if "token=" in link)
        token = link.split("token=", 1)[1].split("&", 1)[0].split("#", 1)[0]
        stolen = mint_refresh(uid, now - 60)
        self.assertReply(refresh(stolen), 200)
        self.assertReply(post("/auth/reset-pass", {"reset_password_token": token, "password": NEW_PASSWORD,
                                                   "confirmPassword": NEW_PASSWORD}), 200)
        reset_at = time.time()
        self.assertEqual(factor_count(uid), 0)
        self.assertEqual(passkey_ids(uid), [older])
        self.assertGreaterEqual(int(sql_value("SELECT UNIX_TIMESTAMP(email_verified_at) FROM svc_users WHERE id = %d"
                                              % uid)), now)
        self.assertRefusedOnceCacheBoundPassed(stolen, reset_at)
        events = outbox_events(email)
        self.assertIn("mfa-disabled", events)
        self.assertIn("passkey-removed", events)
        relogin = post("/auth/login", {"email": email, "password": NEW_PASSWORD, "appID": 1})
        self.assertTokenReply(relogin)


if __name__ == "__main__":
    runner.main()

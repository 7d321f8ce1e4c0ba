"""The OpenID Connect provider's hardening (issue 48, docs/decisions.md
"Issue 48"), each case the attack as it ran before the fix, through nginx:

- a third-party client's access token is no site token: it names the
  client and its scope, has the site's OpenID Connect issuer as audience,
  and the documented backend checks, getFolderLimits and sign-out `global`
  refuse it; no refresh token without offline_access, which the consent
  page shows;
- an OAuth client's refresh token works only at the token endpoint, with
  the client's authentication, never at /auth/refresh-token;
- sign-out `global` / `others` only for a live token of an open session;
- end-session signs out at once only for the browser's own sign-in;
- a redirect URI with user information is no loopback URI;
- introspection: a third-party client learns only about its own tokens.
"""

import json
import time
import urllib.parse
import warnings

warnings.simplefilter("ignore", ResourceWarning)  # each simulated browser keeps its requests session

import requests  # noqa: E402

import svc_stack  # noqa: E402
import test_oidc_authlib as oa  # noqa: E402  (imported as a module: its tests do not run here)
import test_token_interop as interop  # noqa: E402
from svc_stack import ApiTest, admin, b64url_decode, post, q, sql, sql_value  # noqa: E402

META = requests.get(oa.ISSUER + "/.well-known/openid-configuration").json()
REVOKED = {"status": "Failed", "message": "Refresh token has been revoked"}
WRONG_ENDPOINT = {"status": "Failed", "message": "Refresh token belongs to an OAuth client: use its token endpoint"}


def claims(token):
    return json.loads(b64url_decode(token.split(".")[1]))


def authorize_url(client, scope, **extra):
    params = {"client_id": client["client_id"], "redirect_uri": oa.CALLBACK, "response_type": "code",
              "scope": scope, "state": "st"}
    params.update(extra)
    return META["authorization_endpoint"] + "?" + urllib.parse.urlencode(params)


def exchange(client, code, secret=None):
    return requests.post(META["token_endpoint"], hooks={"response": oa.check_reply},
                         auth=(client["client_id"], secret or client["client_secret"]),
                         data={"grant_type": "authorization_code", "code": code, "redirect_uri": oa.CALLBACK})


def tokens_of(client, browser, email, scope):
    """The client's tokens for `email` signed in (and consenting) in `browser`."""
    params, _ = oa.callback_params(browser.sign_in(authorize_url(client, scope), email))
    reply = exchange(client, params["code"])
    assert reply.status_code == 200, reply.text
    return reply.json()


def refresh_at_token_endpoint(client, refresh_token, secret=None):
    auth = (client["client_id"], secret) if secret is not None else None
    data = {"grant_type": "refresh_token", "refresh_token": refresh_token}
    if auth is None:
        data["client_id"] = client["client_id"]
    return requests.post(META["token_endpoint"], auth=auth, data=data, hooks={"response": oa.check_reply})


def site_refresh(pair):
    return post("/auth/refresh-token", {"payload": {"access_token": pair["access_token"],
                                                    "refresh_token": pair["refresh_token"]}})


def folder_limits(user_id, access_token):
    return post("/auth/getFolderLimits", {"appID": 1, "table": "svc_folders", "userId": user_id},
                headers={"Authorization": "Bearer " + access_token})


def sign_out(body, access_token=None):
    headers = {"Authorization": "Bearer " + access_token} if access_token else None
    reply = post("/auth/sign-out", body, headers=headers)
    assert reply.status == 200, reply
    return reply


class OAuthTokenScopeTest(ApiTest):
    """Item 2: a third-party client's access token is not a site token."""

    @classmethod
    def setUpClass(cls):
        cls.third = oa.new_client(name="Third-party RP")
        cls.first = oa.new_client("--first-party", name="First-party RP")

    def test_a_third_party_token_names_its_client_and_no_site_backend_accepts_it(self):
        email, site_pair = oa.new_user("oidc-3p")
        user_id = claims(site_pair["access_token"])["sub"]
        token = tokens_of(self.third, oa.Browser(), email, "openid")
        # RFC 9068: the client and the scope it was granted; the site's issuer as audience.
        c = claims(token["access_token"])
        self.assertEqual((c["client_id"], c["scope"], c["aud"]), (self.third["client_id"], "openid", oa.ISSUER))
        self.assertNotIn("refresh_token", token)  # no offline_access, no refresh token
        # The documented backend checks (jose, PyJWT, the PHP check and the PHP client) refuse it.
        for name in interop.VERIFIERS:
            verdict = interop.run_verifier(name, [token["access_token"]], interop.SITE1_AUDIENCE)[0]
            self.assertFalse(verdict["ok"], (name, verdict))
        # svc's site-token route refuses it; the site's own token passes.
        self.assertReply(folder_limits(int(user_id), token["access_token"]), 401,
                         {"status": "Failed", "message": "Unauthorized"})
        self.assertEqual(folder_limits(int(user_id), site_pair["access_token"]).status, 200)
        # It still serves what it was granted: userinfo.
        got = requests.get(META["userinfo_endpoint"], headers={"Authorization": "Bearer " + token["access_token"]})
        self.assertEqual((got.status_code, got.json()["sub"]), (200, user_id))
        # Sign-out global with it ends only its own session: the site's stays.
        sign_out({"scope": "global"}, token["access_token"])
        self.assertEqual(site_refresh(site_pair).status, 200)
        gone = requests.get(META["userinfo_endpoint"], headers={"Authorization": "Bearer " + token["access_token"]})
        self.assertEqual(gone.status_code, 401)

    def test_a_first_party_token_names_its_client_and_is_the_sites(self):
        email, site_pair = oa.new_user("oidc-1p")
        user_id = int(claims(site_pair["access_token"])["sub"])
        token = tokens_of(self.first, oa.Browser(), email, "openid email")
        c = claims(token["access_token"])
        self.assertEqual((c["client_id"], c["scope"], c["aud"]),
                         (self.first["client_id"], "openid email", interop.SITE1_AUDIENCE))
        self.assertNotIn("refresh_token", token)  # a confidential client too: only with offline_access
        self.assertEqual(folder_limits(user_id, token["access_token"]).status, 200)
        for name in interop.VERIFIERS:
            verdict = interop.run_verifier(name, [token["access_token"]], interop.SITE1_AUDIENCE)[0]
            self.assertTrue(verdict["ok"], (name, verdict))

    def test_offline_access_is_shown_on_the_consent_page_and_alone_brings_a_refresh_token(self):
        email, _ = oa.new_user("oidc-offline")
        browser = oa.Browser()
        reply = browser.get(authorize_url(self.third, "openid offline_access"))
        page = browser.get(reply.headers["Location"])
        consent = browser.submit(page, email=email, password=oa.PASSWORD)
        self.assertEqual(consent.status_code, 200)
        self.assertIn('<p id="offline-access">', consent.text)
        self.assertIn("stay signed in while you are away", consent.text)
        params, _ = oa.callback_params(browser.submit(consent, decision="allow"))
        token = exchange(self.third, params["code"]).json()
        self.assertIn("refresh_token", token)
        fresh = refresh_at_token_endpoint(self.third, token["refresh_token"], self.third["client_secret"])
        self.assertEqual(fresh.status_code, 200, fresh.text)
        self.assertEqual(claims(fresh.json()["access_token"])["aud"], oa.ISSUER)  # the refresh keeps the audience
        self.assertEqual(claims(fresh.json()["access_token"])["client_id"], self.third["client_id"])
        # Without offline_access the consent page says nothing of it.
        other = oa.Browser()
        page = other.get(other.get(authorize_url(self.third, "openid", prompt="consent")).headers["Location"])
        consent = other.submit(page, email=email, password=oa.PASSWORD)
        self.assertIn('<p id="offline-access" hidden>', consent.text)


class OAuthRefreshTest(ApiTest):
    """Item 3: an OAuth client's refresh token works only at the token endpoint."""

    def test_a_confidential_clients_refresh_token_is_refused_at_the_site_api(self):
        client = oa.new_client(name="Refresh RP")
        email, _ = oa.new_user("oidc-refresh")
        token = tokens_of(client, oa.Browser(), email, "openid offline_access")
        pair = {"access_token": token["access_token"], "refresh_token": token["refresh_token"]}
        self.assertExact(site_refresh(pair), 400, WRONG_ENDPOINT)
        # Nothing rotated: the token still works where the client authenticates...
        self.assertEqual(refresh_at_token_endpoint(client, token["refresh_token"], "wrong").status_code, 401)
        self.assertEqual(refresh_at_token_endpoint(client, token["refresh_token"]).status_code, 401)
        fresh = refresh_at_token_endpoint(client, token["refresh_token"], client["client_secret"])
        self.assertEqual(fresh.status_code, 200, fresh.text)
        # ... and the rotated one is no more welcome at the site API.
        self.assertExact(site_refresh({"access_token": "x" * 10, "refresh_token": fresh.json()["refresh_token"]}),
                         400, WRONG_ENDPOINT)


class SignOutScopeTest(ApiTest):
    """Item 7: `others` and `global` only for a live token of an open session."""

    def test_a_token_of_an_ended_session_does_not_sign_the_user_out_everywhere(self):
        email, old = oa.new_user("signout-dead")
        # The owner ends every session (as a password reset does), then signs in again.
        self.assertIn("session(s) revoked", admin("sessions", "revoke", "--email", email).stdout)
        new = post("/auth/login", {"email": email, "password": oa.PASSWORD, "appID": 1}).json["token"]
        # The old refresh token, and the old access token (not expired yet), ask for global.
        sign_out({"refreshToken": old["refresh_token"], "scope": "global"})
        sign_out({"scope": "global"}, old["access_token"])
        sign_out({"scope": "others"}, old["account_token"])
        self.assertEqual(site_refresh(new).status, 200)

    def test_a_token_from_before_a_password_change_does_not_either(self):
        email, old = oa.new_user("signout-ver")
        new = post("/auth/login", {"email": email, "password": oa.PASSWORD, "appID": 1}).json["token"]
        # The password changed since the token (token_version); its session row is left
        # open here, so only the version tells the old token from a live one.
        sql("UPDATE svc_users SET token_version = token_version + 1 WHERE user_email = %s" % q(email))
        svc_stack.wait_for_every_worker(  # workers keep a user row up to [auth] user_cache_seconds
            "the new token_version", lambda: site_refresh(old).status == 401, time.time(),
            svc_stack.cache_seconds("auth", "user_cache_seconds", 1))
        sign_out({"refreshToken": old["refresh_token"], "scope": "global"})
        open_sessions = sql_value("SELECT COUNT(*) FROM svc_sessions WHERE user_id = %s AND revoked_at IS NULL"
                                  % claims(new["access_token"])["sub"])
        self.assertEqual(open_sessions, "1")  # only the old token's own session ended

    def test_a_live_token_still_signs_out_everywhere(self):
        email, first = oa.new_user("signout-live")
        second = post("/auth/login", {"email": email, "password": oa.PASSWORD, "appID": 1}).json["token"]
        sign_out({"refreshToken": first["refresh_token"], "scope": "global"})
        self.assertExact(site_refresh(second), 401, REVOKED)


class EndSessionHintTest(ApiTest):
    """Item 8: someone else's id_token_hint does not sign this browser out."""

    def test_another_users_hint_asks_first_and_the_browsers_own_does_not(self):
        client = oa.new_client("--first-party", name="Logout RP")
        attacker_email, _ = oa.new_user("logout-attacker")
        victim_email, _ = oa.new_user("logout-victim")
        attacker_token = tokens_of(client, oa.Browser(), attacker_email, "openid")
        victim = oa.Browser()
        victim_token = tokens_of(client, victim, victim_email, "openid")
        hint_url = META["end_session_endpoint"] + "?" + urllib.parse.urlencode(
            {"id_token_hint": attacker_token["id_token"], "post_logout_redirect_uri": oa.LOGOUT_TARGET})
        page = victim.get(hint_url)
        self.assertEqual((page.status_code, "Location" in page.headers), (200, False))
        self.assertIn('name="csrf"', page.text)  # the confirmation, not a sign-out
        # The victim is still signed in: prompt=none gets a code.
        still = victim.get(authorize_url(client, "openid", prompt="none"))
        self.assertIn("code", oa.callback_params(still)[0])
        # The attacker's session was not ended by the victim's browser either.
        intro = requests.post(META["introspection_endpoint"], auth=(client["client_id"], client["client_secret"]),
                              data={"token": attacker_token["access_token"]}).json()
        self.assertTrue(intro["active"])
        # The browser's own hint signs out at once.
        own = victim.get(META["end_session_endpoint"] + "?" + urllib.parse.urlencode(
            {"id_token_hint": victim_token["id_token"], "post_logout_redirect_uri": oa.LOGOUT_TARGET}))
        self.assertEqual((own.status_code, own.headers.get("Location")), (302, oa.LOGOUT_TARGET))
        gone = victim.get(authorize_url(client, "openid", prompt="none"))
        self.assertEqual(oa.callback_params(gone)[0]["error"], "login_required")


class RedirectUriTest(ApiTest):
    """Item 11: user information in a redirect URI makes it no loopback URI."""

    EVIL = "http://127.0.0.1:80@evil.example/cb"

    def test_userinfo_is_refused_at_registration_and_never_redirected_to(self):
        refused = admin("oauth-client", "create", "--site", "1", "--name", "Userinfo RP", "--redirect-uri", self.EVIL,
                        check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("user information", refused.stderr + refused.stdout)
        refused = admin("oauth-client", "create", "--site", "1", "--name", "Userinfo RP", "--redirect-uri",
                        "https://user:pw@rp.example/cb", check=False)
        self.assertNotEqual(refused.returncode, 0)
        # A client registered before the rule: the authorization endpoint shows a page, never a redirect.
        client = oa.new_client(name="Old RP")
        sql("UPDATE svc_oauth_clients SET redirect_uris = %s WHERE client_id = %s"
            % (q(self.EVIL), q(client["client_id"])))
        params = {"client_id": client["client_id"], "redirect_uri": self.EVIL, "response_type": "code",
                  "scope": "openid", "state": "s"}
        reply = requests.get(META["authorization_endpoint"] + "?" + urllib.parse.urlencode(params),
                             allow_redirects=False)
        self.assertEqual((reply.status_code, "Location" in reply.headers), (400, False))


class IntrospectionTest(ApiTest):
    """Decided with issue 48: a third-party client introspects only its own tokens."""

    def test_a_third_party_client_learns_nothing_of_another_clients_token(self):
        owner = oa.new_client(name="Owner RP")
        nosy = oa.new_client(name="Nosy RP")
        site_backend = oa.new_client("--first-party", name="Site backend")
        email, _ = oa.new_user("intro")
        token = tokens_of(owner, oa.Browser(), email, "openid")

        def introspect(client):
            return requests.post(META["introspection_endpoint"], auth=(client["client_id"], client["client_secret"]),
                                 data={"token": token["access_token"]}, hooks={"response": oa.check_reply}).json()

        self.assertEqual(introspect(nosy), {"active": False})
        self.assertTrue(introspect(owner)["active"])
        self.assertEqual(introspect(site_backend)["client_id"], owner["client_id"])


if __name__ == "__main__":
    svc_stack.main()

"""The OpenID Connect provider (issue 39, docs/oidc.md) through nginx, with
python3-authlib as an independent relying party: discovery and the JWKS,
the authorization code flow with PKCE through the hosted sign-in form
(driven with plain HTTP posts that keep the page's CSRF token), consent,
single sign-on, refresh with rotation, userinfo by GET and POST,
revocation, introspection, end-session; authlib verifies every RS256 ID
token against the published JWKS itself.

The bad-input class covers RFC 6749's and OpenID Connect's error cases:
each is the standard error, never a 500, and issues nothing.

Every reply, authlib's included (a requests response hook), is checked
against docs/openapi.yaml.
"""

import hashlib
import html.parser
import json
import os
import time
import urllib.parse
import warnings

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # the stack's issuer is loopback http
# Each simulated browser and relying party keeps its own requests session;
# their pooled sockets close with the process.
warnings.simplefilter("ignore", ResourceWarning)

import requests  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from authlib.jose import JsonWebKey, jwt  # noqa: E402
from authlib.oidc.core import CodeIDToken  # noqa: E402
from authlib.common.security import generate_token  # noqa: E402

import openapi_check  # noqa: E402
import svc_stack  # noqa: E402
from svc_stack import ApiTest, admin, post, q, sql, sql_value, unique_email  # noqa: E402
from test_email_identity import code_of, create_site, delivered  # noqa: E402
from test_mfa import settle, step_now, totp  # noqa: E402

PASSWORD = "Oidc@Test2026"
BASE = "http://localhost:%d" % svc_stack.HTTP_PORT  # the stack's oidc_issuer
ISSUER = BASE + "/oidc/1"
CALLBACK = "http://127.0.0.1:9/callback"
LOGOUT_TARGET = "http://127.0.0.1:9/signed-out"


def check_reply(response, *args, **kwargs):
    """requests hook: every reply is what docs/openapi.yaml documents."""
    path = urllib.parse.urlsplit(response.request.url).path
    headers = {k.lower(): v for k, v in response.headers.items()}
    openapi_check.check(response.request.method, path, response.status_code, headers, response.content)


def checked(session):
    session.hooks["response"].append(check_reply)
    return session


def new_client(*flags, name="RP"):
    out = admin("oauth-client", "create", "--site", "1", "--name", name, "--redirect-uri", CALLBACK,
                "--post-logout-redirect-uri", LOGOUT_TARGET, "--json", *flags).stdout
    return json.loads(out)


def new_user(prefix="oidc"):
    email = unique_email(prefix)
    reply = post("/auth/sign-up", {"email": email, "password": PASSWORD, "firstname": "Olga", "lastname": "Idc"})
    assert reply.status == 200, reply
    return email, reply.json["token"]


def new_totp_user(prefix):
    """A new user with TOTP on: (email, TOTP secret)."""
    email, token = new_user(prefix)
    sql("UPDATE svc_users SET email_verified_at = NOW() WHERE user_email = %s" % q(email))  # setup wants it
    bearer = {"Authorization": "Bearer " + token["account_token"]}
    secret = post("/auth/mfa/totp/setup", headers=bearer).json["secret"]
    assert post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)}, headers=bearer).status == 200
    return email, secret


class Inputs(html.parser.HTMLParser):
    """The form's action and its inputs' name -> value, as a browser reads them."""

    def __init__(self, text):
        super().__init__()
        self.action = None
        self.values = {}
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.action = a.get("action")
        elif tag == "input" and a.get("name"):
            self.values[a["name"]] = a.get("value") or ""


class Browser:
    """A user agent: a cookie jar, redirects followed by hand so each hop is seen."""

    def __init__(self):
        self.http = checked(requests.Session())

    def get(self, url):
        return self.http.get(urllib.parse.urljoin(BASE, url), allow_redirects=False)

    def submit(self, page, **fields):
        """Posts the page's form as a browser would: its hidden fields (the
        CSRF token among them) and `fields`."""
        form = Inputs(page.text)
        values = {k: v for k, v in form.values.items() if k in ("request", "csrf", "mfa_token")}
        values.update(fields)
        return self.http.post(urllib.parse.urljoin(BASE, form.action), data=values, allow_redirects=False)

    def sign_in(self, url, email, password=PASSWORD, consent=True):
        """Opens the authorization URL, signs in on the hosted page (and
        allows the consent page when it comes); returns the final redirect
        back to the client."""
        reply = self.get(url)
        if reply.status_code == 302 and reply.headers["Location"].startswith("/auth/oidc/sign-in"):
            page = self.get(reply.headers["Location"])
            assert page.status_code == 200, page.text
            reply = self.submit(page, email=email, password=password)
        if reply.status_code == 200 and consent:
            reply = self.submit(reply, decision="allow")
        return reply


def callback_params(reply):
    assert reply.status_code in (302, 303), (reply.status_code, reply.text[:300])
    location = reply.headers["Location"]
    assert location.startswith(CALLBACK + "?"), location
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)), location


def verified_id_token(id_token, client_id, nonce=None, access_token=None):
    """authlib's own check of an ID token: signature by a key of the JWKS,
    iss, aud, exp, iat, nonce, at_hash."""
    jwks = requests.get(ISSUER + "/jwks").json()
    claims = jwt.decode(id_token, JsonWebKey.import_key_set(jwks), claims_cls=CodeIDToken,
                        claims_options={"iss": {"essential": True, "value": ISSUER},
                                        "aud": {"essential": True, "value": client_id}},
                        claims_params={"nonce": nonce, "client_id": client_id, "access_token": access_token})
    claims.validate()
    assert claims.header["alg"] == "RS256", claims.header
    return claims


def session_for(client, scope="openid email profile", **kw):
    return checked(OAuth2Session(client["client_id"], client.get("client_secret"), scope=scope,
                                 redirect_uri=CALLBACK, code_challenge_method="S256", **kw))


class OidcTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.meta = requests.get(ISSUER + "/.well-known/openid-configuration").json()
        cls.confidential = new_client("--first-party", name="Confidential RP")
        cls.public = new_client("--public", name="Public RP")

    def assertExpiredPage(self, reply):
        """A hosted form refused (its request unknown, or its CSRF token not
        this browser's): the expired page, never a redirect."""
        self.assertEqual((reply.status_code, "Location" in reply.headers), (400, False))
        self.assertIn("This sign-in has expired", reply.text)

    def authorize_url(self, oauth, verifier=None, **extra):
        nonce = generate_token(20)
        url, state = oauth.create_authorization_url(self.meta["authorization_endpoint"], code_verifier=verifier,
                                                    nonce=nonce, **extra)
        return url, state, nonce

    def code_flow(self, client, browser, email, scope="openid email profile"):
        """Code + PKCE through the hosted pages; returns (token, nonce)."""
        oauth = session_for(client, scope=scope)
        verifier = generate_token(48)
        url, state, nonce = self.authorize_url(oauth, verifier)
        params, location = callback_params(browser.sign_in(url, email))
        self.assertEqual(params["state"], state)
        self.assertEqual(params["iss"], ISSUER)  # RFC 9207
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        return oauth, token, nonce

    def test_discovery_lists_every_endpoint_and_the_jwks_holds_an_rs256_key(self):
        meta = self.meta
        self.assertEqual(meta["issuer"], ISSUER)
        for name in ("authorization", "token", "userinfo", "revocation", "introspection", "end_session"):
            self.assertTrue(meta[name + "_endpoint"].startswith(ISSUER + "/"), name)
        self.assertEqual(meta["response_types_supported"], ["code"])
        self.assertEqual(meta["code_challenge_methods_supported"], ["S256"])
        self.assertIn("RS256", meta["id_token_signing_alg_values_supported"])
        self.assertTrue(meta["authorization_response_iss_parameter_supported"])
        keys = requests.get(meta["jwks_uri"]).json()["keys"]
        self.assertIn("RSA", [k["kty"] for k in keys])
        self.assertEqual(requests.get(BASE + "/.well-known/jwks.json").json()["keys"], keys)

    def test_public_client_code_pkce_consent_and_id_token(self):
        email, _ = new_user()
        browser = Browser()
        oauth = session_for(self.public)
        verifier = generate_token(48)
        url, state, nonce = self.authorize_url(oauth, verifier)
        first = browser.get(url)
        self.assertEqual(first.status_code, 302, first.text)
        page = browser.get(first.headers["Location"])
        self.assertEqual(page.status_code, 200)
        for header, value in (("X-Frame-Options", "DENY"), ("Cache-Control", "no-store")):
            self.assertEqual(page.headers[header], value)
        self.assertIn("frame-ancestors 'none'", page.headers["Content-Security-Policy"])
        self.assertTrue(Inputs(page.text).values["csrf"])
        # A form without the page's CSRF token is refused and issues nothing.
        forged = browser.http.post(BASE + "/auth/oidc/sign-in", allow_redirects=False,
                                   data={"request": Inputs(page.text).values["request"], "csrf": "x" * 43,
                                         "email": email, "password": PASSWORD})
        self.assertEqual(forged.status_code, 400)
        self.assertNotIn("Location", forged.headers)
        wrong = browser.submit(page, email=email, password="Wrong@Pass1")
        self.assertEqual(wrong.status_code, 401)
        self.assertIn("Invalid credentials", wrong.text)
        consent = browser.submit(wrong, email=email, password=PASSWORD)
        self.assertEqual(consent.status_code, 200, consent.text[:300])  # not first-party: the consent page
        self.assertIn("Public RP", consent.text)
        self.assertEqual(sorted(c.name for c in browser.http.cookies), ["svc_oidc_browser", "svc_sso_1"])
        sso = next(c for c in browser.http.cookies if c.name == "svc_sso_1")
        self.assertTrue(sso.has_nonstandard_attr("HttpOnly"))
        self.assertFalse(sso.secure)  # loopback http issuer; Secure otherwise
        params, location = callback_params(browser.submit(consent, decision="allow"))
        self.assertEqual((params["state"], params["iss"]), (state, ISSUER))
        # The code's session was opened: the browser is now a device the
        # new-device mail knows (issue 48).
        self.assertIn("svc_device", [c.name for c in browser.http.cookies])
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        self.assertEqual(token["token_type"], "Bearer")
        self.assertNotIn("refresh_token", token)  # public, no offline_access
        claims = verified_id_token(token["id_token"], self.public["client_id"], nonce, token["access_token"])
        self.assertEqual(claims["email"], email)
        self.assertIs(claims["email_verified"], False)
        self.assertEqual((claims["given_name"], claims["family_name"]), ("Olga", "Idc"))
        self.assertEqual(claims["amr"], ["pwd"])
        for name in ("auth_time", "sid", "at_hash", "nonce"):
            self.assertIn(name, claims)
        # The consent is remembered: the next request goes straight back.
        url2, state2, _ = self.authorize_url(oauth, generate_token(48))
        params2, _ = callback_params(browser.get(url2))
        self.assertEqual(params2["state"], state2)

    def test_forgotten_password_on_the_hosted_page(self):
        email, _ = new_user("oidc-forgot")
        unknown = unique_email("oidc-forgot-nobody")
        browser = Browser()
        url, _, _ = self.authorize_url(session_for(self.public), generate_token(48))
        page = browser.get(browser.get(url).headers["Location"])
        request_id = Inputs(page.text).values["request"]
        link = "/auth/oidc/forgot?request=" + request_id
        self.assertIn('href="%s"' % link, page.text)
        form = browser.get(link)
        self.assertEqual(form.status_code, 200, form.text[:300])
        self.assertEqual(form.headers["X-Frame-Options"], "DENY")
        self.assertNotIn("script-src", form.headers["Content-Security-Policy"])
        self.assertEqual(Inputs(form.text).action, "/auth/oidc/forgot")
        self.assertNotIn("<script", form.text)
        # A forged CSRF token: the expired page, no mail asked for.
        forged = browser.http.post(BASE + "/auth/oidc/forgot", allow_redirects=False,
                                   data={"request": request_id, "csrf": "x" * 43, "email": email})
        self.assertExpiredPage(forged)
        self.assertIsNone(svc_stack.newest_outbox_id(email))
        empty = browser.submit(form, email="")
        self.assertEqual(empty.status_code, 400)
        self.assertIn("Enter your e-mail address.", empty.text)
        self.assertExpiredPage(browser.get("/auth/oidc/forgot?request=nosuchrequest"))

        sent = browser.submit(form, email=email)
        self.assertEqual(sent.status_code, 200, sent.text[:300])
        self.assertIn("If an account uses this address, a link to set a new password is on its way.", sent.text)
        self.assertIn('href="/auth/oidc/sign-in?request=%s"' % request_id, sent.text)
        row = svc_stack.newest_outbox_id(email)
        self.assertIsNotNone(row)
        mail = svc_stack.wait_for_outbox_mail(row)
        self.assertIn("token=", svc_stack.mail_html(mail))
        # Issue 48: the e-mail codes' daily cap holds here too: once the
        # address had that many reset mails, the same page and no more mail.
        cap = int(svc_stack.config_value("auth", "email_code_max_sent_daily", "10"))
        for _ in range(cap):
            again = browser.submit(form, email=email)
            self.assertEqual((again.status_code, again.text), (sent.status_code, sent.text))
        self.assertEqual(int(svc_stack.sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s"
                                                 " AND event = 'password-reset'" % svc_stack.q(email))), cap)
        nobody = browser.submit(form, email=unknown)
        self.assertEqual((nobody.status_code, nobody.text), (sent.status_code, sent.text))
        self.assertIsNone(svc_stack.newest_outbox_id(unknown))
        # The way back leads to the same waiting sign-in.
        back = browser.get("/auth/oidc/sign-in?request=" + request_id)
        self.assertEqual(back.status_code, 200)

    def email_code_form(self, browser, oauth, **extra):
        """The sign-in page of a new request of `oauth`'s client, and its
        e-mail code form (reached by the page's link)."""
        url, state, nonce = self.authorize_url(oauth, extra.pop("verifier"), **extra)
        page = browser.get(browser.get(url).headers["Location"])
        request_id = Inputs(page.text).values["request"]
        link = "/auth/oidc/email-code?request=" + request_id
        self.assertIn('href="%s"' % link, page.text)
        self.assertIn("Sign in with a code by e-mail", page.text)
        return browser.get(link), state, nonce

    def test_sign_in_with_an_emailed_code_on_the_hosted_page(self):
        email, _ = new_user("oidc-code")
        unknown = unique_email("oidc-code-nobody")
        browser = Browser()
        oauth = session_for(self.confidential)
        verifier = generate_token(48)
        form, state, nonce = self.email_code_form(browser, oauth, verifier=verifier, login_hint=email)
        self.assertEqual(form.status_code, 200, form.text[:300])
        self.assertEqual(form.headers["X-Frame-Options"], "DENY")
        self.assertNotIn("script-src", form.headers["Content-Security-Policy"])
        self.assertNotIn("<script", form.text)
        self.assertEqual(Inputs(form.text).action, "/auth/oidc/email-code")
        self.assertEqual(Inputs(form.text).values["email"], email)  # login_hint
        request_id = Inputs(form.text).values["request"]

        # Without the page's CSRF token: the expired page, no code mailed.
        for csrf in ({}, {"csrf": "x" * 43}):
            forged = browser.http.post(BASE + "/auth/oidc/email-code", allow_redirects=False,
                                       data=dict({"request": request_id, "email": email}, **csrf))
            self.assertExpiredPage(forged)
        self.assertIsNone(svc_stack.newest_outbox_id(email))
        bad = browser.submit(form, email="not-an-address")
        self.assertEqual(bad.status_code, 400)
        self.assertIn("Enter your e-mail address.", bad.text)

        # Known and unknown addresses get the same page; only the known one a mail.
        nobody = browser.submit(form, email=unknown)
        sent = browser.submit(form, email=email)
        self.assertEqual(sent.status_code, 200, sent.text[:300])
        self.assertEqual((nobody.status_code, nobody.text.replace(unknown, "ADDRESS")),
                         (sent.status_code, sent.text.replace(email, "ADDRESS")))
        self.assertIn("If an account uses this address, a sign-in code is on its way.", sent.text)
        self.assertIsNone(svc_stack.newest_outbox_id(unknown))
        self.assertEqual(Inputs(sent.text).action, "/auth/oidc/email-code/verify")
        self.assertEqual(Inputs(sent.text).values["email"], email)
        code = code_of(delivered(email))

        # A wrong code: the page again with the error, one try spent as by
        # /auth/email-code/verify, nothing issued.
        wrong = browser.submit(sent, email=email, code="%06d" % ((int(code) + 1) % 1000000))
        self.assertEqual(wrong.status_code, 401, wrong.text[:300])
        self.assertNotIn("Location", wrong.headers)
        self.assertIn("Invalid or expired code", wrong.text)
        self.assertEqual(Inputs(wrong.text).action, "/auth/oidc/email-code/verify")
        self.assertNotIn("svc_sso_1", [c.name for c in browser.http.cookies])
        attempts = "SELECT c.attempts FROM svc_email_codes c JOIN svc_users u ON u.id = c.user_id" \
                   " WHERE u.user_email = %s" % q(email)
        self.assertEqual(sql_value(attempts), "1")
        # The right code without the CSRF token: refused, the code not tried.
        forged = browser.http.post(BASE + "/auth/oidc/email-code/verify", allow_redirects=False,
                                   data={"request": request_id, "email": email, "code": code})
        self.assertExpiredPage(forged)
        self.assertEqual(sql_value(attempts), "1")
        self.assertNotIn("svc_sso_1", [c.name for c in browser.http.cookies])

        # The right code: single sign-on cookie, back to the client (first-party: no consent).
        params, location = callback_params(browser.submit(wrong, email=email, code=code))
        self.assertEqual((params["state"], params["iss"]), (state, ISSUER))
        self.assertIn("svc_sso_1", [c.name for c in browser.http.cookies])
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        claims = verified_id_token(token["id_token"], self.confidential["client_id"], nonce, token["access_token"])
        self.assertEqual(claims["email"], email)
        self.assertIs(claims["email_verified"], True)  # the code proved the address
        self.assertEqual(claims["amr"], ["otp"])
        self.assertEqual(oauth.get(self.meta["userinfo_endpoint"]).json()["email"], email)
        # The code is spent.
        self.assertEqual(post("/auth/email-code/verify", {"email": email, "code": code, "appID": 1}).status, 401)

    def test_emailed_code_then_totp_on_the_hosted_page(self):
        email, secret = new_totp_user("oidc-code-mfa")
        browser = Browser()
        oauth = session_for(self.confidential)
        verifier = generate_token(48)
        form, _, nonce = self.email_code_form(browser, oauth, verifier=verifier)
        self.assertEqual(Inputs(form.text).values["email"], "")  # no login_hint
        sent = browser.submit(form, email=email)
        second = browser.submit(sent, email=email, code=code_of(delivered(email)))
        self.assertEqual(second.status_code, 200, second.text[:300])
        self.assertEqual(Inputs(second.text).action, "/auth/oidc/second-factor")
        self.assertNotIn("svc_sso_1", [c.name for c in browser.http.cookies])
        settle()
        params, location = callback_params(browser.submit(second, code=totp(secret, step_now())))
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        claims = verified_id_token(token["id_token"], self.confidential["client_id"], nonce, token["access_token"])
        self.assertEqual((claims["email"], claims["amr"]), (email, ["otp", "mfa"]))

    def test_a_site_that_sends_no_mail_offers_no_emailed_code(self):
        site = create_site("OIDC no mail", "--disable-email", "true")
        client = json.loads(admin("oauth-client", "create", "--site", str(site), "--name", "Quiet RP",
                                  "--redirect-uri", CALLBACK, "--first-party", "--json").stdout)
        meta = requests.get(client["issuer"] + "/.well-known/openid-configuration").json()
        oauth = session_for(client)
        url, _ = oauth.create_authorization_url(meta["authorization_endpoint"], code_verifier=generate_token(48),
                                                nonce=generate_token(20))
        browser = Browser()
        page = browser.get(browser.get(url).headers["Location"])
        request_id = Inputs(page.text).values["request"]
        self.assertIn('<p hidden><a href="/auth/oidc/email-code?request=%s">' % request_id, page.text)
        form = browser.get("/auth/oidc/email-code?request=" + request_id)
        self.assertEqual((form.status_code, "Location" in form.headers), (400, False))
        self.assertIn("Sign-in with a code is not available", form.text)

    def test_single_sign_on_refresh_rotation_userinfo_introspection_revocation(self):
        email, _ = new_user()
        browser = Browser()
        oauth, token, nonce = self.code_flow(self.confidential, browser, email, "openid email offline_access")
        verified_id_token(token["id_token"], self.confidential["client_id"], nonce, token["access_token"])
        # Single sign-on: a second client of the site gets its code without a page.
        other = new_client("--first-party", name="Second RP")
        oauth2 = session_for(other)
        url, _, _ = self.authorize_url(oauth2, generate_token(48))
        self.assertTrue(browser.get(url).headers["Location"].startswith(CALLBACK + "?code="))

        # userinfo by GET and by POST (header and form body).
        got = oauth.get(self.meta["userinfo_endpoint"])
        self.assertEqual(got.status_code, 200)
        self.assertEqual(got.json()["email"], email)
        posted = oauth.post(self.meta["userinfo_endpoint"])
        self.assertEqual(posted.json(), got.json())
        form = checked(requests.Session()).post(self.meta["userinfo_endpoint"],
                                                data={"access_token": token["access_token"]})
        self.assertEqual(form.json(), got.json())

        # Refresh with rotation: a new refresh token; the old one, presented
        # after the reuse grace, revokes the session.
        old = token["refresh_token"]
        fresh = oauth.refresh_token(self.meta["token_endpoint"], refresh_token=old)
        self.assertNotEqual(fresh["refresh_token"], old)
        verified_id_token(fresh["id_token"], self.confidential["client_id"], None, fresh["access_token"])
        intro = oauth.introspect_token(self.meta["introspection_endpoint"], token=fresh["access_token"]).json()
        self.assertTrue(intro["active"])
        self.assertEqual((intro["client_id"], intro["scope"]), (self.confidential["client_id"],
                                                                "openid email offline_access"))
        sid = intro["sid"]
        sql("UPDATE svc_sessions SET rotated_at = rotated_at - 3600 WHERE id = '%s'" % sid)
        reused = requests.post(self.meta["token_endpoint"], auth=(self.confidential["client_id"],
                                                                  self.confidential["client_secret"]),
                               data={"grant_type": "refresh_token", "refresh_token": old}, hooks={"response": check_reply})
        self.assertEqual((reused.status_code, reused.json()["error"]), (400, "invalid_grant"))
        dead = oauth.introspect_token(self.meta["introspection_endpoint"], token=fresh["refresh_token"]).json()
        self.assertEqual(dead, {"active": False})

        # Revocation (RFC 7009) of the second client's tokens ends its session.
        oauth2, token2, _ = self.code_flow(other, browser, email, "openid offline_access")
        self.assertEqual(oauth2.revoke_token(self.meta["revocation_endpoint"], token=token2["refresh_token"],
                                             token_type_hint="refresh_token").status_code, 200)
        after = oauth2.introspect_token(self.meta["introspection_endpoint"], token=token2["access_token"]).json()
        self.assertEqual(after, {"active": False})
        denied = oauth2.get(self.meta["userinfo_endpoint"])
        self.assertEqual(denied.status_code, 401)
        self.assertIn("invalid_token", denied.headers["WWW-Authenticate"])

    def test_password_and_totp_on_the_hosted_page(self):
        email, secret = new_totp_user("oidc-mfa")
        browser = Browser()
        oauth = session_for(self.confidential)
        verifier = generate_token(48)
        url, _, nonce = self.authorize_url(oauth, verifier)
        page = browser.get(browser.get(url).headers["Location"])
        second = browser.submit(page, email=email, password=PASSWORD)
        self.assertEqual(second.status_code, 200)
        self.assertIn('name="code"', second.text)
        self.assertEqual(browser.submit(second, code="000000" if totp(secret, step_now()) != "000000" else "111111")
                         .status_code, 401)
        settle()
        params, location = callback_params(browser.submit(second, code=totp(secret, step_now())))
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        claims = verified_id_token(token["id_token"], self.confidential["client_id"], nonce, token["access_token"])
        self.assertEqual(claims["amr"], ["pwd", "otp", "mfa"])

    def test_end_session_with_hint_returns_to_the_registered_uri(self):
        email, _ = new_user()
        browser = Browser()
        oauth, token, _ = self.code_flow(self.confidential, browser, email)
        query = urllib.parse.urlencode({"id_token_hint": token["id_token"], "post_logout_redirect_uri": LOGOUT_TARGET,
                                        "state": "bye"})
        out = browser.get(self.meta["end_session_endpoint"] + "?" + query)
        self.assertEqual(out.status_code, 302)
        self.assertEqual(out.headers["Location"], LOGOUT_TARGET + "?state=bye")
        self.assertNotIn("svc_sso_1", [c.name for c in browser.http.cookies])
        intro = oauth.introspect_token(self.meta["introspection_endpoint"], token=token["access_token"]).json()
        self.assertEqual(intro, {"active": False})
        url, state, _ = self.authorize_url(oauth, generate_token(48), prompt="none")
        params, _ = callback_params(browser.get(url))
        self.assertEqual((params["error"], params["state"]), ("login_required", state))
        # An unregistered post_logout_redirect_uri is a page, never a redirect.
        bad = browser.get(self.meta["end_session_endpoint"] + "?" + urllib.parse.urlencode(
            {"id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://evil.example/"}))
        self.assertEqual(bad.status_code, 400)
        self.assertNotIn("Location", bad.headers)

    def test_prompt_login_max_age_and_login_hint_ask_again(self):
        email, _ = new_user()
        browser = Browser()
        oauth, _, _ = self.code_flow(self.confidential, browser, email)
        for extra in ({"prompt": "login"}, {"max_age": "0"}):
            url, _, _ = self.authorize_url(oauth, generate_token(48), login_hint=email, **extra)
            reply = browser.get(url)
            self.assertTrue(reply.headers["Location"].startswith("/auth/oidc/sign-in?request="), extra)
            page = browser.get(reply.headers["Location"])
            self.assertEqual(Inputs(page.text).values["email"], email)  # login_hint
            params, _ = callback_params(browser.submit(page, email=email, password=PASSWORD))
            self.assertIn("code", params)
        # Without them, the single sign-on session answers at once.
        url, _, _ = self.authorize_url(oauth, generate_token(48))
        self.assertIn("code", callback_params(browser.get(url))[0])

    def test_svc_admin_lists_shows_rotates_and_deletes_clients(self):
        client = new_client(name="Admin RP")
        cid = client["client_id"]
        self.assertEqual(client["issuer"], ISSUER)
        self.assertRegex(admin("oauth-client", "list", "--site", "1").stdout, r"(?m)^%s\t1\tconfidential\t" % cid)
        shown = admin("oauth-client", "show", cid).stdout
        self.assertIn("redirect_uri %s\n" % CALLBACK, shown)
        self.assertIn("post_logout_redirect_uri %s\n" % LOGOUT_TARGET, shown)
        public = new_client("--public", name="Admin public")
        self.assertNotIn("client_secret", public)
        self.assertNotEqual(admin("oauth-client", "rotate-secret", public["client_id"], check=False).returncode, 0)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_oauth_clients WHERE secret_hash LIKE %s" %
                                   q("%" + client["client_secret"][:8] + "%")), "0")  # stored hashed

        email, _ = new_user()
        browser = Browser()
        _, token, _ = self.code_flow(client, browser, email)
        # Workers keep a client row for [server] site_cache_seconds (oidc/client_cache.hpp): a
        # rotation and a deletion show on every worker within that bound.
        seconds = svc_stack.cache_seconds("server", "site_cache_seconds", 1)

        def introspect(secret):
            return requests.post(self.meta["introspection_endpoint"], auth=(cid, secret),
                                 data={"token": token["access_token"]}, hooks={"response": check_reply})

        rotated = json.loads(admin("oauth-client", "rotate-secret", cid, "--json").stdout)
        changed = time.time()
        self.assertNotEqual(rotated["client_secret"], client["client_secret"])
        svc_stack.wait_for_every_worker("old secret refused", lambda: introspect(client["client_secret"]).status_code
                                        == 401, changed, seconds)
        old = introspect(client["client_secret"])
        self.assertEqual((old.status_code, old.json()["error"]), (401, "invalid_client"))
        self.assertTrue(svc_stack.wait_for_every_worker(
            "new secret taken", lambda: introspect(rotated["client_secret"]).json().get("active"), changed, seconds))
        self.assertIn("1 session(s) ended", admin("oauth-client", "delete", cid).stdout)
        svc_stack.wait_for_every_worker("deleted client refused",
                                        lambda: introspect(rotated["client_secret"]).status_code == 401, time.time(),
                                        seconds)
        self.assertNotEqual(admin("oauth-client", "show", cid, check=False).returncode, 0)

    def test_rs256_keys_rotate_like_the_access_token_keys(self):
        # A rotation without --now publishes the key at once and lets it sign
        # only after the JWKS max-age: within this test it is pending, so the
        # other tests' ID tokens keep their signer on every worker.
        def signers(text):
            return sorted(line.split()[0] for line in text.splitlines() if " signing " in line)

        before = admin("signing-keys", "list").stdout
        current = [line.split()[0] for line in before.splitlines() if " RS256 " in line and " signing " in line]
        self.assertEqual(len(current), 1, before)
        kid = admin("signing-keys", "rotate", "--alg", "RS256").stdout.strip()
        self.assertRegex(kid, r"^rs256-[0-9a-f]{12}$")
        listing = admin("signing-keys", "list").stdout
        self.assertRegex(listing, r"(?m)^%s\s+RS256\s+pending\s" % kid)
        self.assertEqual(signers(listing), signers(before))  # access-token and ID-token signers unchanged
        refused = admin("signing-keys", "retire", current[0], "--now", check=False)
        self.assertIn("signs the ID tokens", refused.stderr)
        admin("signing-keys", "retire", kid, "--now")
        self.assertRegex(admin("signing-keys", "list").stdout, r"(?m)^%s\s+RS256\s+retired\s" % kid)

class OidcBadInputTest(ApiTest):
    """Each bad input gets the standard error, never a 500, and nothing is issued."""

    @classmethod
    def setUpClass(cls):
        cls.meta = requests.get(ISSUER + "/.well-known/openid-configuration").json()
        cls.client = new_client("--first-party", name="Bad-input RP")
        cls.other = new_client("--first-party", name="Other RP")
        cls.email, _ = new_user("oidc-bad")

    def codes(self):
        return int(sql_value("SELECT COUNT(*) FROM svc_oauth_codes"))

    def authorize(self, browser, **params):
        base = {"client_id": self.client["client_id"], "redirect_uri": CALLBACK, "response_type": "code",
                "scope": "openid", "state": "s1"}
        base.update({k: v for k, v in params.items() if v is not None})
        query = urllib.parse.urlencode(base) if "raw_query" not in params else params["raw_query"]
        return browser.get(self.meta["authorization_endpoint"] + "?" + query)

    def redirected_error(self, reply):
        params, _ = callback_params(reply)
        self.assertEqual(params["iss"], ISSUER)
        return params

    def signed_in_code(self, browser, client=None, verifier=None):
        client = client or self.client
        challenge = None
        if verifier:
            from authlib.oauth2.rfc7636 import create_s256_code_challenge
            challenge = create_s256_code_challenge(verifier)
        url = self.meta["authorization_endpoint"] + "?" + urllib.parse.urlencode(
            {k: v for k, v in {"client_id": client["client_id"], "redirect_uri": CALLBACK, "response_type": "code",
                               "scope": "openid offline_access", "state": "s", "code_challenge": challenge,
                               "code_challenge_method": "S256" if challenge else None}.items() if v})
        params, _ = callback_params(browser.sign_in(url, self.email))
        return params["code"]

    def exchange(self, code, client=None, verifier=None, secret=None, **extra):
        client = client or self.client
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK}
        if verifier:
            data["code_verifier"] = verifier
        data.update(extra)
        return requests.post(self.meta["token_endpoint"], data=data, hooks={"response": check_reply},
                             auth=(client["client_id"], secret or client["client_secret"]))

    def assertOAuthError(self, reply, status, error):
        self.assertEqual(reply.status_code, status, reply.text)
        self.assertEqual(reply.json()["error"], error, reply.text)
        self.assertNotIn("access_token", reply.json())

    def test_unknown_client_and_unregistered_redirect_get_a_page_not_a_redirect(self):
        before = self.codes()
        for params in ({"client_id": "nobody"}, {"redirect_uri": "https://evil.example/cb"},
                       {"redirect_uri": CALLBACK + "/x"}, {"client_id": None, "raw_query": "client_id=a&client_id=b"},
                       {"client_id": self.other["client_id"] + "x"}):
            reply = self.authorize(Browser(), **params)
            self.assertEqual(reply.status_code, 400, params)
            self.assertNotIn("Location", reply.headers)
            self.assertTrue(reply.headers["Content-Type"].startswith("text/html"))
        self.assertEqual(self.codes(), before)

    def test_prompt_none_scope_and_parameter_errors_redirect_with_the_standard_error(self):
        before = self.codes()
        browser = Browser()
        cases = (({"prompt": "none"}, "login_required"),
                 ({"scope": "email profile"}, "invalid_scope"),
                 ({"response_type": "token"}, "unsupported_response_type"),
                 ({"code_challenge": "abc", "code_challenge_method": "plain"}, "invalid_request"),
                 ({"nonce": "n" * 5000}, "invalid_request"),
                 ({"request": "eyJ.x.y"}, "request_not_supported"))
        for params, error in cases:
            got = self.redirected_error(self.authorize(browser, **params))
            self.assertEqual((got["error"], got["state"]), (error, "s1"), params)
        # A repeated parameter (RFC 6749 3.1) and an oversized state (not echoed).
        base = urllib.parse.urlencode({"client_id": self.client["client_id"], "redirect_uri": CALLBACK,
                                       "response_type": "code", "scope": "openid"})
        got = self.redirected_error(self.authorize(browser, raw_query=base + "&state=a&state=b"))
        self.assertEqual(got["error"], "invalid_request")
        got = self.redirected_error(self.authorize(browser, raw_query=base + "&state=" + "s" * 2000))
        self.assertEqual(got["error"], "invalid_request")
        self.assertNotIn("state", got)
        # A public client without PKCE.
        public = new_client("--public", name="Public bad")
        got = self.redirected_error(self.authorize(browser, client_id=public["client_id"]))
        self.assertEqual(got["error"], "invalid_request")
        self.assertEqual(self.codes(), before)

    def test_pkce_replay_other_client_expiry_and_secret_errors(self):
        browser = Browser()
        verifier = generate_token(48)
        # Missing and wrong verifier: invalid_grant, and the code is spent.
        code = self.signed_in_code(browser, verifier=verifier)
        self.assertOAuthError(self.exchange(code), 400, "invalid_grant")
        code = self.signed_in_code(browser, verifier=verifier)
        self.assertOAuthError(self.exchange(code, verifier=generate_token(48)), 400, "invalid_grant")
        # Another client's code.
        code = self.signed_in_code(browser)
        self.assertOAuthError(self.exchange(code, client=self.other), 400, "invalid_grant")
        # Expired.
        code = self.signed_in_code(browser)
        sql("UPDATE svc_oauth_codes SET expires_at = expires_at - 120 WHERE used_at IS NULL")
        self.assertOAuthError(self.exchange(code), 400, "invalid_grant")
        # Wrong secret: 401 invalid_client with WWW-Authenticate.
        code = self.signed_in_code(browser)
        wrong = self.exchange(code, secret="not-the-secret")
        self.assertOAuthError(wrong, 401, "invalid_client")
        self.assertIn("Basic", wrong.headers["WWW-Authenticate"])
        # Repeated parameter at the token endpoint.
        code = self.signed_in_code(browser)
        raw = requests.post(self.meta["token_endpoint"], hooks={"response": check_reply},
                            auth=(self.client["client_id"], self.client["client_secret"]),
                            data="grant_type=authorization_code&code=%s&code=%s&redirect_uri=%s" % (
                                code, code, urllib.parse.quote(CALLBACK, safe="")),
                            headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertOAuthError(raw, 400, "invalid_request")
        # Replay: the first use succeeds, the second is invalid_grant and
        # revokes what the first issued.
        code = self.signed_in_code(browser)
        first = self.exchange(code)
        self.assertEqual(first.status_code, 200, first.text)
        # A spent code leaves no row: its grant keeps its hash for the replay.
        code_hash = hashlib.sha256(code.encode()).hexdigest()
        self.assertEqual(sql("SELECT COUNT(*) FROM svc_oauth_codes WHERE code_hash = '%s'" % code_hash), [["0"]])
        self.assertOAuthError(self.exchange(code), 400, "invalid_grant")
        refresh = requests.post(self.meta["token_endpoint"], hooks={"response": check_reply},
                                auth=(self.client["client_id"], self.client["client_secret"]),
                                data={"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"]})
        self.assertOAuthError(refresh, 400, "invalid_grant")
        userinfo = requests.get(self.meta["userinfo_endpoint"], hooks={"response": check_reply},
                                headers={"Authorization": "Bearer " + first.json()["access_token"]})
        self.assertEqual(userinfo.status_code, 401)
        # Unknown grant type, unknown client.
        self.assertOAuthError(self.exchange("x", grant_type="password"), 400, "unsupported_grant_type")
        self.assertOAuthError(self.exchange("x", client={"client_id": "nobody", "client_secret": "x"}), 401,
                              "invalid_client")


if __name__ == "__main__":
    svc_stack.main()

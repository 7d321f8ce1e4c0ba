"""Sign in with an upstream provider (issue 51, design "Upstream sign-in",
docs/oidc.md "Sign in with ..."), through nginx on the hosted pages:

- the upstream is a real OpenID Connect provider: svc's own, on another
  site of the same stack (an oauth-client there with the callback as its
  redirect URI); first sign-in creates a verified user, a second signs the
  same user in, amr carries fed;
- a local verified user with the address is linked only when the upstream
  asserts it verified; otherwise the password first, then the link;
- a form_post callback posted cross-site (no Lax cookie) comes back by GET
  and works;
- a test provider on loopback (OpenID Connect with keys the test holds,
  and a GitHub-like OAuth 2 API) for the bad input: wrong or replayed
  state, no browser cookie, wrong aud / iss / nonce / signature, expired,
  unknown kid after a JWKS refresh, provider down, unverified address;
  each a clear page and nothing linked. GitHub's primary verified address;
- the account centre's link (POST /auth/upstream/link, then the callback
  in the same browser): the identity linked to the signed-in user; one
  linked to another user already is refused with nothing changed; a
  callback in another browser links nothing; unlink.
"""

import base64
import http.server
import json
import socket
import tempfile
import threading
import time
import urllib.parse
import warnings

warnings.simplefilter("ignore", ResourceWarning)

import jwt  # noqa: E402
import requests  # noqa: E402
from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa  # noqa: E402

import site_admins  # noqa: E402
import svc_stack  # noqa: E402
from svc_stack import ApiTest, admin, post, q, sql, sql_value, unique_email  # noqa: E402

PASSWORD = "Upstream@Test2026"
BASE = "http://localhost:%d" % svc_stack.HTTP_PORT
CALLBACK = "http://127.0.0.1:9/callback"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def new_site(name):
    out = admin("site", "create", "--name", name, "--domain", "up.example", "--disable-email", "true",
                "--api-key", "none").stdout
    return int(out.strip().splitlines()[-1])


def secret_file(secret):
    f = tempfile.NamedTemporaryFile("w", delete=False, suffix=".secret")
    f.write(secret + "\n")
    f.close()
    return f.name


def new_user(site, email, verified=True):
    args = ["user", "create", "--email", email, "--site", str(site), "--first", "Una", "--last", "Stream"]
    if verified:
        args.append("--verified")
    return int(admin(*args, stdin=PASSWORD + "\n").stdout.strip().splitlines()[-1])


def identities(site_pool, email=None):
    where = "pool_id = %d" % site_pool + ("" if email is None else " AND email = %s" % q(email))
    return int(sql_value("SELECT COUNT(*) FROM svc_user_identities WHERE " + where))


def events(user_id, event_type):
    return int(sql_value("SELECT COUNT(*) FROM svc_webhook_deliveries WHERE event_type = %s AND data LIKE %s"
                         % (q(event_type), q('%%"user_id":%d,%%' % user_id))))


def pool_of(site):
    return int(sql_value("SELECT user_pool FROM svc_sites WHERE id = %d" % site))


def hidden(page, name):
    marker = 'name="%s" value="' % name
    at = page.index(marker) + len(marker)
    return page[at:page.index('"', at)]


class Browser:
    def __init__(self):
        self.http = requests.Session()

    def get(self, url):
        return self.http.get(urllib.parse.urljoin(BASE, url), allow_redirects=False)

    def post(self, url, data):
        return self.http.post(urllib.parse.urljoin(BASE, url), data=data, allow_redirects=False)

    def sign_in_page(self, site, client):
        params = {"client_id": client["client_id"], "redirect_uri": CALLBACK, "response_type": "code",
                  "scope": "openid email", "state": "rp-state"}
        reply = self.get("/oidc/%d/authorize?%s" % (site, urllib.parse.urlencode(params)))
        assert reply.status_code == 302, reply.text
        page = self.get(reply.headers["Location"])
        assert page.status_code == 200, page.text
        return page.text

    def start(self, site, client, provider):
        """The provider's button: returns (the authorize URL's query, the sign-in page)."""
        page = self.sign_in_page(site, client)
        assert 'value="%s"' % provider in page, page
        reply = self.post("/auth/oidc/upstream", {"request": hidden(page, "request"), "csrf": hidden(page, "csrf"),
                                                  "provider": provider})
        assert reply.status_code == 303, reply.text
        location = reply.headers["Location"]
        return location, dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)), page


class FakeProvider(http.server.ThreadingHTTPServer):
    """An OpenID Connect provider and a GitHub-like API on loopback; the test
    says what the token endpoint answers."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), FakeHandler)
        self.base = "http://127.0.0.1:%d" % self.server_address[1]
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "k1"
        self.published = [(self.kid, self.key)]
        self.codes = {}  # code -> dict(nonce=..., claims=..., header=..., sign_key=...)
        self.delay = 0
        self.emails = []
        self.jwks_reads = 0
        self.apple_public = None  # set: the client secret must be an ES256 JWT this key verifies
        self.apple_secrets = []   # (header, claims) of each such secret received
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def jwk(self, kid, key):
        n = key.public_key().public_numbers()
        return {"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
                "n": b64(n.n.to_bytes((n.n.bit_length() + 7) // 8, "big")), "e": b64(n.e.to_bytes(3, "big"))}

    def token(self, claims, header=None, key=None):
        header = header or {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        sig = (key or self.key).sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64(sig)


class FakeHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        s = self.server
        if self.path == "/.well-known/openid-configuration":
            return self.reply(200, {"issuer": s.base, "authorization_endpoint": s.base + "/authorize",
                                    "token_endpoint": s.base + "/token", "jwks_uri": s.base + "/jwks"})
        if self.path == "/jwks":
            s.jwks_reads += 1
            return self.reply(200, {"keys": [s.jwk(kid, key) for kid, key in s.published]})
        if self.path == "/api/user":
            return self.reply(200, {"id": 4242, "login": "octo", "name": "Octo Cat"})
        if self.path == "/api/user/emails":
            return self.reply(200, s.emails)
        self.reply(404, {})

    def do_POST(self):
        s = self.server
        length = int(self.headers.get("Content-Length", 0))
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        if s.delay:
            time.sleep(s.delay)
        what = s.codes.pop(form.get("code"), None)
        secret_ok = form.get("client_secret") == "fake-secret"
        if s.apple_public is not None:
            try:
                claims = jwt.decode(form.get("client_secret", ""), s.apple_public, algorithms=["ES256"],
                                    audience="https://appleid.apple.com")
                s.apple_secrets.append((jwt.get_unverified_header(form["client_secret"]), claims))
                secret_ok = True
            except jwt.PyJWTError:
                secret_ok = False
        if what is None or form.get("client_id") != "fake-client" or not secret_ok or not form.get("code_verifier"):
            return self.reply(400, {"error": "invalid_grant"})
        if what.get("github"):
            return self.reply(200, {"access_token": "gho_x", "token_type": "bearer"})
        return self.reply(200, {"access_token": "at", "token_type": "Bearer", "id_token": what["id_token"]})


class UpstreamSignInTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        # The upstream: svc's own provider on a site of its own.
        cls.up = new_site("Upstream IdP")
        # The relying site, its pool its own, and its client.
        cls.rp = new_site("Relying site")
        cls.rp_pool = pool_of(cls.rp)
        # Its pages, where the JSON API's form may return (before any request caches the site).
        admin("site", "set", "--site", str(cls.rp), "--reset-url", "http://127.0.0.1:9/app/")
        callback = "%s/oidc/%d/upstream/svc-up/callback" % (BASE, cls.rp)
        cls.up_client = json.loads(admin("oauth-client", "create", "--site", str(cls.up), "--name", "Relying site",
                                         "--redirect-uri", callback, "--first-party", "--json").stdout)
        out = admin("site", "provider", "add", "--site", str(cls.rp), "--name", "svc-up", "--type", "oidc",
                    "--issuer", "%s/oidc/%d" % (BASE, cls.up), "--client-id", cls.up_client["client_id"],
                    "--client-secret-file", secret_file(cls.up_client["client_secret"])).stdout
        assert "callback: " + callback in out, out
        cls.client = json.loads(admin("oauth-client", "create", "--site", str(cls.rp), "--name", "App",
                                      "--redirect-uri", CALLBACK, "--first-party", "--json").stdout)
        admin("webhook", "add", "--site", str(cls.rp), "--url", "http://127.0.0.1:9/hook",
              "--events", "user.identity_linked,user.identity_unlinked")
        cls.fake = FakeProvider()
        admin("site", "provider", "add", "--site", str(cls.rp), "--name", "fake", "--type", "oidc",
              "--issuer", cls.fake.base, "--client-id", "fake-client", "--client-secret-file",
              secret_file("fake-secret"))
        admin("site", "provider", "add", "--site", str(cls.rp), "--name", "github", "--type", "github",
              "--api-url", cls.fake.base + "/api", "--authorize-url", cls.fake.base + "/authorize",
              "--token-url", cls.fake.base + "/token", "--client-id", "fake-client", "--client-secret-file",
              secret_file("fake-secret"))

    @classmethod
    def tearDownClass(cls):
        cls.fake.shutdown()

    # -- helpers ---------------------------------------------------------

    def upstream_sign_in(self, browser, email, form_post=False):
        """The svc-up button, the upstream's hosted sign-in, and its callback; returns the callback's reply."""
        location, params, _ = browser.start(self.rp, self.client, "svc-up")
        self.assertEqual(params["code_challenge_method"], "S256")
        self.assertTrue(params["nonce"] and params["state"])
        reply = browser.http.get(location, allow_redirects=False)
        self.assertEqual(reply.status_code, 302, reply.text)
        page = browser.get(reply.headers["Location"]).text
        reply = browser.post("/auth/oidc/sign-in", {"request": hidden(page, "request"), "csrf": hidden(page, "csrf"),
                                                    "email": email, "password": PASSWORD})
        self.assertIn(reply.status_code, (302, 303), reply.text)
        back = reply.headers["Location"]
        self.assertTrue(back.startswith("%s/oidc/%d/upstream/svc-up/callback?" % (BASE, self.rp)), back)
        if not form_post:
            return browser.get(back)
        # The provider posts the answer from its own origin: the browser
        # sends no SameSite=Lax cookie with a cross-site POST.
        answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query))
        bare = requests.post(back.split("?")[0], data=answer, allow_redirects=False)
        self.assertEqual(bare.status_code, 303, bare.text)
        self.assertNotIn("Set-Cookie", bare.headers)
        return browser.get(bare.headers["Location"])

    def assertBackAtClient(self, reply):
        self.assertEqual(reply.status_code, 303, reply.text[:500])
        self.assertTrue(reply.headers["Location"].startswith(CALLBACK + "?code="), reply.headers["Location"])

    def assertRefused(self, reply, words):
        self.assertEqual(reply.status_code, 400, reply.text[:500])
        self.assertNotIn("Location", reply.headers)
        self.assertIn(words, reply.text)

    def upstream_user(self, verified=True):
        email = unique_email("up")
        new_user(self.up, email, verified)
        return email

    def rp_user(self, email):
        return sql_value("SELECT id FROM svc_users WHERE user_email = %s AND pool_id = %d"
                         % (q(email), self.rp_pool))

    def fake_callback(self, browser, claims_of, provider="fake", header=None, key=None, state_of=None):
        """The fake provider's round: the button, then a callback whose code
        the fake answers with the ID token claims_of(params) makes."""
        location, params, _ = browser.start(self.rp, self.client, provider)
        code = "code-%f" % time.time()
        if provider == "github":
            self.fake.codes[code] = {"github": True}
        else:
            claims = claims_of(params)
            self.fake.codes[code] = {"id_token": self.fake.token(claims, header, key)}
        state = state_of(params) if state_of else params["state"]
        return browser.get("/oidc/%d/upstream/%s/callback?code=%s&state=%s" % (self.rp, provider, code, state)), \
            params

    def good_claims(self, email, verified=True, **changes):
        def make(params):
            now = int(time.time())
            c = {"iss": self.fake.base, "sub": "sub-" + email, "aud": "fake-client", "iat": now, "exp": now + 300,
                 "nonce": params["nonce"], "email": email, "email_verified": verified}
            c.update(changes)
            return c
        return make

    # -- svc's own provider upstream ---------------------------------------

    def test_first_sign_in_creates_a_verified_user_and_the_second_signs_the_same_user_in(self):
        email = self.upstream_user()
        self.assertBackAtClient(self.upstream_sign_in(Browser(), email))
        uid = self.rp_user(email)
        self.assertIsNotNone(uid)
        self.assertIsNotNone(sql_value("SELECT email_verified_at FROM svc_users WHERE id = %s" % uid))
        self.assertEqual(identities(self.rp_pool, email), 1)
        self.assertEqual(sql_value("SELECT password FROM svc_users WHERE id = %s" % uid), "")
        amr = sql_value("SELECT amr FROM svc_sessions WHERE user_id = %s AND site_id = %d ORDER BY created_at DESC"
                        " LIMIT 1" % (uid, self.rp))
        self.assertIn("fed", amr)
        self.assertBackAtClient(self.upstream_sign_in(Browser(), email))
        self.assertEqual(self.rp_user(email), uid)
        self.assertEqual(identities(self.rp_pool, email), 1)

    def test_form_post_from_another_site_comes_back_by_get_and_signs_in(self):
        email = self.upstream_user()
        self.assertBackAtClient(self.upstream_sign_in(Browser(), email, form_post=True))
        self.assertEqual(identities(self.rp_pool, email), 1)

    def test_a_verified_local_user_is_linked_when_the_upstream_asserts_the_address_verified(self):
        email = self.upstream_user(verified=True)
        local = new_user(self.rp, email, verified=True)
        self.assertBackAtClient(self.upstream_sign_in(Browser(), email))
        self.assertEqual(int(self.rp_user(email)), local)
        self.assertEqual(identities(self.rp_pool, email), 1)

    def test_an_unverified_upstream_address_asks_for_the_password_first_then_links(self):
        email = self.upstream_user(verified=False)
        local = new_user(self.rp, email, verified=True)
        browser = Browser()
        page = self.upstream_sign_in(browser, email)
        self.assertEqual(page.status_code, 409, page.text[:300])
        self.assertIn("Sign in with your password or another way you use first", page.text)
        self.assertEqual(identities(self.rp_pool, email), 0)
        reply = browser.post("/auth/oidc/sign-in", {"request": hidden(page.text, "request"),
                                                    "csrf": hidden(page.text, "csrf"),
                                                    "email": email, "password": PASSWORD})
        self.assertBackAtClient(reply)
        self.assertEqual(identities(self.rp_pool, email), 1)
        self.assertEqual(int(sql_value("SELECT user_id FROM svc_user_identities WHERE pool_id = %d AND email = %s"
                                       % (self.rp_pool, q(email)))), local)

    def test_the_account_centre_lists_and_unlinks_but_never_the_last_way_to_sign_in(self):
        email = self.upstream_user(verified=True)
        local = new_user(self.rp, email, verified=True)
        self.assertBackAtClient(self.upstream_sign_in(Browser(), email))
        self.assertEqual(events(local, "user.identity_linked"), 1)
        token = self.assertTokenReply(post("/auth/login", {"email": email, "password": PASSWORD,
                                                           "appID": self.rp}))["account_token"]
        bearer = {"Authorization": "Bearer " + token}
        listed = post("/auth/upstream/identities", headers=bearer)
        self.assertEqual(listed.status, 200, listed)
        self.assertEqual([(i["provider"], i["email"]) for i in listed.json["identities"]], [("svc-up", email)])
        export = post("/auth/account/export", headers=bearer).json["account"]
        self.assertEqual([i["provider"] for i in export["identities"]], ["svc-up"])
        ident = listed.json["identities"][0]["id"]
        # Without a password it would be the last way: refused.
        stored = sql_value("SELECT password FROM svc_users WHERE id = %d" % local)
        sql("UPDATE svc_users SET password = '' WHERE id = %d" % local)
        time.sleep(1.1)  # [auth] user_cache_seconds is at most 1 s
        self.assertReply(post("/auth/upstream/unlink", {"id": ident}, headers=bearer), 409,
                         {"status": "Failed", "message": "This is your only way to sign in: set a password first"})
        self.assertEqual(identities(self.rp_pool, email), 1)
        sql("UPDATE svc_users SET password = %s WHERE id = %d" % (q(stored), local))
        time.sleep(1.1)
        self.assertReply(post("/auth/upstream/unlink", {"id": ident + 1000000}, headers=bearer), 404)
        self.assertReply(post("/auth/upstream/unlink", {"id": ident}, headers=bearer), 200,
                         {"status": "Success", "message": "Account unlinked"})
        self.assertEqual(identities(self.rp_pool, email), 0)
        self.assertEqual(events(local, "user.identity_unlinked"), 1)

    # -- bad input -------------------------------------------------------

    def test_a_replayed_or_unknown_state_is_refused(self):
        browser = Browser()
        email = unique_email("replay")
        _, params, _ = browser.start(self.rp, self.client, "fake")
        self.fake.codes["c-replay"] = {"id_token": self.fake.token(self.good_claims(email)(params))}
        url = "/oidc/%d/upstream/fake/callback?code=c-replay&state=%s" % (self.rp, params["state"])
        self.assertBackAtClient(browser.get(url))
        self.fake.codes["c-replay"] = {"id_token": self.fake.token(self.good_claims(email)(params))}
        self.assertRefused(browser.get(url), "expired or was used already")
        reply, _ = self.fake_callback(Browser(), self.good_claims(unique_email("st")), state_of=lambda p: "forged")
        self.assertRefused(reply, "expired or was used already")

    def test_a_callback_without_the_browser_cookie_is_refused(self):
        browser = Browser()
        location, params, _ = browser.start(self.rp, self.client, "fake")
        email = unique_email("nocookie")
        self.fake.codes["c-nc"] = {"id_token": self.fake.token(self.good_claims(email)(params))}
        reply = requests.get("%s/oidc/%d/upstream/fake/callback?code=c-nc&state=%s" % (BASE, self.rp, params["state"]),
                             allow_redirects=False)
        self.assertRefused(reply, "another browser")
        self.assertIsNone(self.rp_user(email))
        # Spent: the right browser cannot use it afterwards either.
        self.assertRefused(browser.get("/oidc/%d/upstream/fake/callback?code=c-nc&state=%s"
                                       % (self.rp, params["state"])), "expired or was used already")

    def test_id_tokens_with_a_wrong_claim_or_signature_are_refused_and_nothing_is_linked(self):
        other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cases = [
            ("aud", {"aud": "someone-else"}, None, None, "for another client"),
            ("iss", {"iss": "https://evil.example"}, None, None, "from another issuer"),
            ("nonce", {"nonce": "not-the-flows"}, None, None, "nonce"),
            ("expired", {"exp": int(time.time()) - 600}, None, None, "expired"),
            ("signature", {}, None, other_key, "signature"),
            ("kid", {}, {"alg": "RS256", "typ": "JWT", "kid": "unknown"}, other_key, "does not publish"),
        ]
        for name, changes, header, key, words in cases:
            with self.subTest(name):
                email = unique_email("bad-" + name)
                reads = self.fake.jwks_reads
                reply, _ = self.fake_callback(Browser(), self.good_claims(email, **changes), header=header, key=key)
                self.assertRefused(reply, words)
                self.assertIsNone(self.rp_user(email))
                self.assertEqual(identities(self.rp_pool, email), 0)
                if name == "kid":
                    self.assertGreater(self.fake.jwks_reads, reads)  # the JWKS was read again first

    def test_a_key_new_at_the_provider_is_found_by_reading_the_jwks_again(self):
        self.fake_callback(Browser(), self.good_claims(unique_email("warm")))  # the JWKS is cached
        new_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.fake.published.append(("k2", new_key))
        email = unique_email("rotated")
        reply, _ = self.fake_callback(Browser(), self.good_claims(email),
                                      header={"alg": "RS256", "typ": "JWT", "kid": "k2"}, key=new_key)
        self.assertBackAtClient(reply)
        self.assertEqual(identities(self.rp_pool, email), 1)

    def test_an_unverified_upstream_address_makes_no_user(self):
        email = unique_email("unverified")
        reply, _ = self.fake_callback(Browser(), self.good_claims(email, verified=False))
        self.assertRefused(reply, "has not verified your e-mail address")
        self.assertIsNone(self.rp_user(email))

    def test_a_provider_that_is_down_is_a_clear_page(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = s.getsockname()[1]
        admin("site", "provider", "add", "--site", str(self.rp), "--name", "down", "--type", "github",
              "--api-url", "http://127.0.0.1:%d/api" % dead, "--authorize-url", "http://127.0.0.1:%d/a" % dead,
              "--token-url", "http://127.0.0.1:%d/t" % dead, "--client-id", "x", "--client-secret-file",
              secret_file("y"))
        browser = Browser()
        _, params, _ = browser.start(self.rp, self.client, "down")
        reply = browser.get("/oidc/%d/upstream/down/callback?code=c&state=%s" % (self.rp, params["state"]))
        self.assertRefused(reply, "could not be reached")

    def test_a_provider_slower_than_15_seconds_is_a_clear_page(self):
        # Waits out the bound once (the outbound pool's worker, not the test, times out).
        self.fake.delay = 16
        try:
            reply, _ = self.fake_callback(Browser(), self.good_claims(unique_email("slow")))
        finally:
            self.fake.delay = 0
        self.assertRefused(reply, "did not answer in time")

    # -- GitHub ------------------------------------------------------------

    def test_github_signs_in_with_the_primary_verified_address_only(self):
        email = unique_email("octo")
        self.fake.emails = [{"email": "other@up.example", "primary": False, "verified": True},
                            {"email": email, "primary": True, "verified": False}]
        reply, _ = self.fake_callback(Browser(), None, provider="github")
        self.assertRefused(reply, "has not verified")
        self.assertIsNone(self.rp_user(email))
        self.fake.emails[1]["verified"] = True
        reply, _ = self.fake_callback(Browser(), None, provider="github")
        self.assertBackAtClient(reply)
        self.assertEqual(identities(self.rp_pool, email), 1)
        self.assertEqual(sql_value("SELECT subject FROM svc_user_identities WHERE pool_id = %d AND email = %s"
                                   % (self.rp_pool, q(email))), "4242")

    # -- the JSON API's form --------------------------------------------------

    def test_the_json_api_form_returns_a_one_time_code_that_the_backend_exchanges(self):
        browser = Browser()
        outside = browser.get("/auth/upstream/fake/start?appID=%d&return_to=%s"
                              % (self.rp, urllib.parse.quote("https://evil.example/")))
        self.assertRefused(outside, "return_to is not a page of this site")
        reply = browser.get("/auth/upstream/fake/start?appID=%d&return_to=%s"
                            % (self.rp, urllib.parse.quote("http://127.0.0.1:9/app/done")))
        self.assertEqual(reply.status_code, 303, reply.text)
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(reply.headers["Location"]).query))
        email = unique_email("api")
        self.fake.codes["c-api"] = {"id_token": self.fake.token(self.good_claims(email)(params))}
        back = browser.get("/oidc/%d/upstream/fake/callback?code=c-api&state=%s" % (self.rp, params["state"]))
        self.assertEqual(back.status_code, 303, back.text)
        self.assertTrue(back.headers["Location"].startswith("http://127.0.0.1:9/app/done?code="), back.headers)
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back.headers["Location"]).query))["code"]
        token = self.assertTokenReply(post("/auth/upstream/exchange", {"code": code}))
        claims = json.loads(svc_stack.b64url_decode(token["access_token"].split(".")[1]))
        self.assertIn("fed", claims.get("amr", []))
        self.assertEqual(token["user"]["email"], email)
        self.assertReply(post("/auth/upstream/exchange", {"code": code}), 400,
                         {"status": "Failed", "message": "Invalid or expired code"})

    # -- hosted registration -------------------------------------------------

    def test_hosted_registration_creates_a_user_and_returns_to_the_relying_party(self):
        browser = Browser()
        page = browser.sign_in_page(self.rp, self.client)
        self.assertIn("/auth/oidc/register?request=", page)
        form = browser.get("/auth/oidc/register?request=" + hidden(page, "request"))
        self.assertEqual(form.status_code, 200, form.text)
        email = unique_email("reg")
        fields = {"request": hidden(form.text, "request"), "csrf": hidden(form.text, "csrf"), "email": email,
                  "firstname": "Reg", "lastname": "Ister"}
        weak = browser.post("/auth/oidc/register", dict(fields, password="short"))
        self.assertEqual(weak.status_code, 400, weak.text)
        self.assertIn("Password does not meet security requirements", weak.text)
        self.assertIsNone(self.rp_user(email))
        self.assertBackAtClient(browser.post("/auth/oidc/register", dict(fields, password=PASSWORD)))
        self.assertIsNotNone(self.rp_user(email))
        # Taken now: the form again.
        again = Browser()
        page = again.sign_in_page(self.rp, self.client)
        form = again.get("/auth/oidc/register?request=" + hidden(page, "request")).text
        taken = again.post("/auth/oidc/register", {"request": hidden(form, "request"), "csrf": hidden(form, "csrf"),
                                                   "email": email, "password": PASSWORD})
        self.assertEqual(taken.status_code, 409, taken.text)

    def test_closed_sign_up_hides_registration_and_makes_no_user_from_upstream(self):
        site = new_site("Closed site")
        admin("site", "set", "--site", str(site), "--signup", "closed")
        self.assertIn("signup:          closed", admin("site", "show", "--site", str(site)).stdout)
        client = json.loads(admin("oauth-client", "create", "--site", str(site), "--name", "App",
                                  "--redirect-uri", CALLBACK, "--first-party", "--json").stdout)
        admin("site", "provider", "add", "--site", str(site), "--name", "fake", "--type", "oidc",
              "--issuer", self.fake.base, "--client-id", "fake-client", "--client-secret-file",
              secret_file("fake-secret"))
        browser = Browser()
        page = browser.sign_in_page(site, client)
        self.assertIn('<p hidden><a href="/auth/oidc/register', page)
        self.assertEqual(browser.get("/auth/oidc/register?request=" + hidden(page, "request")).status_code, 403)
        _, params, _ = browser.start(site, client, "fake")
        email = unique_email("closed")
        self.fake.codes["c-closed"] = {"id_token": self.fake.token(self.good_claims(email)(params))}
        reply = browser.get("/oidc/%d/upstream/fake/callback?code=c-closed&state=%s" % (site, params["state"]))
        self.assertRefused(reply, "does not let new users sign up")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")

    # -- linking from the account centre ---------------------------------------

    def account_token(self, email):
        return self.assertTokenReply(post("/auth/login", {"email": email, "password": PASSWORD,
                                                          "appID": self.rp}))["account_token"]

    def link_start(self, browser, token, provider="fake"):
        """POST /auth/upstream/link from the account centre's browser: the provider's authorize URL's query."""
        reply = browser.http.post(BASE + "/auth/upstream/link", json={"provider": provider},
                                  headers={"Authorization": "Bearer " + token}, allow_redirects=False)
        self.assertEqual(reply.status_code, 200, reply.text)
        url = reply.json()["url"]
        self.assertTrue(url.startswith(self.fake.base + "/authorize?"), url)
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))

    def link_callback(self, browser, params, claims):
        code = "link-%f" % time.time()
        self.fake.codes[code] = {"id_token": self.fake.token(claims)}
        return browser.get("/oidc/%d/upstream/fake/callback?code=%s&state=%s" % (self.rp, code, params["state"]))

    def identity_rows(self, subject):
        return sql("SELECT auth_table, user_id FROM svc_user_identities WHERE pool_id = %d AND subject = %s"
                   % (self.rp_pool, q(subject)))

    def test_the_account_centre_links_an_upstream_account_to_the_signed_in_user_and_unlinks_it(self):
        email = unique_email("linker")
        uid = new_user(self.rp, email, verified=True)
        token = self.account_token(email)
        bearer = {"Authorization": "Bearer " + token}
        listed = post("/auth/upstream/identities", headers=bearer)
        self.assertEqual(listed.status, 200, listed)
        self.assertEqual(listed.json["identities"], [])
        self.assertIn("fake", listed.json["providers"])
        self.assertIn("github", listed.json["providers"])
        self.assertReply(post("/auth/upstream/link", {"provider": "nope"}, headers=bearer), 404,
                         {"status": "Failed", "message": "No such provider"})
        self.assertEqual(post("/auth/upstream/link", {"provider": "fake"}).status, 401)
        # The upstream's address is another one, and unverified: the user
        # who links has signed in already, so it links all the same.
        upstream_address = unique_email("elsewhere")
        browser = Browser()
        params = self.link_start(browser, token)
        self.assertIn("svc_oidc_browser", browser.http.cookies.get_dict())
        claims = self.good_claims(upstream_address, verified=False)(params)
        # The same callback in another browser (no cookie of the flow): refused, nothing linked.
        stranger = self.link_callback(Browser(), params, claims)
        self.assertRefused(stranger, "another browser")
        self.assertEqual(self.identity_rows(claims["sub"]), [])
        params = self.link_start(browser, token)
        claims = self.good_claims(upstream_address, verified=False)(params)
        page = self.link_callback(browser, params, claims)
        self.assertEqual(page.status_code, 200, page.text[:500])
        self.assertIn("Account linked", page.text)
        self.assertIn('href="/account/?site=%d"' % self.rp, page.text)
        self.assertEqual(self.identity_rows(claims["sub"]), [["svc_users", str(uid)]])
        self.assertEqual(events(uid, "user.identity_linked"), 1)
        self.assertIsNone(self.rp_user(upstream_address))  # no user made for the upstream's address
        # The same account once more: already linked, nothing new.
        params = self.link_start(browser, token)
        again = self.link_callback(browser, params, dict(claims, nonce=params["nonce"]))
        self.assertEqual(again.status_code, 200, again.text[:500])
        self.assertIn("Already linked", again.text)
        self.assertEqual(self.identity_rows(claims["sub"]), [["svc_users", str(uid)]])
        self.assertEqual(events(uid, "user.identity_linked"), 1)
        listed = post("/auth/upstream/identities", headers=bearer).json["identities"]
        self.assertEqual([(i["provider"], i["email"]) for i in listed], [("fake", upstream_address)])
        # The identity now signs this user in.
        self.assertBackAtClient(self.fake_callback(Browser(), lambda p: dict(claims, nonce=p["nonce"]))[0])
        self.assertReply(post("/auth/upstream/unlink", {"id": listed[0]["id"]}, headers=bearer), 200,
                         {"status": "Success", "message": "Account unlinked"})
        self.assertEqual(self.identity_rows(claims["sub"]), [])
        self.assertEqual(events(uid, "user.identity_unlinked"), 1)

    def test_linking_asks_for_a_verified_address_as_adding_a_passkey_does(self):
        email = unique_email("unproved")
        new_user(self.rp, email, verified=False)
        reply = post("/auth/upstream/link", {"provider": "fake"},
                     headers={"Authorization": "Bearer " + self.account_token(email)})
        self.assertReply(reply, 403, {"status": "Failed", "message": "Email not verified"})
        self.assertNotIn("Set-Cookie", reply.headers)

    def test_an_upstream_account_linked_to_another_user_is_refused_and_nothing_changes(self):
        # User A signs up through the provider: the identity is A's.
        email_a = unique_email("owner-a")
        reply, _ = self.fake_callback(Browser(), self.good_claims(email_a))
        self.assertBackAtClient(reply)
        user_a = self.rp_user(email_a)
        subject = "sub-" + email_a
        self.assertEqual(self.identity_rows(subject), [["svc_users", str(user_a)]])
        before = sql("SELECT id, auth_table, user_id, email, created_at FROM svc_user_identities"
                     " WHERE pool_id = %d AND subject = %s" % (self.rp_pool, q(subject)))
        # User B, signed in to the account centre, tries to link the same upstream account.
        email_b = unique_email("taker-b")
        user_b = new_user(self.rp, email_b, verified=True)
        token = self.account_token(email_b)
        browser = Browser()
        params = self.link_start(browser, token)
        page = self.link_callback(browser, params, self.good_claims(email_a)(params))
        self.assertEqual(page.status_code, 409, page.text[:500])
        self.assertIn("linked to another user already. Nothing was changed", page.text)
        self.assertEqual(sql("SELECT id, auth_table, user_id, email, created_at FROM svc_user_identities"
                             " WHERE pool_id = %d AND subject = %s" % (self.rp_pool, q(subject))), before)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_user_identities WHERE user_id = %d" % user_b), "0")
        self.assertEqual(events(user_b, "user.identity_linked"), 0)
        self.assertEqual(post("/auth/upstream/identities",
                              headers={"Authorization": "Bearer " + token}).json["identities"], [])
        # The flow is spent: its state does not link on a second try either.
        again = self.link_callback(browser, params, self.good_claims(email_a)(params))
        self.assertRefused(again, "expired or was used already")

    # -- Apple's client secret -----------------------------------------------

    def test_an_apple_style_provider_sends_a_fresh_es256_client_secret_minted_from_its_p8_key(self):
        key = ec.generate_private_key(ec.SECP256R1())
        p8 = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                               serialization.NoEncryption()).decode()
        refused = admin("site", "provider", "add", "--site", str(self.rp), "--name", "fake-apple", "--type", "oidc",
                        "--issuer", self.fake.base, "--client-id", "fake-client", "--team-id", "TEAM123456",
                        "--key-id", "KEY9876543", "--client-secret-file", secret_file("not a key"), check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("not a P-256 key in PKCS#8 PEM", refused.stderr)
        admin("site", "provider", "add", "--site", str(self.rp), "--name", "fake-apple", "--type", "oidc",
              "--issuer", self.fake.base, "--client-id", "fake-client", "--team-id", "TEAM123456",
              "--key-id", "KEY9876543", "--client-secret-file", secret_file(p8))
        self.assertEqual(sql("SELECT team_id, key_id FROM svc_upstream_providers WHERE site_id = %d"
                             " AND name = 'fake-apple'" % self.rp), [["TEAM123456", "KEY9876543"]])
        listed = [line.split("\t") for line in admin("site", "provider", "list", "--site", str(self.rp)).stdout.splitlines()]
        self.assertIn("TEAM123456/KEY9876543", [row[-1] for row in listed if row[0] == "fake-apple"])
        self.assertNotIn("PRIVATE KEY", "\n".join("\t".join(row) for row in listed))
        self.fake.apple_public = key.public_key()
        try:
            email = unique_email("apple")
            before = int(time.time())
            reply, _ = self.fake_callback(Browser(), self.good_claims(email), provider="fake-apple")
        finally:
            self.fake.apple_public = None
        self.assertBackAtClient(reply)
        self.assertEqual(identities(self.rp_pool, email), 1)
        self.assertEqual(len(self.fake.apple_secrets), 1)
        header, claims = self.fake.apple_secrets[0]
        self.assertEqual((header["alg"], header["kid"]), ("ES256", "KEY9876543"))
        self.assertEqual((claims["iss"], claims["sub"], claims["aud"]),
                         ("TEAM123456", "fake-client", "https://appleid.apple.com"))
        self.assertGreaterEqual(claims["iat"], before - 1)
        self.assertLessEqual(claims["exp"] - claims["iat"], 15777000)  # Apple's limit: 6 months

    def test_provider_list_prints_the_callbacks(self):
        out = admin("site", "provider", "list", "--site", str(self.rp)).stdout
        self.assertIn("%s/oidc/%d/upstream/github/callback" % (BASE, self.rp), out)
        self.assertIn("svc-up\toidc", out)



def tearDownModule():
    site_admins.forget_unheard_hooks()

if __name__ == "__main__":
    svc_stack.main()

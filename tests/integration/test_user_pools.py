"""User pools (issue 47, design "User pools: a site's users are its own")
through nginx: two sites with pools of their own and two sharing one.

- The same address signs up on both own-pool sites with different
  passwords, and each password works only on its site; sign-up is 409 only
  inside a pool.
- A user of site A is an unknown user on site B: login, request-pass, the
  e-mail code and the hosted OpenID Connect sign-in give B's reply for an
  unknown address, byte for byte, and B mails nobody.
- The two sharing sites sign the same user in, single sign-on included;
  single sign-on never crosses into another pool.
- svc-admin: `--user-pool` refused for an unknown site or a malformed
  value, `site set --user-pool` refused once users signed in through the
  site (nothing changed), `site show`/`list` print the pool, `--email`
  found in several pools without `--site` is an error naming the sites.
- Webhook events and audit rows about a user name the pool.
- Upgrade: an auth table from before pools (svc_staff put back into that
  shape) keeps every user signing in where they could, before and after
  `svc-admin migrate` gives it the pool column and key.
"""

import base64
import hashlib
import json
import os
import secrets
import signal
import time
import urllib.parse

import site_admins
import svc_stack
from svc_stack import ApiTest, admin, post, q, sql, sql_value, unique_email
from test_oidc_authlib import BASE, CALLBACK, Browser, Inputs

PASSWORD_A = "Pools@SiteA-2026"
PASSWORD_B = "Pools@SiteB-2026"
RELOAD_SECONDS = 30


def create_site(name, *options):
    """svc-admin site create as an operator types it (a pool of its own
    unless `options` say otherwise); returns the new id."""
    out = admin("site", "create", "--name", name, "--domain", "pools.example", *options).stdout
    return int(out.strip().splitlines()[-1])


def login(email, password, app_id=None, **extra):
    body = {"email": email, "password": password}
    if app_id is not None:
        body["appID"] = app_id
    body.update(extra)
    return post("/auth/login", body)


def sign_up(email, password, app_id=None):
    body = {"email": email, "password": password, "firstname": "Pool", "lastname": "User"}
    if app_id is not None:
        body["appID"] = app_id
    return post("/auth/sign-up", body)


def pool_of(site):
    return int(sql_value("SELECT user_pool FROM svc_sites WHERE id = %d" % site))


def outbox_rows(email, site):
    return int(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s AND site_id = %d"
                         % (q(email), site)))


def first_party_client(site):
    out = admin("oauth-client", "create", "--site", str(site), "--name", "Pools RP %d" % site, "--redirect-uri",
                CALLBACK, "--first-party", "--json").stdout
    return json.loads(out)


def authorize_path(site, client):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({"response_type": "code", "client_id": client["client_id"],
                                    "redirect_uri": CALLBACK, "scope": "openid email", "state": "s1",
                                    "nonce": secrets.token_urlsafe(12), "code_challenge": challenge,
                                    "code_challenge_method": "S256"})
    return "/oidc/%d/authorize?%s" % (site, query)


def hosted_sign_in(browser, site, client, email, password):
    """The hosted sign-in page of `site` for a new request, submitted with
    email and password: (reply, sign-in page)."""
    first = browser.get(authorize_path(site, client))
    assert first.status_code == 302 and first.headers["Location"].startswith("/auth/oidc/sign-in"), first.text
    page = browser.get(first.headers["Location"])
    assert page.status_code == 200, page.text[:300]
    return browser.submit(page, email=email, password=password), page


def error_text(reply):
    """The hosted page's reply without what differs per request (its
    request id and CSRF token, and the address typed back)."""
    form = Inputs(reply.text)
    text = reply.text
    for value in form.values.values():
        if value:
            text = text.replace(value, "")
    return reply.status_code, text


class UserPoolsTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "pool")

    @classmethod
    def setUpClass(cls):
        tag = secrets.token_hex(3)
        cls.a = create_site("Pools A " + tag)
        cls.b = create_site("Pools B " + tag)
        cls.c = create_site("Pools C " + tag)
        cls.d = create_site("Pools D " + tag, "--user-pool", "site:%d" % cls.c)

    def test_site_create_gives_own_pools_and_site_n_shares(self):
        pools = [pool_of(s) for s in (self.a, self.b, self.c)]
        self.assertEqual(len(set(pools + [1])), 4, pools)  # three new pools, none the default one
        self.assertEqual(pool_of(self.d), pool_of(self.c))
        show = admin("site", "show", "--site", str(self.d)).stdout
        self.assertIn("user_pool:       %d, shared with site %d" % (pool_of(self.c), self.c), show)
        self.assertIn("user_pool:       1 (default)", admin("site", "show", "--site", "1").stdout)
        listed = [line.split("\t") for line in admin("site", "list").stdout.splitlines()]
        self.assertIn("pool %d" % pool_of(self.a), [row[-2] for row in listed if row[0] == str(self.a)])

    def test_the_same_address_signs_up_on_both_own_pool_sites_each_password_works_on_its_site(self):
        email = unique_email("pools-twice")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        self.assertTokenReply(sign_up(email, PASSWORD_B, self.b))
        # Inside a pool the address stays unique, in any case.
        self.assertExact(sign_up(email.upper(), PASSWORD_A, self.a), 409,
                         {"status": "Failed", "message": "User with this email already exists"})
        self.assertTokenReply(login(email, PASSWORD_A, self.a))
        self.assertTokenReply(login(email, PASSWORD_B, self.b))
        invalid = {"status": "Failed", "message": "Invalid credentials"}
        self.assertExact(login(email, PASSWORD_B, self.a), 401, invalid)
        self.assertExact(login(email, PASSWORD_A, self.b), 401, invalid)
        # Neither is in the default pool (requests without appID).
        self.assertExact(login(email, PASSWORD_A), 401, invalid)
        ids = sql("SELECT id, pool_id FROM svc_users WHERE user_email = %s ORDER BY id" % q(email))
        self.assertEqual([int(p) for _, p in ids], [pool_of(self.a), pool_of(self.b)])
        # Tokens name the user of their own pool.
        a_user = login(email, PASSWORD_A, self.a).json["token"]["user"]["id"]
        b_user = login(email, PASSWORD_B, self.b).json["token"]["user"]["id"]
        self.assertEqual(sorted([a_user, b_user]), sorted(int(i) for i, _ in ids))

    def test_a_user_of_another_pool_gets_the_unknown_users_replies_and_no_mail(self):
        email = unique_email("pools-a-only")
        nobody = unique_email("pools-nobody")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        # Login: the reply of an unknown address, exactly.
        self.assertEqual((login(email, PASSWORD_A, self.b).status, login(email, PASSWORD_A, self.b).json),
                         (login(nobody, PASSWORD_A, self.b).status, login(nobody, PASSWORD_A, self.b).json))
        self.assertExact(login(email, PASSWORD_A, self.b), 401, {"status": "Failed", "message": "Invalid credentials"})
        # request-pass and the e-mail code: the same reply, and nothing queued by B.
        for path in ("/auth/request-pass", "/auth/email-code"):
            known = post(path, {"email": email, "appID": self.b})
            unknown = post(path, {"email": nobody, "appID": self.b})
            # (request-pass names the address it was asked about)
            self.assertEqual((known.status, json.dumps(known.json).replace(email, "ADDRESS")),
                             (unknown.status, json.dumps(unknown.json).replace(nobody, "ADDRESS")), path)
            self.assertEqual(known.status, 200, known)
        self.assertEqual(outbox_rows(email, self.b), 0)
        self.assertEqual(outbox_rows(nobody, self.b), 0)
        # While site A does mail its own user.
        self.assertReply(post("/auth/request-pass", {"email": email, "appID": self.a}), 200)
        self.assertEqual(outbox_rows(email, self.a), 1)
        # The e-mail code sign-in on B: the user's code from A is no code on B.
        self.assertReply(post("/auth/email-code", {"email": email, "appID": self.a}), 200)
        self.assertEqual(outbox_rows(email, self.a), 2)
        wrong = post("/auth/email-code/verify", {"email": email, "appID": self.b, "code": "000000"})
        unknown = post("/auth/email-code/verify", {"email": nobody, "appID": self.b, "code": "000000"})
        self.assertEqual((wrong.status, wrong.json), (unknown.status, unknown.json))
        self.assertGreaterEqual(wrong.status, 400)

    def test_hosted_oidc_sign_in_on_another_pools_site_is_an_unknown_user(self):
        email = unique_email("pools-oidc")
        nobody = unique_email("pools-oidc-nobody")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        client_b = first_party_client(self.b)
        reply, _ = hosted_sign_in(Browser(), self.b, client_b, email, PASSWORD_A)
        self.assertEqual(reply.status_code, 401, reply.text[:300])
        self.assertIn("Invalid credentials", reply.text)
        unknown, _ = hosted_sign_in(Browser(), self.b, client_b, nobody, PASSWORD_A)
        self.assertEqual(error_text(reply), error_text(unknown))
        # On its own site the same user signs in.
        client_a = first_party_client(self.a)
        ok, _ = hosted_sign_in(Browser(), self.a, client_a, email, PASSWORD_A)
        self.assertEqual(ok.status_code, 303, ok.text[:300])
        self.assertTrue(ok.headers["Location"].startswith(CALLBACK + "?code="), ok.headers["Location"])

    def test_passkey_sign_in_by_address_binds_only_a_user_of_the_pool(self):
        email = unique_email("pools-passkey")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = %s" % q(email)))
        for site in (self.a, self.b):
            admin("site", "set", "--site", str(site), "--rp-id", "localhost", "--origins", "http://localhost")

        def bound_user(site):
            reply = post("/auth/passkey/login/options", {"appID": site, "email": email})
            self.assertEqual(reply.status, 200, reply)
            return int(sql_value("SELECT user_id FROM svc_passkey_challenges WHERE site_id = %d AND bound = 1 "
                                 "ORDER BY expires_at DESC LIMIT 1" % site))

        self.assertEqual(bound_user(self.a), uid)
        self.assertEqual(bound_user(self.b), 0)  # as for an unknown address

    def test_hosted_forgot_password_of_another_pools_user_mails_nobody(self):
        email = unique_email("pools-forgot")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        browser = Browser()
        first = browser.get(authorize_path(self.b, first_party_client(self.b)))
        page = browser.get(first.headers["Location"])
        request_id = Inputs(page.text).values["request"]
        form = browser.get("/auth/oidc/forgot?request=" + request_id)
        self.assertEqual(form.status_code, 200, form.text[:300])
        sent = browser.submit(form, email=email)
        self.assertEqual(sent.status_code, 200, sent.text[:300])
        self.assertIn("If an account uses this address", sent.text)
        self.assertEqual(outbox_rows(email, self.b), 0)

    def test_an_email_change_is_taken_only_inside_the_pool(self):
        email = unique_email("pools-change")
        elsewhere = unique_email("pools-change-b")
        neighbour = unique_email("pools-change-a")
        for address, site in ((email, self.a), (elsewhere, self.b), (neighbour, self.a)):
            admin("user", "create", "--email", address, "--site", str(site), "--verified",
                  stdin=PASSWORD_A + "\n")
        token = login(email, PASSWORD_A, self.a).json["token"]
        bearer = {"Authorization": "Bearer " + token["account_token"]}
        taken = post("/auth/email/change", {"new_email": neighbour, "password": PASSWORD_A}, headers=bearer)
        self.assertExact(taken, 409, {"status": "Failed", "message": "User with this email already exists"})
        free = post("/auth/email/change", {"new_email": elsewhere, "password": PASSWORD_A}, headers=bearer)
        self.assertEqual(free.status, 200, free)

    def test_sharing_sites_sign_the_same_user_in_with_single_sign_on(self):
        email = unique_email("pools-shared")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.c))
        on_c = login(email, PASSWORD_A, self.c).json["token"]["user"]["id"]
        on_d = login(email, PASSWORD_A, self.d).json["token"]["user"]["id"]
        self.assertEqual(on_c, on_d)
        self.assertExact(sign_up(email, PASSWORD_B, self.d), 409,
                         {"status": "Failed", "message": "User with this email already exists"})
        # Single sign-on: signed in at C's hosted page, D's authorize goes
        # straight back to the client with a code.
        browser = Browser()
        client_c, client_d = first_party_client(self.c), first_party_client(self.d)
        first, _ = hosted_sign_in(browser, self.c, client_c, email, PASSWORD_A)
        self.assertEqual(first.status_code, 303, first.text[:300])
        self.assertIn("svc_sso_pool_%d" % pool_of(self.c), first.headers.get("Set-Cookie", ""))
        again = browser.get(authorize_path(self.d, client_d))
        self.assertEqual(again.status_code, 302, again.text[:300])
        self.assertTrue(again.headers["Location"].startswith(CALLBACK + "?code="), again.headers["Location"])
        # Never into another pool: site A asks for a sign-in.
        other = browser.get(authorize_path(self.a, first_party_client(self.a)))
        self.assertEqual(other.status_code, 302)
        self.assertTrue(other.headers["Location"].startswith("/auth/oidc/sign-in"), other.headers["Location"])

    def test_default_pool_sites_keep_signing_in_requests_without_app_id_users(self):
        email = unique_email("pools-default")
        self.assertTokenReply(sign_up(email, PASSWORD_A))
        legacy = create_site("Pools default " + secrets.token_hex(3), "--user-pool", "default")
        self.assertEqual(pool_of(legacy), 1)
        for app_id in (None, 1, legacy):
            self.assertTokenReply(login(email, PASSWORD_A, app_id))
        self.assertExact(login(email, PASSWORD_A, self.a), 401, {"status": "Failed", "message": "Invalid credentials"})

    def test_user_pool_option_refuses_bad_values_and_a_change_after_sign_ins(self):
        before = sql("SELECT id, user_pool FROM svc_sites ORDER BY id")
        for value, message in (("site:999999", "no site with id 999999"), ("pool 7", "expects own, default or site:N"),
                               ("site:", "expects own, default or site:N"), ("site:-1", "expects own, default")):
            create = admin("site", "create", "--name", "Pools bad", "--domain", "bad.example", "--user-pool", value,
                           check=False)
            self.assertEqual(create.returncode, 2, create.stdout + create.stderr)
            self.assertIn(message, create.stderr)
            change = admin("site", "set", "--site", str(self.b), "--user-pool", value, check=False)
            self.assertEqual(change.returncode, 2, change.stdout + change.stderr)
        self.assertEqual(sql("SELECT id, user_pool FROM svc_sites ORDER BY id"), before)
        # A site nobody signed in to yet may move; one with sign-ins may not.
        fresh = create_site("Pools movable " + secrets.token_hex(3))
        moved = admin("site", "set", "--site", str(fresh), "--user-pool", "site:%d" % self.c)
        self.assertIn("shared with site", moved.stdout)
        self.assertEqual(pool_of(fresh), pool_of(self.c))
        email = unique_email("pools-pinned")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.b))
        pool_b = pool_of(self.b)
        refused = admin("site", "set", "--site", str(self.b), "--user-pool", "default", "--name", "Renamed",
                        check=False)
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertIn("has users who signed in through it", refused.stderr)
        self.assertEqual(pool_of(self.b), pool_b)
        self.assertNotEqual(sql_value("SELECT name FROM svc_sites WHERE id = %d" % self.b), "Renamed")

    def test_admin_email_commands_take_site_and_name_the_pools_of_an_ambiguous_address(self):
        email = unique_email("pools-admin")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.a))
        # One pool: found without --site.
        self.assertEqual(admin("sessions", "list", "--email", email, check=False).returncode, 0)
        self.assertTokenReply(sign_up(email, PASSWORD_B, self.b))
        ambiguous = admin("sessions", "list", "--email", email, check=False)
        self.assertEqual(ambiguous.returncode, 2, ambiguous.stdout + ambiguous.stderr)
        self.assertIn("is in 2 user pools", ambiguous.stderr)
        self.assertIn("(site %d)" % self.a, ambiguous.stderr)
        self.assertIn("(site %d)" % self.b, ambiguous.stderr)
        self.assertIn("--site N", ambiguous.stderr)
        # With --site each names its own user; revoking on A leaves B's sessions.
        out_a = admin("user", "export", "--email", email, "--site", str(self.a)).stdout
        out_b = admin("user", "export", "--email", email, "--site", str(self.b)).stdout
        self.assertNotEqual(json.loads(out_a)["account"]["profile"]["id"], json.loads(out_b)["account"]["profile"]["id"])
        a_token = login(email, PASSWORD_A, self.a).json["token"]
        b_token = login(email, PASSWORD_B, self.b).json["token"]
        admin("sessions", "revoke", "--email", email, "--site", str(self.a))
        refresh = lambda t: post("/auth/refresh-token", {"payload": {"access_token": t["access_token"],
                                                                     "refresh_token": t["refresh_token"]}})
        self.assertEqual(refresh(a_token).status, 401)
        self.assertEqual(refresh(b_token).status, 200)
        # user create --site: into that site's pool.
        staffer = unique_email("pools-created")
        admin("user", "create", "--email", staffer, "--site", str(self.c), stdin=PASSWORD_A + "\n")
        self.assertTokenReply(login(staffer, PASSWORD_A, self.d))
        self.assertExact(login(staffer, PASSWORD_A), 401, {"status": "Failed", "message": "Invalid credentials"})

    def test_audit_rows_and_webhook_events_name_the_pool(self):
        email = unique_email("pools-audit")
        self.assertTokenReply(sign_up(email, PASSWORD_A, self.c))
        uid = int(sql_value("SELECT id FROM svc_users WHERE user_email = %s AND pool_id = %d" % (q(email),
                                                                                               pool_of(self.c))))
        self.assertEqual(sql("SELECT DISTINCT pool_id FROM svc_audit_log WHERE user_id = %d AND auth_table = "
                             "'svc_users'" % uid), [[str(pool_of(self.c))]])
        admin("webhook", "add", "--site", str(self.d), "--url", "http://127.0.0.1:9/hook", "--events",
              "user.created")
        other = unique_email("pools-hook")
        self.assertTokenReply(sign_up(other, PASSWORD_A, self.d))
        data = sql_value("SELECT data FROM svc_webhook_deliveries WHERE site_id = %d AND event_type = 'user.created'"
                         " ORDER BY id DESC LIMIT 1" % self.d)
        event = json.loads(data)
        self.assertEqual((event["email"], event["pool"]), (other, pool_of(self.c)))


def reload_workers(probe):
    os.kill(svc_stack.stack_pid("svc-fcgi"), signal.SIGHUP)
    deadline = time.time() + RELOAD_SECONDS
    while not probe():
        if time.time() > deadline:
            raise AssertionError("the workers did not reload within %d s" % RELOAD_SECONDS)
        time.sleep(0.1)


def staff_columns():
    return sql("SELECT column_name FROM information_schema.columns WHERE table_schema = 'svc' AND table_name = "
               "'svc_staff' AND column_name = 'pool_id'")


def staff_unique_keys():
    return sorted(r[0] for r in sql(
        "SELECT GROUP_CONCAT(column_name ORDER BY seq_in_index) FROM information_schema.statistics WHERE "
        "table_schema = 'svc' AND table_name = 'svc_staff' AND non_unique = 0 AND index_name <> 'PRIMARY' "
        "GROUP BY index_name"))


class UpgradeTest(ApiTest):
    """svc_staff (a second table of [auth] tables) put back into its shape
    from before pools: its users sign in where they did, before and after
    `svc-admin migrate` brings it up to date."""

    @classmethod
    def setUpClass(cls):
        cls.own = create_site("Pools upgrade own " + secrets.token_hex(3))
        sql("DELETE FROM svc_staff WHERE pool_id <> 1")
        keys = sql("SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = 'svc' AND "
                   "table_name = 'svc_staff' AND non_unique = 0 AND index_name <> 'PRIMARY'")
        drops = ", ".join("DROP KEY `%s`" % k[0] for k in keys)
        sql("ALTER TABLE svc_staff %s, ADD UNIQUE KEY uq_svc_users_email (user_email), DROP COLUMN pool_id"
            % drops)
        cls.email = unique_email("pools-staff")
        admin("user", "create", "--email", cls.email, "--table", "svc_staff", stdin=PASSWORD_A + "\n")
        reload_workers(lambda: cls.staff_login(None).status == 200)

    @classmethod
    def staff_login(cls, app_id):
        return login(cls.email, PASSWORD_A, app_id, authTable="svc_staff")

    def assertSignsInAsBefore(self):
        for app_id in (None, 1):
            self.assertTokenReply(self.staff_login(app_id))
        # A site with its own pool never had these users.
        self.assertExact(self.staff_login(self.own), 401, {"status": "Failed", "message": "Invalid credentials"})

    def test_existing_users_sign_in_everywhere_they_could_before_and_after_migrate(self):
        self.assertEqual(staff_columns(), [])
        self.assertEqual(staff_unique_keys(), ["user_email"])
        self.assertSignsInAsBefore()
        dry = admin("migrate", "--dry-run").stdout
        self.assertIn("-- [auth] tables: svc_staff (user pools)", dry)
        self.assertEqual(staff_columns(), [])  # a dry run changes nothing
        out = admin("migrate").stdout
        self.assertIn("svc_staff: ALTER TABLE `svc_staff` ADD COLUMN IF NOT EXISTS pool_id", out)
        self.assertIn("ALGORITHM=INPLACE, LOCK=NONE", out)
        self.assertEqual(staff_columns(), [["pool_id"]])
        self.assertEqual(staff_unique_keys(), ["pool_id,user_email"])
        self.assertEqual(sql_value("SELECT pool_id FROM svc_staff WHERE user_email = %s" % q(self.email)), "1")
        self.assertNotIn("svc_staff:", admin("migrate").stdout)  # a second run has nothing to do
        # The workers that read the table before see the column after a reload.
        reload_workers(lambda: self.staff_login(None).status == 200)
        self.assertSignsInAsBefore()



def tearDownModule():
    site_admins.forget_unheard_hooks()

if __name__ == "__main__":
    svc_stack.main()

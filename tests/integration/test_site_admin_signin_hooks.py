"""The site management API's Webhooks and OAuth clients capabilities (issue
49, design "Site administrators and the site management API"), through
nginx, real workers and MariaDB, and the same through svc-admin.

- Webhooks: list (never a secret), add (the SSRF guard's refusals are 400
  url; the whsec_ secret shown once), disable and enable, rotate the secret
  and delete (recent sign-in), deliveries in keyset pages.
- OAuth clients: list and show (never a secret), create and rotate the
  secret (owner; shown once), delete (admin, recent sign-in; the sessions
  granted to it end).
- Another site's endpoint or client through this site's path is 404 and
  untouched; a viewer writing, another site's admin, an admin without a
  second factor are refused; one audit row per change, never a secret;
  svc-admin's commands write the same rows with the actor operator.
"""

import re
import time

import site_admins
import svc_stack
from site_admins import Admin, audit_rows, create_site, create_user
from test_account_security import mint_refresh, refresh
from svc_stack import ApiTest, admin, sql, sql_value

FORBIDDEN = {"status": "Failed", "message": "Forbidden"}
SECOND_FACTOR = {"status": "Failed", "message": "Second factor required for site administration"}
RECENT = {"status": "Failed", "message": "Recent sign-in required, log in again"}
NO_ENDPOINT = {"status": "Failed", "message": "Endpoint not found"}
NO_CLIENT = {"status": "Failed", "message": "Client not found"}
HOOK = "http://127.0.0.1:9/hook"  # the test stack admits loopback http receivers; nobody listens here
CALLBACK = "https://rp.example/callback"


def text_of(reply):
    return reply.raw if isinstance(reply.raw, str) else reply.raw.decode()


def add_endpoint_cli(site, events="user.created"):
    out = admin("webhook", "add", "--site", str(site), "--url", HOOK, "--events", events).stdout
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    return int(lines["endpoint"]), lines["secret"]


def create_client_cli(site, *options):
    out = admin("oauth-client", "create", "--site", str(site), "--name", "CLI client", "--redirect-uri", CALLBACK,
                *options).stdout
    return dict(line.split(" ", 1) for line in out.strip().splitlines())


class SignInAndHooksTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        # A default-pool site: a stale sign-in can be minted for its owner
        # (test_site_admin test_destructive_change_needs_a_recent_sign_in).
        cls.site = int(admin("site", "create", "--name", "Hooks A", "--domain", "hooks-a.example", "--user-pool",
                             "default").stdout.strip().splitlines()[-1])
        cls.other_site = create_site("Hooks B")
        cls.owner = Admin(cls.site, "owner")
        cls.plain = Admin(cls.site, "admin")
        cls.viewer = Admin(cls.site, "viewer")
        cls.no_factor = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")
        stale = refresh(mint_refresh(cls.owner.id, int(time.time()) - 11 * 60, amr=("pwd", "otp", "mfa")))
        assert stale.status == 200, stale
        cls.stale = stale.json["token"]["access_token"]

    def refused(self, method, path, body=None, viewer=True):
        """A viewer (for writes), another site's owner, an admin without a second factor: each refused."""
        if viewer:
            self.assertExact(self.viewer.call(method, path, body), 403, FORBIDDEN)
        self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
        self.assertExact(self.no_factor.call(method, path, body), 403, SECOND_FACTOR)

    # --- webhooks -----------------------------------------------------------------

    def test_webhook_endpoints_added_listed_disabled_rotated_deleted(self):
        body = {"url": HOOK, "events": ["user.created", "user.disabled"]}
        self.refused("POST", "/webhooks", body)
        self.refused("GET", "/webhooks", viewer=False)
        added = self.plain.call("POST", "/webhooks", body)
        self.assertReply(added, 200)
        endpoint, secret = added.json["endpoint"]["id"], added.json["secret"]
        self.assertTrue(secret.startswith("whsec_"))
        self.assertEqual(added.json["endpoint"]["events"], ["user.created", "user.disabled"])
        listed = self.viewer.call("GET", "/webhooks")
        self.assertReply(listed, 200)
        self.assertIn(endpoint, [e["id"] for e in listed.json["endpoints"]])
        self.assertNotIn(secret, text_of(listed))
        self.assertEqual(audit_rows(self.site, "webhooks.add")[-1],
                         (str(self.plain.id), "endpoint %d" % endpoint, "http://127.0.0.1:9 events user.created,user.disabled"))
        path = "/webhooks/%d" % endpoint
        # Disable and enable (admin).
        self.refused("PATCH", path, {"enabled": False})
        disabled = self.plain.call("PATCH", path, {"enabled": False})
        self.assertReply(disabled, 200)
        self.assertFalse(disabled.json["endpoint"]["enabled"])
        self.assertEqual(sql_value("SELECT enabled FROM svc_webhook_endpoints WHERE id = %d" % endpoint), "0")
        self.assertTrue(self.plain.call("PATCH", path, {"enabled": True}).json["endpoint"]["enabled"])
        self.assertEqual([r[:2] for r in audit_rows(self.site, "webhooks.disable")][-1:],
                         [(str(self.plain.id), "endpoint %d" % endpoint)])
        self.assertEqual(len(audit_rows(self.site, "webhooks.enable")), 1)
        # Rotate the secret: destructive (recent sign-in).
        sealed = sql_value("SELECT secret FROM svc_webhook_endpoints WHERE id = %d" % endpoint)
        self.refused("POST", path + "/secret")
        self.assertExact(self.owner.call("POST", path + "/secret", token=self.stale), 401, RECENT)
        self.assertEqual(sql_value("SELECT secret FROM svc_webhook_endpoints WHERE id = %d" % endpoint), sealed)
        rotated = self.plain.call("POST", path + "/secret")
        self.assertReply(rotated, 200)
        self.assertNotEqual(rotated.json["secret"], secret)
        self.assertIsNotNone(rotated.json["endpoint"]["previous_secret_until"])
        self.assertEqual(audit_rows(self.site, "webhooks.rotate_secret")[-1][:2],
                         (str(self.plain.id), "endpoint %d" % endpoint))
        # No secret in any GET or audit row.
        for reply in (self.owner.call("GET", "/webhooks"), self.owner.call("GET", "/audit")):
            self.assertNotIn(secret, text_of(reply))
            self.assertNotIn(rotated.json["secret"], text_of(reply))
        self.assertNotIn("whsec_", str(sql("SELECT detail FROM svc_admin_audit WHERE site_id = %d" % self.site)))
        # Delete: destructive.
        self.refused("DELETE", path)
        self.assertExact(self.owner.call("DELETE", path, token=self.stale), 401, RECENT)
        self.assertReply(self.plain.call("DELETE", path), 200, {"status": "Success"})
        self.assertExact(self.plain.call("DELETE", path), 404, NO_ENDPOINT)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_webhook_endpoints WHERE id = %d" % endpoint), "0")
        self.assertEqual(audit_rows(self.site, "webhooks.delete")[-1][:2], (str(self.plain.id), "endpoint %d" % endpoint))

    def test_bad_endpoints_are_refused_and_nothing_is_added(self):
        count = sql_value("SELECT COUNT(*) FROM svc_webhook_endpoints WHERE site_id = %d" % self.site)
        for body, field in (({"url": "ftp://127.0.0.1/hook", "events": ["user.created"]}, "url"),
                            ({"url": "https://", "events": ["user.created"]}, "url"),
                            ({"url": HOOK, "events": ["user.exploded"]}, "events"),
                            ({"url": HOOK, "events": []}, "events"),
                            ({"url": HOOK}, "events"),
                            ({"url": HOOK, "events": ["user.created"], "secret": "mine"}, "secret")):
            with self.subTest(body=body):
                self.assertOnlyFields(self.owner.call("POST", "/webhooks", body), field)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_webhook_endpoints WHERE site_id = %d" % self.site), count)

    def test_another_sites_endpoint_is_not_found_and_untouched(self):
        theirs, _ = add_endpoint_cli(self.other_site)
        path = "/webhooks/%d" % theirs
        self.assertExact(self.owner.call("PATCH", path, {"enabled": False}), 404, NO_ENDPOINT)
        self.assertExact(self.owner.call("POST", path + "/secret"), 404, NO_ENDPOINT)
        self.assertExact(self.owner.call("DELETE", path), 404, NO_ENDPOINT)
        self.assertExact(self.owner.call("GET", "/webhooks/deliveries", query={"endpoint": theirs}), 404, NO_ENDPOINT)
        self.assertEqual(sql_value("SELECT enabled FROM svc_webhook_endpoints WHERE id = %d" % theirs), "1")
        self.assertNotIn(theirs, [e["id"] for e in self.owner.call("GET", "/webhooks").json["endpoints"]])

    def test_deliveries_in_keyset_pages(self):
        site = create_site("Hooks deliveries")
        owner = Admin(site, "owner")
        endpoint, _ = add_endpoint_cli(site, "user.disabled,user.enabled")
        _, uid = create_user(site, "toggled")
        for active in (False, True, False):
            self.assertReply(owner.call("PATCH", "/users/%d" % uid, {"active": active}), 200)
        first = owner.call("GET", "/webhooks/deliveries", query={"limit": 2})
        self.assertReply(first, 200)
        self.assertEqual([d["type"] for d in first.json["deliveries"]], ["user.disabled", "user.enabled"])
        self.assertEqual({d["endpoint_id"] for d in first.json["deliveries"]}, {endpoint})
        self.assertRegex(first.json["deliveries"][0]["created_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        second = owner.call("GET", "/webhooks/deliveries", query={"limit": 2, "cursor": first.json["next_cursor"]})
        self.assertEqual([d["type"] for d in second.json["deliveries"]], ["user.disabled"])
        self.assertIsNone(second.json["next_cursor"])
        tampered = first.json["next_cursor"][:-1] + ("A" if first.json["next_cursor"][-1] != "A" else "B")
        self.assertOnlyFields(owner.call("GET", "/webhooks/deliveries", query={"cursor": tampered}), "cursor")
        # Another site's admin sees none of them through their own site.
        theirs = self.stranger.call("GET", "/webhooks/deliveries")
        self.assertReply(theirs, 200)
        self.assertNotIn(endpoint, [d["endpoint_id"] for d in theirs.json["deliveries"]])
        # svc-admin: the same rows, times readable.
        listing = admin("webhook", "deliveries", "--site", str(site), "--limit", "2").stdout.splitlines()
        self.assertEqual(len(listing), 4, listing)  # header, two rows, "more: --cursor C"
        self.assertRegex(listing[1], r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\t")
        self.assertTrue(listing[3].startswith("more: --cursor "))

    def test_svc_admin_webhook_commands_write_the_audit_as_operator(self):
        site = create_site("Hooks CLI")
        endpoint, secret = add_endpoint_cli(site)
        admin("webhook", "disable", str(endpoint))
        admin("webhook", "enable", str(endpoint))
        rotated = admin("webhook", "rotate-secret", str(endpoint)).stdout.strip().split(" ", 1)[1]
        self.assertRegex(admin("webhook", "list", "--site", str(site)).stdout, r"(?m)^%d\tenabled\t" % endpoint)
        admin("webhook", "delete", str(endpoint))
        for action in ("webhooks.add", "webhooks.disable", "webhooks.enable", "webhooks.rotate_secret",
                       "webhooks.delete"):
            self.assertEqual([r[:2] for r in audit_rows(site, action)], [("operator", "endpoint %d" % endpoint)], action)
        audit = str(sql("SELECT * FROM svc_admin_audit WHERE site_id = %d" % site))
        self.assertNotIn(secret, audit)
        self.assertNotIn(rotated, audit)
        refused = admin("webhook", "add", "--site", str(site), "--url", "ftp://127.0.0.1/x", "--events",
                        "user.created", check=False)
        self.assertEqual(refused.returncode, 2, refused.stderr)

    # --- OAuth clients ------------------------------------------------------------

    def test_oauth_clients_created_rotated_deleted(self):
        body = {"name": "Shop", "redirect_uris": [CALLBACK]}
        # Client secrets are the owner's: an admin may not create one.
        self.assertExact(self.plain.call("POST", "/oauth-clients", body), 403, FORBIDDEN)
        self.refused("POST", "/oauth-clients", body)
        self.refused("GET", "/oauth-clients", viewer=False)
        created = self.owner.call("POST", "/oauth-clients", body)
        self.assertReply(created, 200)
        cid, secret = created.json["client"]["client_id"], created.json["client_secret"]
        self.assertEqual(created.json["client"]["type"], "confidential")
        self.assertEqual(audit_rows(self.site, "oauth_clients.create")[-1],
                         (str(self.owner.id), "client " + cid, "confidential, Shop"))
        shown = self.viewer.call("GET", "/oauth-clients/" + cid)
        self.assertReply(shown, 200)
        self.assertEqual(shown.json["client"]["redirect_uris"], [CALLBACK])
        listed = self.viewer.call("GET", "/oauth-clients")
        self.assertIn(cid, [c["client_id"] for c in listed.json["clients"]])
        for reply in (shown, listed):
            self.assertNotIn(secret, text_of(reply))
        # Rotate: owner, recent sign-in.
        stored = sql_value("SELECT secret_hash FROM svc_oauth_clients WHERE client_id = '%s'" % cid)
        path = "/oauth-clients/%s" % cid
        self.assertExact(self.plain.call("POST", path + "/secret"), 403, FORBIDDEN)
        self.refused("POST", path + "/secret")
        self.assertExact(self.owner.call("POST", path + "/secret", token=self.stale), 401, RECENT)
        self.assertEqual(sql_value("SELECT secret_hash FROM svc_oauth_clients WHERE client_id = '%s'" % cid), stored)
        rotated = self.owner.call("POST", path + "/secret")
        self.assertReply(rotated, 200)
        self.assertNotEqual(rotated.json["client_secret"], secret)
        self.assertEqual(audit_rows(self.site, "oauth_clients.rotate_secret")[-1], (str(self.owner.id), "client " + cid, ""))
        audit = text_of(self.owner.call("GET", "/audit")) + str(sql("SELECT * FROM svc_admin_audit"))
        self.assertNotIn(secret, audit)
        self.assertNotIn(rotated.json["client_secret"], audit)
        # A public client has no secret to rotate.
        public = self.owner.call("POST", "/oauth-clients", dict(body, public=True))
        self.assertNotIn("client_secret", public.json)
        self.assertExact(self.owner.call("POST", "/oauth-clients/%s/secret" % public.json["client"]["client_id"]),
                         409, {"status": "Failed", "message": "A public client has no secret"})
        # Delete: admin, recent sign-in.
        self.refused("DELETE", path)
        self.assertExact(self.owner.call("DELETE", path, token=self.stale), 401, RECENT)
        self.assertReply(self.plain.call("DELETE", path), 200, {"status": "Success", "sessions_ended": 0})
        self.assertExact(self.plain.call("GET", path), 404, NO_CLIENT)
        self.assertEqual(audit_rows(self.site, "oauth_clients.delete")[-1],
                         (str(self.plain.id), "client " + cid, "0 session(s) ended"))

    def test_bad_clients_are_refused_and_nothing_is_created(self):
        count = sql_value("SELECT COUNT(*) FROM svc_oauth_clients WHERE site_id = %d" % self.site)
        for body, field in (({"name": "X", "redirect_uris": []}, "redirect_uris"),
                            ({"name": "", "redirect_uris": [CALLBACK]}, "name"),
                            ({"name": "X", "redirect_uris": ["http://rp.example/cb"]}, "redirect_uris"),
                            ({"name": "X", "redirect_uris": ["https://user:pw@rp.example/cb"]}, "redirect_uris"),
                            ({"name": "X", "redirect_uris": [CALLBACK], "id_token_alg": "none"}, "id_token_alg"),
                            ({"name": "X", "redirect_uris": [CALLBACK], "client_secret": "mine"}, "client_secret")):
            with self.subTest(body=body):
                self.assertOnlyFields(self.owner.call("POST", "/oauth-clients", body), field)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_oauth_clients WHERE site_id = %d" % self.site), count)

    def test_another_sites_client_is_not_found_and_untouched(self):
        theirs = create_client_cli(self.other_site)
        cid = theirs["client_id"]
        stored = sql_value("SELECT secret_hash FROM svc_oauth_clients WHERE client_id = '%s'" % cid)
        self.assertExact(self.owner.call("GET", "/oauth-clients/" + cid), 404, NO_CLIENT)
        self.assertExact(self.owner.call("POST", "/oauth-clients/%s/secret" % cid), 404, NO_CLIENT)
        self.assertExact(self.owner.call("DELETE", "/oauth-clients/" + cid), 404, NO_CLIENT)
        self.assertEqual(sql_value("SELECT secret_hash FROM svc_oauth_clients WHERE client_id = '%s'" % cid), stored)
        self.assertNotIn(cid, [c["client_id"] for c in self.owner.call("GET", "/oauth-clients").json["clients"]])

    def test_svc_admin_oauth_client_commands_write_the_audit_as_operator(self):
        site = create_site("Clients CLI")
        made = create_client_cli(site)
        cid = made["client_id"]
        self.assertIn("created ", admin("oauth-client", "show", cid).stdout)
        self.assertRegex(admin("oauth-client", "show", cid).stdout, r"(?m)^created \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$")
        rotated = dict(line.split(" ", 1) for line in admin("oauth-client", "rotate-secret", cid).stdout.strip().splitlines())
        self.assertIn("0 session(s) ended", admin("oauth-client", "delete", cid).stdout)
        for action in ("oauth_clients.create", "oauth_clients.rotate_secret", "oauth_clients.delete"):
            self.assertEqual([r[:2] for r in audit_rows(site, action)], [("operator", "client " + cid)], action)
        audit = str(sql("SELECT * FROM svc_admin_audit WHERE site_id = %d" % site))
        self.assertNotIn(made["client_secret"], audit)
        self.assertNotIn(rotated["client_secret"], audit)
        refused = admin("oauth-client", "create", "--site", str(site), "--name", "X", "--redirect-uri", CALLBACK,
                        "--id-token-alg", "none", check=False)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("--id-token-alg expects RS256, ES256 or EdDSA", refused.stderr)



def tearDownModule():
    site_admins.forget_unheard_hooks()

if __name__ == "__main__":
    svc_stack.main()

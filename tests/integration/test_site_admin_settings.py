"""The site management API's Settings capability and the site key (issue
49, design "Site administrators and the site management API"), through
nginx, real workers and MariaDB, and the same through svc-admin.

- GET /settings (any role) and PATCH /settings (admin): name, sender,
  CC / BCC users given and returned as addresses of the site's pool and
  stored as user ids, the mail switches, the minimum password score,
  reset URLs, the passkey relying party. A setting out of range, an
  address of another pool, a bad URL or origin: 400 naming the field,
  nothing changed. One audit row "settings.update" per change.
- POST /key (owner, recent sign-in): a new site key shown once, never in a
  GET or the audit; the old key refused, the new one taken.
- Every route refused to a viewer writing, another site's admin, an admin
  without a second factor; `svc-admin site set` goes through the same
  service (actor operator, the same checks, its output unchanged).
"""

import re
import time

import svc_stack
from site_admins import Admin, audit_rows, create_site, create_user
from test_account_security import mint_refresh, refresh
from svc_stack import ApiTest, admin, post, sql, sql_value

FORBIDDEN = {"status": "Failed", "message": "Forbidden"}
SECOND_FACTOR = {"status": "Failed", "message": "Second factor required for site administration"}
RECENT = {"status": "Failed", "message": "Recent sign-in required, log in again"}
KEY_LINE = re.compile(r"^site_key: (\S+)$", re.M)


def site_row(site):
    return sql("SELECT name, email_cc, email_bcc, min_password_score, reset_url, api_key_hash FROM svc_sites"
               " WHERE id = %d" % site)[0]


def stale_token():
    """A new default-pool site, its owner, and a token of the owner's whose
    sign-in with a second factor was 11 minutes ago (test_site_admin's way)."""
    site = int(admin("site", "create", "--name", "Stale settings", "--domain", "stale-settings.example",
                     "--user-pool", "default").stdout.strip().splitlines()[-1])
    owner = Admin(site, "owner")
    stale = refresh(mint_refresh(owner.id, int(time.time()) - 11 * 60, amr=("pwd", "otp", "mfa")))
    assert stale.status == 200, stale
    return site, owner, stale.json["token"]["access_token"]


def send_with_key(site, key):
    """POST /message/notification with site key `key`: the messaging API's gate (401 for a wrong key)."""
    return post("/message/notification", {"event": "no-such-event", "email": "k@example.com"},
                headers={"site-id": str(site), "x-site-key": key})


class SiteSettingsTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Settings A")
        cls.other_site = create_site("Settings B")
        cls.owner = Admin(cls.site, "owner")
        cls.plain = Admin(cls.site, "admin")
        cls.viewer = Admin(cls.site, "viewer")
        cls.no_factor = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")

    def refused(self, method, path, body=None, viewer=True):
        """A viewer (for writes), another site's owner, an admin without a second factor: each refused."""
        if viewer:
            self.assertExact(self.viewer.call(method, path, body), 403, FORBIDDEN)
        self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
        self.assertExact(self.no_factor.call(method, path, body), 403, SECOND_FACTOR)

    def test_read_and_change_the_settings(self):
        cc_email, cc_id = create_user(self.site, "cc")
        before = site_row(self.site)
        shown = self.viewer.call("GET", "/settings")
        self.assertReply(shown, 200)
        self.assertEqual(shown.json["settings"]["name"], "Settings A")
        self.assertIsNone(shown.json["settings"]["email_cc"])
        self.assertEqual(shown.json["settings"]["min_password_score"], 0)
        self.assertIsInstance(shown.json["takes_effect_within_seconds"], int)
        self.refused("GET", "/settings", viewer=False)
        change = {"name": "Settings A2", "email_cc": cc_email, "min_password_score": 3, "verify_email": True,
                  "reset_urls": ["https://a.example/reset"], "passkey_rp_id": "localhost",
                  "passkey_origins": ["http://localhost:8080"]}
        self.refused("PATCH", "/settings", change)
        self.assertEqual(site_row(self.site), before)
        changed = self.plain.call("PATCH", "/settings", change)
        self.assertReply(changed, 200)
        settings = changed.json["settings"]
        self.assertEqual((settings["name"], settings["email_cc"], settings["min_password_score"],
                          settings["verify_email"], settings["reset_urls"], settings["passkey_rp_id"],
                          settings["passkey_origins"]),
                         ("Settings A2", cc_email, 3, True, ["https://a.example/reset"], "localhost",
                          ["http://localhost:8080"]))
        # Stored as the spec's site settings hold them: the CC user's id.
        row = site_row(self.site)
        self.assertEqual((row[0], row[1], row[3], row[4]), ("Settings A2", str(cc_id), "3", "https://a.example/reset"))
        self.assertEqual(self.viewer.call("GET", "/settings").json["settings"], settings)
        [(actor, target, detail)] = audit_rows(self.site, "settings.update")[-1:]
        self.assertEqual((actor, target), (str(self.plain.id), "site %d" % self.site))
        self.assertIn("min_password_score: 0 -> 3", detail)
        self.assertIn("email_cc: - -> %s" % cc_email, detail)
        # null removes the CC user.
        self.assertIsNone(self.owner.call("PATCH", "/settings", {"email_cc": None}).json["settings"]["email_cc"])
        self.assertIsNone(site_row(self.site)[1])

    def test_a_setting_out_of_range_changes_nothing(self):
        foreign, _ = create_user(self.other_site, "foreign-cc")
        before = site_row(self.site)
        audits = len(audit_rows(self.site, "settings.update"))
        for body, field in (({"min_password_score": 5, "name": "Changed"}, "min_password_score"),
                            ({"min_password_score": -1}, "min_password_score"),
                            ({"min_password_score": "3"}, "min_password_score"),
                            ({"email_cc": foreign}, "email_cc"),
                            ({"email_bcc": "nobody-%d@example.com" % self.site}, "email_bcc"),
                            ({"reset_urls": ["http://reset.example/r"]}, "reset_urls"),
                            ({"reset_urls": ["not a url"]}, "reset_urls"),
                            ({"passkey_rp_id": "https://x.example"}, "passkey_rp_id"),
                            ({"passkey_rp_id": "localhost", "passkey_origins": ["http://evil.example"]},
                             "passkey_origins"),
                            ({"email_from": "", "disable_email": False}, "email_from"),
                            ({"name": ""}, "name"),
                            ({"signup": "closed"}, "signup"),
                            ({}, "body")):
            with self.subTest(body=body):
                self.assertOnlyFields(self.owner.call("PATCH", "/settings", body), field)
        self.assertEqual(site_row(self.site), before)
        self.assertEqual(len(audit_rows(self.site, "settings.update")), audits)

    def test_site_key_rotation_shows_the_key_once(self):
        site, owner, stale = stale_token()
        old_key = KEY_LINE.search(admin("site", "set", "--site", str(site), "--api-key", "generate").stdout).group(1)
        # Owner only, with a recent sign-in; refused ones change nothing.
        hash_before = site_row(site)[5]
        self.assertExact(Admin(site, "viewer").call("POST", "/key"), 403, FORBIDDEN)
        self.assertExact(self.stranger.call("POST", "/key", site=site), 403, FORBIDDEN)
        self.assertExact(Admin(site, "owner", second_factor=False).call("POST", "/key"), 403, SECOND_FACTOR)
        self.assertExact(owner.call("POST", "/key", token=stale), 401, RECENT)
        self.assertEqual(site_row(site)[5], hash_before)
        rotated = owner.call("POST", "/key")
        self.assertReply(rotated, 200)
        key = rotated.json["site_key"]
        self.assertRegex(key, r"^[A-Za-z0-9_-]{43}$")
        self.assertNotEqual(site_row(site)[5], hash_before)
        seconds = svc_stack.cache_seconds("server", "site_cache_seconds", 1)
        changed = time.time()
        svc_stack.wait_for_every_worker("old key refused", lambda: send_with_key(site, old_key).status == 401,
                                        changed, seconds)
        self.assertEqual(send_with_key(site, key).status, 200)
        # Never again: not in the settings, not in the audit.
        for reply in (owner.call("GET", "/settings"), owner.call("GET", "/audit"), owner.call("GET", "")):
            self.assertNotIn(key, reply.raw if isinstance(reply.raw, str) else reply.raw.decode())
        self.assertNotIn(key, str(sql("SELECT * FROM svc_admin_audit WHERE site_id = %d" % site)))
        self.assertEqual(audit_rows(site, "site_key.rotate"),
                         [("operator", "site %d" % site, ""), (str(owner.id), "site %d" % site, "")])

    def test_svc_admin_site_set_goes_through_the_same_service(self):
        site = create_site("Settings CLI")
        _, cc_id = create_user(site, "cli-cc")
        _, foreign_id = create_user(self.other_site, "cli-foreign")
        out = admin("site", "set", "--site", str(site), "--min-password-score", "2", "--email-cc", str(cc_id),
                    "--name", "Settings CLI 2").stdout
        self.assertIn("min_password_score: 2\n", out)
        self.assertIn("email_cc:        %d\n" % cc_id, out)
        self.assertIn("name:            Settings CLI 2\n", out)
        [(actor, target, detail)] = audit_rows(site, "settings.update")
        self.assertEqual((actor, target), ("operator", "site %d" % site))
        self.assertIn("min_password_score: 0 -> 2", detail)
        # The service's checks, named by the command's options; nothing changed.
        for args, option in ((("--min-password-score", "7"), "--min-password-score"),
                             (("--email-cc", str(foreign_id)), "--email-cc"),
                             (("--reset-url", "http://reset.example/r"), "--reset-url"),
                             (("--rp-id", "localhost", "--origins", "http://evil.example"), "--origins")):
            with self.subTest(args=args):
                refused = admin("site", "set", "--site", str(site), *args, check=False)
                self.assertEqual(refused.returncode, 2, refused.stderr)
                self.assertIn(option, refused.stderr)
        self.assertEqual(len(audit_rows(site, "settings.update")), 1)
        # Options that are the operator's own write no settings audit row.
        admin("site", "set", "--site", str(site), "--active", "true")
        self.assertEqual(len(audit_rows(site, "settings.update")), 1)


if __name__ == "__main__":
    svc_stack.main()

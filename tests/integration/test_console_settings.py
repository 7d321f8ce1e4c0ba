"""The console's Settings and Sign-in sections (web/console/settings.js,
clients.js; issue 50) in Chromium (console_settings_browser.js) through
nginx, at 1280 and 390 px.

An owner (TOTP) turns the site's e-mail off (the site's row says so) and
back on, each saved with the field alone and audited as theirs; a reset URL
that is not absolute is said under its field and nothing is saved. The
owner registers an OAuth client: its secret is shown once and works (its
SHA-256 is what is stored), a name with markup is text. A viewer sees both
pages with no write button. axe-core finds no serious or critical
violation; nothing overflows at 390 px.
"""

import hashlib
import os

import svc_stack
from svc_stack import ApiTest, q, sql_value
from site_admins import PASSWORD, Admin, audit_rows
from test_console import assert_pages_fit, console_site, run_console_browser, with_totp

HOOK = "http://127.0.0.1:9/hook"  # the test stack admits loopback http receivers; nobody listens here
BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "console_settings_browser.js")


class ConsoleSettingsTest(ApiTest):
    def test_an_owner_turns_email_off_and_on_and_registers_a_client(self):
        site = console_site("Console settings", "console-settings.example")
        owner, owner_id, owner_secret = with_totp(site, "set-owner", "owner")
        viewer, _, viewer_secret = with_totp(site, "set-viewer", "viewer")
        args = {"owner": owner, "ownerSecret": owner_secret, "viewer": viewer, "viewerSecret": viewer_secret,
                "password": PASSWORD, "hook": HOOK}
        off = []

        def email_off():
            off.append(Admin(site, "viewer").call("GET", "/settings").json["settings"]["disable_email"])
            return "seen"

        seen = run_console_browser(self, BROWSER_SCRIPT, site, args, "email-off", email_off)
        states = seen["states"]

        self.assertIn("Settings", states["signedIn"]["nav"])
        self.assertIn("Sign-in", states["signedIn"]["nav"])
        self.assertFalse(states["settings"]["emailOff"])
        self.assertTrue(states["emailOff"]["emailOff"])
        self.assertEqual(off, [True])
        self.assertFalse(states["emailOn"]["emailOff"])
        self.assertEqual(Admin(site, "viewer").call("GET", "/settings").json["settings"]["disable_email"], False)
        details = [r[2] for r in audit_rows(site, "settings.update") if r[0] == str(owner_id)]
        self.assertEqual(len(details), 2, details)
        self.assertTrue(all("disable_email" in d for d in details), details)
        bad = states["badUrl"]
        self.assertTrue(bad["errors"], bad)
        self.assertTrue(any("Nothing was saved" in s for s in bad["status"]), bad)

        made = states["clientMade"]
        self.assertTrue(made["secretShown"])
        self.assertNotIn("No client yet.", made["status"])
        self.assertEqual(made["focused"], "client-secret-box")
        self.assertTrue(any("Shop app <b>" in r and "confidential" in r for r in made["rows"]), made["rows"])
        client_id = next(s for s in made["status"] if "is registered as" in s).rsplit(" ", 1)[1].rstrip(".")
        stored = sql_value("SELECT secret_hash FROM svc_oauth_clients WHERE client_id = %s" % q(client_id))
        self.assertEqual(stored.lower(), hashlib.sha256(made["secret"].encode()).hexdigest())
        self.assertEqual(audit_rows(site, "oauth_clients.create")[-1][0], str(owner_id))

        self.assertTrue(states["hookBad"]["errors"], states["hookBad"])
        made = states["hookMade"]
        self.assertTrue(made["hookSecret"].startswith("whsec_"), made)
        self.assertTrue(any(HOOK in r and "user.created, user.disabled" in r for r in made["hooks"]), made["hooks"])
        self.assertTrue(any(HOOK in r and "disabled" in r for r in states["hookDisabled"]["hooks"]))
        endpoints = Admin(site, "viewer").call("GET", "/webhooks").json["endpoints"]
        self.assertEqual([(e["url"], e["enabled"]) for e in endpoints], [(HOOK, False)])
        self.assertEqual(audit_rows(site, "webhooks.add")[-1][0], str(owner_id))
        self.assertEqual(audit_rows(site, "webhooks.disable")[-1][0], str(owner_id))

        for name in ("viewerSettings", "viewerClients", "viewerWebhooks"):
            self.assertEqual(states[name]["viewButtons"], [], (name, states[name]["viewButtons"]))
        self.assertTrue(states["viewerClients"]["rows"])

        assert_pages_fit(self, seen, 9)
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])


if __name__ == "__main__":
    svc_stack.main()

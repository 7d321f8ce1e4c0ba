"""The console's Settings, Sign-in and Webhooks sections
(web/console/settings.js, clients.js, webhooks.js; issue 50)
in Chromium (console_settings_browser.js) through nginx, at 1280 and 390 px.

An owner (TOTP) turns the site's e-mail off (the site's row says so) and
back on, each saved with the field alone and audited as theirs; a reset URL
that is not absolute is said under its field and nothing is saved. The
owner registers an OAuth client: its secret is shown once and works (its
SHA-256 is what is stored), a name with markup is text. The owner adds an
upstream OpenID Connect provider (another site of the stack, by its
discovery URL; an issuer whose discovery fails is said under its field),
its callback shown to register, and Google (a preset); the client secret
is typed in a password field and never shown again; Google is removed after
a confirmation. Webhooks: two endpoints, their deliveries a page at a time
("Older deliveries") and one endpoint's. A new signing secret asked with a
sign-in 11 minutes old (a token of the owner's made as test_site_admin
makes one, sent in place of the page's on that request) opens the sign-in
over the page; once signed in the pending change is made and the new secret
shown once. A viewer sees the three pages with no write button.
axe-core finds no serious or critical violation; nothing overflows at 390 px.
"""

import hashlib
import json
import os
import time

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, q, sql, sql_value
from site_admins import PASSWORD, Admin, audit_rows
from test_account_security import mint_refresh, refresh
from test_console import assert_pages_fit, console_site, run_console_browser, with_totp

HOOK = "http://127.0.0.1:9/hook"  # the test stack admits loopback http receivers; nobody listens here
OTHER_HOOK = "http://127.0.0.1:9/other"
PROVIDER_SECRET = "corp-secret-never-shown"
# Buttons that change nothing: a viewer sees them.
READ_ONLY_BUTTONS = ("Show", "Older deliveries")


def queue_deliveries(site, endpoint, count):
    """`count` finished deliveries of `endpoint` (as svc-sender leaves them)."""
    now = int(time.time())
    sql("INSERT INTO svc_webhook_deliveries (endpoint_id, site_id, msg_id, event_type, data, created_at, status,"
        " attempts, next_attempt_at, last_status, finished_at) VALUES " + ", ".join(
            "(%d, %d, %s, 'user.created', '{}', %d, 'delivered', 1, %d, 200, %d)" % (
                endpoint, site, q("msg_%d_%d_%d" % (endpoint, now, i)), now - i, now, now) for i in range(count)))


BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "console_settings_browser.js")


def apple_p8():
    """A P-256 key in PKCS#8 PEM, as Apple's .p8 file is."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode().strip()


class ConsoleSettingsTest(ApiTest):
    def test_an_owner_runs_settings_sign_in_and_webhooks(self):
        site = console_site("Console settings", "console-settings.example")
        owner, owner_id, owner_secret = with_totp(site, "set-owner", "owner")
        viewer, _, viewer_secret = with_totp(site, "set-viewer", "viewer")
        upstream = console_site("Console upstream", "console-upstream.example")
        issuer = "http://localhost:%d/oidc/%d" % (HTTP_PORT, upstream)
        args = {"owner": owner, "ownerSecret": owner_secret, "viewer": viewer, "viewerSecret": viewer_secret,
                "password": PASSWORD, "hook": HOOK, "otherHook": OTHER_HOOK, "issuer": issuer,
                "appleKey": apple_p8()}
        off = []

        def email_off():
            off.append(Admin(site, "viewer").call("GET", "/settings").json["settings"]["disable_email"])
            return "seen"

        def endpoint_id(url):
            return int(sql_value("SELECT id FROM svc_webhook_endpoints WHERE site_id = %d AND url = %s" % (site, q(url))))

        queued = {}

        def deliveries():
            """25 deliveries of the first endpoint, 3 of the other."""
            queue_deliveries(site, endpoint_id(HOOK), 25)
            queue_deliveries(site, endpoint_id(OTHER_HOOK), 3)

            def count(where):
                return int(sql_value("SELECT COUNT(*) FROM svc_webhook_deliveries WHERE site_id = %d%s" % (site, where)))

            queued.update({"all": count(""), "other": count(" AND endpoint_id = %d" % endpoint_id(OTHER_HOOK)),
                           "otherId": endpoint_id(OTHER_HOOK)})
            return json.dumps(queued)

        def stale_token():
            """A token of the owner's whose sign-in with a second factor was 11 minutes ago."""
            stale = refresh(mint_refresh(owner_id, int(time.time()) - 11 * 60, amr=("pwd", "otp", "mfa")))
            self.assertEqual(stale.status, 200, stale)
            return stale.json["token"]["access_token"]

        seen = run_console_browser(self, BROWSER_SCRIPT, site, args, "email-off", email_off,
                                   more=[("deliveries", deliveries), ("stale-token", stale_token)])
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

        # Upstream providers.
        bad = states["providerBad"]
        self.assertTrue(bad["issuerError"], bad)
        self.assertEqual(bad["secretField"], "password")
        made = states["providerMade"]
        self.assertTrue(made["callback"].endswith("/oidc/%d/upstream/corp/callback" % site), made)
        self.assertTrue(any(r.startswith("corp " + issuer) and "trusts its addresses" in r for r in made["providers"]),
                        made["providers"])
        self.assertEqual(states["providerMade"]["focused"], "provider-callback-box")
        self.assertTrue(any(r.startswith("google https://accounts.google.com") for r in states["google"]["providers"]),
                        states["google"]["providers"])
        self.assertNotIn(PROVIDER_SECRET, json.dumps(seen))
        self.assertTrue(any("google is removed." in s for s in states["providerRemoved"]["status"]))
        listed = Admin(site, "viewer").call("GET", "/providers").json["providers"]
        self.assertEqual([(p["name"], p["issuer"], p["client_id"], p["trust_email"]) for p in listed],
                         [("corp", issuer, "corp-client", True)])
        # Apple: the key's field in place of the secret's; a bad key refused
        # next to it; the listing shows the team and key id, never the key.
        self.assertEqual(states["appleForm"], {"secretHidden": True, "keyShown": True})
        self.assertIn("not a P-256 key", states["appleBadKey"]["error"])
        self.assertEqual(states["appleBadKey"]["focused"], "provider-key-p8")
        apple = [r for r in states["apple"]["providers"] if r.startswith("apple ")]
        self.assertEqual(len(apple), 1, states["apple"]["providers"])
        self.assertIn("Apple key TEAM123456/KEY9876543", apple[0])
        self.assertNotIn("PRIVATE KEY", json.dumps(seen))
        self.assertEqual([r[:2] for r in audit_rows(site, "providers.add") + audit_rows(site, "providers.remove")],
                         [(str(owner_id), "provider corp"), (str(owner_id), "provider google"),
                          (str(owner_id), "provider apple"), (str(owner_id), "provider google"),
                          (str(owner_id), "provider apple")])

        self.assertTrue(states["hookBad"]["errors"], states["hookBad"])
        made = states["hookMade"]
        self.assertTrue(made["hookSecret"].startswith("whsec_"), made)
        self.assertTrue(any(HOOK in r and "user.created, user.disabled" in r for r in made["hooks"]), made["hooks"])
        self.assertTrue(any(HOOK in r and "disabled" in r for r in states["hookDisabled"]["hooks"]))
        endpoints = Admin(site, "viewer").call("GET", "/webhooks").json["endpoints"]
        self.assertEqual([(e["url"], e["enabled"]) for e in endpoints], [(HOOK, False), (OTHER_HOOK, True)])
        self.assertEqual(audit_rows(site, "webhooks.add")[-1][0], str(owner_id))
        self.assertEqual(audit_rows(site, "webhooks.disable")[-1][0], str(owner_id))

        # Deliveries a page at a time, then one endpoint's.
        first, every, other = states["deliveriesFirst"], states["deliveriesAll"], states["deliveriesOther"]
        self.assertEqual((first["deliveries"], first["older"]), (20, True))
        self.assertGreaterEqual(queued["all"], 28)
        self.assertEqual(every["deliveries"], queued["all"])
        self.assertFalse(every["older"])
        self.assertEqual(every["focused"], "deliveries-status")
        self.assertEqual((other["deliveries"], other["older"]), (3, False))

        # A new secret with a sign-in 11 minutes old: asked to sign in again
        # over the page, the change made after it, the new secret shown once.
        recent = states["recentNeeded"]
        self.assertTrue(recent["dialogOpen"])
        self.assertIn("last 10 minutes", recent["dialogWhy"])
        self.assertEqual(recent["hookSecret"], "")  # nothing changed yet: the change waits
        self.assertEqual(seen["secretReplies"], [401, 200])
        rotated = states["rotated"]
        self.assertFalse(rotated["dialogOpen"])
        self.assertTrue(rotated["hookSecret"].startswith("whsec_"), rotated)
        self.assertNotEqual(rotated["hookSecret"], states["otherHookMade"]["hookSecret"])
        self.assertEqual([r[:2] for r in audit_rows(site, "webhooks.rotate_secret")],
                         [(str(owner_id), "endpoint %d" % endpoint_id(OTHER_HOOK))])
        self.assertIsNotNone(sql_value("SELECT previous_secret FROM svc_webhook_endpoints WHERE id = %d"
                                       % endpoint_id(OTHER_HOOK)))

        for name in ("viewerSettings", "viewerClients", "viewerWebhooks"):
            writes = [b for b in states[name]["viewButtons"] if b not in READ_ONLY_BUTTONS]
            self.assertEqual(writes, [], (name, states[name]["viewButtons"]))
        self.assertTrue(states["viewerClients"]["rows"])
        self.assertEqual(len(states["viewerClients"]["providers"]), 1)
        self.assertIsNone(states["viewerClients"]["secretField"])
        self.assertEqual(Admin(site, "viewer").call("POST", "/providers", {
            "name": "google", "client_id": "x", "client_secret": "y"}).status, 403)

        assert_pages_fit(self, seen, 10)
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])


if __name__ == "__main__":
    svc_stack.main()

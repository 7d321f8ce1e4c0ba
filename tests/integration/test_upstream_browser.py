"""Sign in with an upstream provider in headless Chromium (issue 51;
upstream_browser.js, puppeteer-core, one launch):

- on the relying site's hosted OpenID Connect sign-in page, the provider's
  button leads to the upstream (svc's own provider on another site of the
  stack), whose sign-in page takes the upstream user's password, and the
  browser comes back to the client signed in: the relying site now has
  that user, verified, with the identity linked;
- in the account centre, by clicking: user B's "Link" with user A's
  upstream account (linked to A already) ends on a page saying nothing
  was linked, and nothing is; with B's own upstream account it is linked
  to B and the centre lists it; Unlink (by keyboard) removes it.

Screenshots: $SVC_BIN_DIR/test-output/upstream/*.png.
"""

import json
import os
import subprocess
import tempfile
import urllib.parse

import svc_stack
from svc_stack import ApiTest, admin, q, sql, sql_value, unique_email
from test_upstream_signin import BASE, PASSWORD, new_site, new_user, pool_of, secret_file
import runner

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "upstream")
REDIRECT_URI = "http://127.0.0.1:9/app/callback"


class UpstreamBrowserTest(ApiTest):
    def test_sign_in_with_the_upstream_and_link_from_the_account_centre(self):
        up = new_site("Upstream IdP")
        rp = new_site("Relying site")
        pool = pool_of(rp)
        callback = "%s/oidc/%d/upstream/svc-up/callback" % (BASE, rp)
        up_client = json.loads(admin("oauth-client", "create", "--site", str(up), "--name", "Relying site",
                                     "--redirect-uri", callback, "--first-party", "--json").stdout)
        admin("site", "provider", "add", "--site", str(rp), "--name", "svc-up", "--type", "oidc",
              "--issuer", "%s/oidc/%d" % (BASE, up), "--client-id", up_client["client_id"],
              "--client-secret-file", secret_file(up_client["client_secret"]))
        client = json.loads(admin("oauth-client", "create", "--site", str(rp), "--name", "App",
                                  "--redirect-uri", REDIRECT_URI, "--first-party", "--json").stdout)
        upstream_a = unique_email("br-up-a")
        upstream_b = unique_email("br-up-b")
        user_b = unique_email("br-b")
        new_user(up, upstream_a)
        new_user(up, upstream_b)
        uid_b = new_user(rp, user_b)
        authorize = "%s/oidc/%d/authorize?%s" % (BASE, rp, urllib.parse.urlencode(
            {"client_id": client["client_id"], "redirect_uri": REDIRECT_URI, "response_type": "code",
             "scope": "openid email", "state": "rp-state"}))
        config = {"authorize": authorize, "redirectUri": REDIRECT_URI, "centre": "%s/account/?site=%d" % (BASE, rp),
                  "provider": "svc-up", "password": PASSWORD, "upstreamA": upstream_a, "upstreamB": upstream_b,
                  "userB": user_b}
        with tempfile.TemporaryFile("w+") as err:
            done = subprocess.run(["node", DRIVER, OUT_DIR, json.dumps(config)], stdout=subprocess.PIPE, stderr=err,
                                  text=True, timeout=240, env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
            err.seek(0)
            self.assertEqual(done.returncode, 0, err.read())
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])

        # Part 1: back at the client with a code, signed in as a new, verified user.
        self.assertEqual(seen["buttonText"], "Sign in with Svc-up")
        self.assertTrue(seen["upstreamPage"].startswith("%s/auth/oidc/sign-in" % BASE), seen["upstreamPage"])
        back = urllib.parse.urlsplit(seen["backAtClient"])
        query = dict(urllib.parse.parse_qsl(back.query))
        self.assertEqual((back.scheme + "://" + back.netloc + back.path, query.get("state")),
                         (REDIRECT_URI, "rp-state"))
        self.assertTrue(query.get("code"), seen["backAtClient"])
        uid_a = sql_value("SELECT id FROM svc_users WHERE user_email = %s AND pool_id = %d" % (q(upstream_a), pool))
        self.assertIsNotNone(uid_a)
        self.assertIsNotNone(sql_value("SELECT email_verified_at FROM svc_users WHERE id = %s" % uid_a))
        rows = sql("SELECT user_id, provider FROM svc_user_identities WHERE pool_id = %d" % pool)

        # Part 2: the centre offers the site's provider; A's upstream account is refused for B.
        before = seen["centreBefore"]
        self.assertEqual(before["sectionTitle"], "Linked sign-in")
        self.assertEqual(before["identities"], ["No linked accounts yet."])
        self.assertEqual(before["linkButtons"], ["Link your Svc-up account"])
        self.assertTrue(all(before["labels"]), before)
        self.assertTrue(seen["linkUpstreamPage"].startswith("%s/auth/oidc/sign-in" % BASE), seen["linkUpstreamPage"])
        refused = seen["refused"]
        self.assertEqual(refused["title"], "Nothing was linked")
        self.assertIn("linked to another user already", refused["text"])
        self.assertEqual(refused["back"], "/account/?site=%d" % rp)
        self.assertEqual(rows, [[uid_a, "svc-up"]])
        self.assertEqual(seen["centreAfterRefusal"]["identities"], ["No linked accounts yet."])

        # B's own upstream account: linked to B, listed, then unlinked.
        self.assertEqual(seen["linked"]["title"], "Account linked")
        self.assertIn(upstream_b, seen["linked"]["text"])
        linked = seen["centreLinked"]
        self.assertEqual(len(linked["identities"]), 1, linked)
        self.assertTrue(linked["identities"][0].startswith("Svc-up (%s), linked " % upstream_b), linked)
        self.assertEqual(linked["unlinkLabels"], ["Unlink Svc-up (%s)" % upstream_b])
        self.assertIn("is unlinked", seen["centreUnlinked"]["status"])
        self.assertEqual(seen["centreUnlinked"]["identities"], ["No linked accounts yet."])
        self.assertEqual(sql("SELECT user_id FROM svc_user_identities WHERE pool_id = %d ORDER BY id" % pool),
                         [[uid_a]])
        self.assertEqual(int(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'identity_linked'"
                                       " AND user_id = %d" % uid_b)), 1)
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)


if __name__ == "__main__":
    runner.main()

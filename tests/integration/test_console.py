"""The site console (/console/?site=N, web/console/; issue 50) in Chromium
(console_browser.js, puppeteer-core, axe-core from the repo-root npm lock)
through nginx, at 1280 and 390 px.

An owner made as the demo's is (a user of the site's pool with a TOTP
secret imported by `svc-admin users mfa-import`, granted owner) signs in by
keyboard with the password and an oathtool code, finds a user by typing the
start of the address, opens them (sessions read "Safari on iPhone · …", a
name with markup is text), ends their sessions (their refresh token is then
refused), disables and enables them; the Admins page refuses an unknown
address next to its field; the Audit page lists the changes. The owner then
ends their own sessions: the next call's 401 opens the sign-in over the page,
which stays, and the call goes on after it. A viewer sees no write button
(and the API refuses their write anyway); an administrator without a second
factor is sent to enrol one. The viewer signs in with an e-mailed code
(from the SMTP sink) and TOTP. axe-core finds no serious or critical violation
on any page at either width; the first load is under 150 KB.

Screenshots: $SVC_BIN_DIR/test-output/console/*.png (copies at 1280 and 390
px are committed in docs/screenshots/console-*.png).
"""

import base64
import json
import os
import re
import subprocess
import tempfile

import svc_stack
from svc_stack import ApiTest, HTTP_PORT, admin, post, q, request, sql_value, unique_email
from page_checks import assert_strict_page
from site_admins import PASSWORD, Admin, audit_rows, create_user, login
from test_email_identity import code_of, delivered

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "console_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "console")
ORIGIN = "http://127.0.0.1:%d" % HTTP_PORT
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")
MARKUP_NAME = "<img src=x onerror=alert(1)>"


def console_site(name, domain):
    """A new site that sends mail from no-reply@`domain`; returns its id."""
    return int(admin("site", "create", "--name", name, "--domain", domain,
                     "--email-from", "%s <no-reply@%s>" % (name, domain),
                     "--reset-url", ORIGIN + "/account/reset").stdout.strip().splitlines()[-1])


def with_totp(site, prefix, role):
    """A user of `site`'s pool with an imported TOTP secret and `role`; returns (email, id, secret)."""
    email, uid = create_user(site, prefix)
    secret = base64.b32encode(os.urandom(20)).decode()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(secret + "\n")
    try:
        admin("users", "mfa-import", "--site", str(site), "--email", email, "--secret-file", f.name)
    finally:
        os.unlink(f.name)
    admin("site", "admin", "add", "--site", str(site), "--email", email, "--role", role)
    return email, uid, secret


def run_console_browser(test, script, site, args, need, answer, more=()):
    """Runs the Chromium driver `script` on the site's console; when it asks
    for `need` (one JSON line {"need": need}), answers with answer() (one
    line), then each (need, answer) of `more` in turn; returns the JSON it
    printed last."""
    cmd = ["node", script, "%s/console/?site=%d" % (ORIGIN, site), OUT_DIR, json.dumps(args)]
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                                env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        try:
            for wanted, reply in [(need, answer)] + list(more):
                asked = proc.stdout.readline()
                err.seek(0)
                test.assertEqual(json.loads(asked or "null"), {"need": wanted}, asked or err.read())
                proc.stdin.write(reply() + "\n")
                proc.stdin.flush()
            out, _ = proc.communicate(timeout=400)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        test.assertEqual(proc.returncode, 0, err.read())
    return json.loads(out.strip().splitlines()[-1])


def assert_pages_fit(test, seen, min_axe):
    """Every page the driver measured (seen["widths"]) has no sideways
    overflow, a label on each field and nothing in web storage; axe-core
    found no serious or critical violation on any of at least `min_axe`
    pages; every screenshot was written."""
    for name, state in seen["widths"].items():
        test.assertFalse(state["overflow"], name)
        test.assertTrue(state["labels"], name)
        test.assertEqual(state["storage"], 0, name)
    for page, violations in seen["axe"].items():
        test.assertEqual(violations, [], page)
    test.assertGreaterEqual(len(seen["axe"]), min_axe)
    for path in seen["screenshots"]:
        test.assertGreater(os.path.getsize(path), 1000, path)


class ConsoleTest(ApiTest):
    def run_browser(self, site, args):
        """Runs console_browser.js, answering its request for the viewer's
        e-mailed code; returns what it printed last."""
        return run_console_browser(self, BROWSER_SCRIPT, site, args, "code",
                                   lambda: code_of(delivered(args["viewer"])))

    def test_page_is_served_with_the_strict_policy(self):
        page = assert_strict_page(self, "/console/", ())
        self.assertEqual(page.headers.get("cache-control"), "no-store")
        self.assertNotIn("blob:", page.headers["content-security-policy"])
        html = page.raw.decode()
        assets = re.findall(r'<(?:script src|link rel="stylesheet" href)="(/[^"]+)"', html)
        self.assertIn("/console/console.js", assets)
        for path in assets:
            reply = request("GET", path)
            self.assertEqual(reply.status, 200, path)
            kind = "text/javascript" if path.endswith(".js") else "text/css"
            self.assertTrue(reply.headers["content-type"].startswith(kind), (path, reply.headers))
            # No script builds markup from strings: data is shown as text.
            if path.startswith("/console/"):
                self.assertNotRegex(reply.raw.decode(), r"innerHTML|outerHTML|insertAdjacentHTML|document\.write",
                                    path)
        for path, status in (("/console/?site=1", 200), ("/console", 301), ("/console/nothing.html", 404)):
            self.assertEqual(request("GET", path).status, status, path)
        redirect = request("GET", "/console/?site=1&token=abc")
        self.assertEqual((redirect.status, redirect.headers.get("location")), (303, "/console/"))
        moved = request("GET", "/console?site=7")
        self.assertEqual((moved.status, moved.headers.get("location")), (301, "/console/?site=7"))
        self.assertEqual(request("POST", "/console/console.js").status, 403)

    def test_an_owner_runs_the_users_in_the_browser(self):
        site = console_site("Console", "console.example")
        owner, owner_id, owner_secret = with_totp(site, "console-owner", "owner")
        viewer, _, viewer_secret = with_totp(site, "console-viewer", "viewer")
        lost, lost_id, _ = with_totp(site, "console-lost", "viewer")
        admin("site", "admin", "remove", "--site", str(site), "--email", lost)
        invitee = unique_email("console-invitee")
        no_factor, _ = create_user(site, "console-nofactor")
        admin("site", "admin", "add", "--site", str(site), "--email", no_factor, "--role", "admin")
        target = unique_email("console-target")
        target_id = int(admin("user", "create", "--email", target, "--site", str(site), "--first", MARKUP_NAME,
                              "--last", "Tester", "--verified", stdin=PASSWORD + "\n").stdout.strip().splitlines()[-1])
        # The target's two sessions, from an iPhone.
        refresh = []
        for _ in range(2):
            reply = request("POST", "/auth/login", {"email": target, "password": PASSWORD, "appID": site},
                            headers={"User-Agent": IPHONE})
            self.assertEqual(reply.status, 200, reply)
            refresh.append(reply.json["token"])
        args = {"owner": owner, "ownerId": owner_id, "ownerSecret": owner_secret, "password": PASSWORD,
                "search": target.split("@")[0][:-3], "target": target, "targetId": target_id,
                "viewer": viewer, "viewerSecret": viewer_secret, "noFactor": no_factor,
                "lostId": lost_id, "invitee": invitee}
        seen = self.run_browser(site, args)
        states = seen["states"]

        self.assertLess(seen["firstLoadBytes"], 150 * 1024)
        self.assertGreater(seen["firstLoadBytes"], 0)
        self.assertEqual(states["loaded"]["site"], "Console")
        self.assertEqual(states["loaded"]["focusedAtLoad"], "email")
        self.assertEqual(seen["mfaFocus"], "mfa-code")
        self.assertEqual(states["signedIn"]["nav"], ["Users", "Admins", "Templates", "Mail", "Settings", "Sign-in", "Webhooks", "Audit"])
        self.assertEqual(states["signedIn"]["current"], ["Users"])

        # Found by the start of the address; the name with markup is text.
        self.assertEqual(len(states["found"]["rows"]), 1, states["found"])
        self.assertIn(target, states["found"]["rows"][0])
        self.assertEqual(seen["linkFocused"], target)
        # Typed key by key, searched after pauses only (not once a key).
        searches = [r for r in seen["requests"] if re.search(r"/users\?q=console-target", r)]
        self.assertTrue(searches)
        self.assertLess(len(searches), len(args["search"]) // 2, searches)
        user = states["user"]
        self.assertEqual(user["h1"], [target])
        self.assertEqual(user["images"], 0)
        self.assertIn(MARKUP_NAME + " Tester", user["facts"])
        self.assertIn(MARKUP_NAME + " Tester", states["found"]["rows"][0])
        sessions = [r for r in user["rows"] if r.startswith("Safari on iPhone · ")]
        self.assertEqual(len(sessions), 2, user["rows"])
        self.assertTrue(all(re.search(r"· (just now|a minute ago|\d+ minutes ago)", s) for s in sessions), sessions)
        self.assertNotIn("Mozilla", json.dumps(user))
        self.assertNotRegex(json.dumps(user["rows"] + user["facts"]), r"\d{4}-\d\d-\d\dT|\b1[0-9]{9}\b")
        self.assertIn("Disable", user["viewButtons"])
        self.assertIn("End sessions", user["viewButtons"])

        self.assertEqual(seen["confirmFocus"], "Cancel")
        self.assertIn("Ended 2 sessions.", states["ended"]["status"])
        self.assertIn("No open session.", states["ended"]["rows"])
        for token in refresh:
            reply = post("/auth/refresh-token", {"payload": {"access_token": token["access_token"],
                                                             "refresh_token": token["refresh_token"]}})
            self.assertEqual(reply.status, 401, reply)
        self.assertIn("Disabled: cannot sign in", states["disabled"]["facts"])
        self.assertIn("Enable", states["disabled"]["viewButtons"])
        self.assertIn("Active", states["enabled"]["facts"])
        self.assertEqual(login(target, site).status, 200)  # enabled again
        for action in ("users.sessions_end", "users.disable", "users.enable"):
            rows = audit_rows(site, action)
            self.assertTrue(rows and rows[0][0] == str(owner_id), (action, rows))
            self.assertEqual(rows[0][1], "user %d" % target_id)

        # The users2 actions: a reset mail, a lost second factor, an invitation, a deletion.
        self.assertIn("A link to choose a new password is on its way to %s." % target, states["resetSent"]["status"])
        self.assertIsNotNone(svc_stack.newest_outbox_id(target))
        self.assertIn("The second factor is removed: %s signs in with the password alone." % lost,
                      states["mfaReset"]["status"])
        self.assertNotIn("Remove the second factor", states["mfaReset"]["viewButtons"])
        self.assertEqual(login(lost, site).status, 200)  # the password alone now
        self.assertTrue(any(invitee in s for s in states["invited"]["status"]), states["invited"])
        self.assertIsNotNone(svc_stack.newest_outbox_id(invitee))
        self.assertEqual(seen["deleteFocus"], "delete-confirm")
        self.assertTrue(any(invitee in e for e in states["deleteWrong"]["errors"]), states["deleteWrong"])
        self.assertIn("%s is deleted." % invitee, states["deleted"]["status"])
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(invitee)), "0")
        for action in ("users.password_reset", "users.mfa_reset", "users.create", "users.delete"):
            self.assertEqual(audit_rows(site, action)[-1][0], str(owner_id), action)

        self.assertTrue(any(owner in r for r in states["admins"]["rows"]), states["admins"])
        self.assertTrue(any("No user of this site has that address." in e for e in states["adminMissing"]["errors"]),
                        states["adminMissing"])
        self.assertTrue(any(target in r and "admin" in r for r in states["adminAdded"]["rows"]), states["adminAdded"])
        self.assertEqual(seen["removeFocus"], "Cancel")
        self.assertFalse(any(target in r for r in states["adminRemoved"]["rows"]), states["adminRemoved"])
        self.assertEqual(audit_rows(site, "admins.add")[-1][0], str(owner_id))
        self.assertEqual(audit_rows(site, "admins.remove")[-1][0], str(owner_id))
        self.assertTrue(any("users.disable" in r for r in states["audit"]["rows"]), states["audit"])
        self.assertEqual(seen["skip"], {"first": "skip", "focused": "Audit log", "hash": "#audit"})
        self.assertTrue(any("admins.remove" in r and "by you" in r for r in states["audit"]["rows"]), states["audit"])

        for name, state in list(seen["widths"].items()) + [(k, states[k]) for k in ("loaded", "reauth", "noFactor390")]:
            self.assertFalse(state["overflow"], name)
            self.assertTrue(state["labels"], name)
            self.assertEqual(state["storage"], 0, name)

        # The sign-in ended mid-session: asked again over the page, which stayed.
        reauth = states["reauth"]
        self.assertTrue(reauth["dialogOpen"], reauth)
        self.assertEqual(reauth["email"], owner)
        self.assertEqual(reauth["h1"], [owner])
        self.assertEqual(reauth["focused"], "password")
        after = states["afterReauth"]
        self.assertFalse(after["dialogOpen"])
        self.assertEqual(after["h1"], [owner])
        self.assertTrue(any(s.startswith("Ended ") for s in after["status"]), after)

        # A viewer: no write button anywhere; the API refuses anyway.
        for name in ("viewerUsers", "viewerUser", "viewerUser390", "viewerAdmins"):
            self.assertEqual(states[name]["viewButtons"], [], (name, states[name]))
        self.assertEqual(seen["codeFocus"], "email-code")
        self.assertEqual(states["viewerUser"]["h1"], [target])
        self.assertTrue(any(viewer in r for r in states["viewerAdmins"]["rows"]))
        api_viewer = Admin(site, "viewer")
        self.assertEqual(api_viewer.call("PATCH", "/users/%d" % target_id, {"active": False}).status, 403)
        self.assertEqual(api_viewer.call("DELETE", "/users/%d/sessions" % target_id).status, 403)

        # No second factor: sent to enrol one in the account centre.
        self.assertIn("needs a second factor", states["noFactor"]["refused"])
        self.assertEqual(states["noFactor"]["enrolLink"], "/account/?site=%d" % site)

        self.assertIn("/console/?site=N", states["noSite"]["general"])
        self.assertIn("no site 987654321", states["unknownSite"]["general"])
        self.assertFalse(states["noSite"]["signInShown"] or states["unknownSite"]["signInShown"])
        self.assertTrue(states["unknownSite"]["url"].endswith("/console/"), states["unknownSite"])

        for page, violations in seen["axe"].items():
            self.assertEqual(violations, [], page)
        self.assertGreaterEqual(len(seen["axe"]), 12)
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertEqual(seen["cookies"], 0)
        self.assertTrue(all(r.split(" ", 1)[1].startswith(ORIGIN + "/") for r in seen["requests"]), seen["requests"])
        self.assertFalse([r for r in seen["requests"] if " %s/admin/" % ORIGIN in r and "/sites/%d" % site not in r])
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)


if __name__ == "__main__":
    svc_stack.main()

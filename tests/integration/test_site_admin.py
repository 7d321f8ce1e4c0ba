"""The site management API's rules and its Users and Admins capabilities
(issue 49, design "Site administrators and the site management API"),
through nginx, real workers and MariaDB, and the same through svc-admin.

- Who may call: no token 401; a user without a grant, or with a grant on
  another site, 403 Forbidden; a session without a second factor 403
  "Second factor required for site administration"; a viewer writing 403
  Forbidden; a destructive change after a stale sign-in 401 "Recent sign-in
  required, log in again". Each refusal changes nothing.
- Users: search by address prefix in keyset pages (a changed cursor is
  400), show, disable (sign-in refused exactly like a wrong password, the
  refresh token dies) and enable, end sessions; never a user of another pool.
- Admins: an owner grants and removes, never the last owner.
- Every change writes one svc_admin_audit row (actor the admin's id, or
  "operator" from svc-admin), which GET /audit and `svc-admin audit` list.
"""

import json
import time

import svc_stack
from site_admins import (FORBIDDEN, NOT_FOUND, RECENT, SECOND_FACTOR, UNAUTHORIZED, Admin, audit_rows, create_site,
                         create_user, forget_unheard_hooks, login)
from test_account_security import mint_refresh, refresh
from svc_stack import ApiTest, admin, post, sql, sql_value



class SiteAdminTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Managed A")
        cls.other_site = create_site("Managed B")
        cls.owner = Admin(cls.site, "owner")
        cls.viewer = Admin(cls.site, "viewer")
        cls.plain_admin = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")
        # An endpoint nobody listens on: its queued deliveries show the events.
        admin("webhook", "add", "--site", str(cls.site), "--url", "http://127.0.0.1:9/hook", "--events",
              "user.disabled,user.enabled")

    @classmethod
    def tearDownClass(cls):
        forget_unheard_hooks()

    def refused_everywhere(self, method, path, body=None):
        """Every caller but an admin of the site with a second factor is refused, the same way on each route."""
        self.assertExact(self.owner.call(method, path, body, token="x.y.z"), 401, UNAUTHORIZED)
        self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
        self.assertExact(self.plain_admin.call(method, path, body), 403, SECOND_FACTOR)

    def test_who_may_call(self):
        for method, path in (("GET", ""), ("GET", "/users"), ("GET", "/admins"), ("GET", "/audit")):
            self.refused_everywhere(method, path)
        # A user of the pool without any grant.
        email, _ = create_user(self.site, "nogrant")
        token = login(email, self.site).json["token"]["account_token"]
        self.assertExact(self.owner.call("GET", "/users", token=token), 403, FORBIDDEN)
        # A site's access token (aud = the site) is not an account token.
        access = login(self.owner.email, self.site)
        self.assertEqual(access.status, 401)  # the owner has a second factor now: no tokens without it
        me = self.owner.call("GET", "")
        self.assertReply(me, 200)
        self.assertEqual(me.json["me"], {"user_id": self.owner.id, "email": self.owner.email, "role": "owner"})
        self.assertEqual(me.json["site"]["id"], self.site)
        # A site that does not exist and a malformed id.
        self.assertExact(self.owner.call("GET", "", site=999999999), 403, FORBIDDEN)

    def test_users_search_pages_by_address_prefix(self):
        prefix = "page-%d-" % self.site
        emails = sorted(create_user(self.site, prefix + str(i))[0] for i in range(3))
        elsewhere, _ = create_user(self.other_site, prefix + "elsewhere")
        first = self.owner.call("GET", "/users", query={"q": prefix, "limit": 2})
        self.assertReply(first, 200)
        self.assertEqual([u["email"] for u in first.json["users"]], emails[:2])
        cursor = first.json["next_cursor"]
        self.assertTrue(cursor)
        second = self.viewer.call("GET", "/users", query={"q": prefix, "limit": 2, "cursor": cursor})
        self.assertEqual([u["email"] for u in second.json["users"]], emails[2:])
        self.assertIsNone(second.json["next_cursor"])
        # A cursor changed by one character, or made for another listing.
        tampered = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
        self.assertOnlyFields(self.owner.call("GET", "/users", query={"q": prefix, "cursor": tampered}), "cursor")
        self.assertOnlyFields(self.owner.call("GET", "/users", query={"q": "x", "cursor": cursor}), "cursor")
        self.assertOnlyFields(self.owner.call("GET", "/users", query={"limit": 101}), "limit")
        self.assertOnlyFields(self.owner.call("GET", "/users", query={"table": "mysql.user"}), "table")
        # Another site's admin sees only their own pool.
        theirs = self.stranger.call("GET", "/users", query={"q": prefix})
        self.assertEqual([u["email"] for u in theirs.json["users"]], [elsewhere])

    def test_show_a_user_and_never_another_pools(self):
        email, uid = create_user(self.site, "shown")
        login(email, self.site)
        shown = self.viewer.call("GET", "/users/%d" % uid)
        self.assertReply(shown, 200)
        user = shown.json["user"]
        self.assertEqual((user["email"], user["active"], user["email_verified"], user["totp"]), (email, True, True, False))
        self.assertEqual(len(user["sessions"]), 1)
        self.assertRegex(user["sessions"][0]["signed_in_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        _, foreign = create_user(self.other_site, "foreign")
        self.assertExact(self.owner.call("GET", "/users/%d" % foreign), 404, NOT_FOUND)
        self.assertExact(self.owner.call("GET", "/users/999999999"), 404, NOT_FOUND)

    def test_disable_and_enable(self):
        email, uid = create_user(self.site, "disabled")
        refresh = login(email, self.site).json["token"]
        wrong = login(email, self.site, password="Not@The-Password-1")
        # Refused: viewer, another site's owner, an admin without a second factor; nothing changed.
        self.assertExact(self.viewer.call("PATCH", "/users/%d" % uid, {"active": False}), 403, FORBIDDEN)
        self.refused_everywhere("PATCH", "/users/%d" % uid, {"active": False})
        self.assertEqual(sql_value("SELECT active FROM svc_users WHERE id = %d" % uid), "1")
        self.assertOnlyFields(self.owner.call("PATCH", "/users/%d" % uid, {"active": "no"}), "active")
        reply = self.owner.call("PATCH", "/users/%d" % uid, {"active": False})
        self.assertReply(reply, 200)
        self.assertFalse(reply.json["user"]["active"])
        refused = login(email, self.site)
        self.assertEqual((refused.status, refused.json), (wrong.status, wrong.json))
        self.assertEqual(post("/auth/refresh-token", {"payload": {"access_token": refresh["access_token"],
                                                                  "refresh_token": refresh["refresh_token"]}}).status, 401)
        self.assertEqual(audit_rows(self.site, "users.disable")[-1][:2], (str(self.owner.id), "user %d" % uid))
        self.assertReply(self.owner.call("PATCH", "/users/%d" % uid, {"active": True}), 200)
        self.assertEqual(login(email, self.site).status, 200)
        events = [(e[0], json.loads(e[1])) for e in sql("SELECT event_type, data FROM svc_webhook_deliveries"
                                                          " WHERE site_id = %d ORDER BY id" % self.site)]
        self.assertEqual([name for name, data in events if data.get("user_id") == uid], ["user.disabled", "user.enabled"])
        self.assertEqual(audit_rows(self.site, "users.enable")[-1][:2], (str(self.owner.id), "user %d" % uid))

    def test_end_sessions(self):
        email, uid = create_user(self.site, "ended")
        refresh = login(email, self.site).json["token"]
        self.refused_everywhere("DELETE", "/users/%d/sessions" % uid)
        self.assertExact(self.viewer.call("DELETE", "/users/%d/sessions" % uid), 403, FORBIDDEN)
        reply = self.owner.call("DELETE", "/users/%d/sessions" % uid)
        self.assertReply(reply, 200, {"status": "Success", "ended": 1})
        self.assertEqual(post("/auth/refresh-token", {"payload": {"access_token": refresh["access_token"],
                                                                  "refresh_token": refresh["refresh_token"]}}).status, 401)
        self.assertEqual(audit_rows(self.site, "users.sessions_end")[-1],
                         (str(self.owner.id), "user %d" % uid, "1 session(s) ended"))

    def test_an_ended_session_is_refused_before_the_grant(self):
        # The guard reads the token's session and the grant in one statement:
        # once the session ends, every management route answers 401, also for
        # a site the admin has no grant on, and the grant is never consulted.
        ending = Admin(self.site, "admin")
        self.assertReply(ending.call("GET", "/users"), 200)
        self.assertReply(self.owner.call("DELETE", "/users/%d/sessions" % ending.id), 200)
        self.assertExact(ending.call("GET", "/users"), 401, UNAUTHORIZED)
        self.assertExact(ending.call("GET", "", site=self.other_site), 401, UNAUTHORIZED)
        self.assertExact(ending.call("GET", "", site=999999999), 401, UNAUTHORIZED)
        # A fresh sign-in of the same admin is let in again.
        ending.token = ending.sign_in_again()
        self.assertReply(ending.call("GET", "/users"), 200)

    def test_admins_granted_and_removed_never_the_last_owner(self):
        site = create_site("Admins")
        owner = Admin(site, "owner")
        email, uid = create_user(site, "helper")
        self.assertExact(Admin(site, "viewer").call("POST", "/admins", {"email": email, "role": "viewer"}), 403,
                         FORBIDDEN)
        self.assertExact(self.stranger.call("POST", "/admins", {"email": email, "role": "owner"}, site=site), 403,
                         FORBIDDEN)
        self.assertOnlyFields(owner.call("POST", "/admins", {"email": email, "role": "root"}), "role")
        # Only users of the site's pool: another pool's address is not found.
        self.assertExact(owner.call("POST", "/admins", {"email": self.owner.email, "role": "admin"}), 404, NOT_FOUND)
        added = owner.call("POST", "/admins", {"email": email, "role": "admin"})
        self.assertReply(added, 200)
        self.assertEqual((added.json["admin"]["user_id"], added.json["admin"]["role"]), (uid, "admin"))
        listed = owner.call("GET", "/admins")
        self.assertEqual([a["role"] for a in listed.json["admins"]], ["owner", "admin", "viewer"])
        self.assertExact(owner.call("DELETE", "/admins/%d" % owner.id), 409,
                         {"status": "Failed", "message": "The site's last owner cannot be removed or demoted"})
        self.assertReply(owner.call("DELETE", "/admins/%d" % uid), 200, {"status": "Success"})
        self.assertExact(owner.call("DELETE", "/admins/%d" % uid), 404, {"status": "Failed", "message": "Admin not found"})
        self.assertEqual(audit_rows(site, "admins.add")[0][:2], ("operator", "user %d" % owner.id))
        self.assertEqual(audit_rows(site, "admins.add")[-1], (str(owner.id), "user %d" % uid, "role admin"))
        self.assertEqual(audit_rows(site, "admins.remove"), [(str(owner.id), "user %d" % uid, "was admin")])

    def test_destructive_change_needs_a_recent_sign_in(self):
        # A default-pool site: its admin signs in without appID too, and a
        # refresh keeps the session's sign-in time in the new token.
        site = int(admin("site", "create", "--name", "Stale", "--domain", "stale.example", "--user-pool",
                         "default").stdout.strip().splitlines()[-1])
        owner = Admin(site, "owner")
        _, uid = create_user(site, "stale-helper")
        admin("site", "admin", "add", "--site", str(site), "--email", sql_value(
            "SELECT user_email FROM svc_users WHERE id = %d" % uid), "--role", "viewer")
        # A session whose sign-in with a second factor was 11 minutes ago
        # (a refresh token minted as in test_account_security).
        stale = refresh(mint_refresh(owner.id, int(time.time()) - 11 * 60, amr=("pwd", "otp", "mfa")))
        self.assertReply(stale, 200)
        token = stale.json["token"]["access_token"]
        self.assertReply(owner.call("GET", "/admins", token=token), 200)  # reads need no recent sign-in
        self.assertExact(owner.call("DELETE", "/admins/%d" % uid, token=token), 401, RECENT)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_site_admins WHERE site_id = %d" % site), "2")

    def test_cli_does_the_same_with_operator_in_the_audit(self):
        email, uid = create_user(self.site, "cli")
        found = admin("user", "find", email[:email.index("@")], "--site", str(self.site)).stdout
        self.assertIn(email, found)
        self.assertNotIn(self.stranger.email, admin("user", "list", "--site", str(self.site)).stdout)
        admin("user", "disable", "--site", str(self.site), "--email", email)
        self.assertEqual(sql_value("SELECT active FROM svc_users WHERE id = %d" % uid), "0")
        self.assertEqual(audit_rows(self.site, "users.disable")[-1][:2], ("operator", "user %d" % uid))
        shown = admin("user", "show", "--site", str(self.site), "--id", str(uid)).stdout
        self.assertIn("active:          no (disabled)", shown)
        admin("user", "enable", "--site", str(self.site), "--email", email)
        listed = admin("audit", "--site", str(self.site), "--limit", "2").stdout.splitlines()
        self.assertRegex(listed[1], r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  operator  users\.enable")
        self.assertTrue(listed[-1].startswith("more: --cursor "), listed)
        api = self.viewer.call("GET", "/audit", query={"limit": 1})
        self.assertEqual((api.json["entries"][0]["actor"], api.json["entries"][0]["action"]), ("operator", "users.enable"))
        # Another site's user is not there for --site of this one; a bad role is exit 2, nothing granted.
        bad = admin("site", "admin", "add", "--site", str(self.site), "--email", self.stranger.email, "--role", "owner",
                    check=False)
        self.assertEqual(bad.returncode, 2, bad)
        self.assertIn("User not found", bad.stderr)
        bad = admin("site", "admin", "add", "--site", str(self.site), "--email", email, "--role", "god", check=False)
        self.assertEqual(bad.returncode, 2, bad)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_site_admins WHERE user_id = %d" % uid), "0")


if __name__ == "__main__":
    svc_stack.main()

"""The Users capability of site management beyond list, show, disable and
sessions (issue 49, design "Site administrators and the site management
API"), through nginx, real workers, MariaDB, svc-sender and the SMTP sink,
and the same through svc-admin with the actor "operator".

- Create by invitation: POST /users makes a user with no password (sign-in
  refused like a wrong password) and mails the `invitation` template; its
  link sets a password once, which then signs in; the address is proven by
  it. 409 for an address taken in the pool and for a site that sends no
  e-mail (nothing created); 400 for a bad address.
- Delete (destructive: a recent sign-in): everything of the user goes as
  with /auth/account/delete (the account-deleted notice, user.deleted); an
  admin may not delete the site's owner, nobody its last owner.
- Second factor reset: the next sign-in needs the password only
  (user.mfa_disabled); a reset mail and a verification mail as
  /auth/request-pass and /auth/verify-email/resend send them, each link
  working; the resend gap is 429.
- Each refused for a viewer, another site's owner, an admin without a second
  factor, and another pool's user id through this site (404); each writes
  one svc_admin_audit row without a token in it.
"""

import html
import json
import re
import time
import urllib.parse

import site_admins
import svc_stack
from site_admins import (FORBIDDEN, NOT_FOUND, RECENT, SECOND_FACTOR, UNAUTHORIZED, Admin, audit_rows, create_site,
                         create_user, login)
from svc_stack import ApiTest, admin, post, q, sql, sql_value, unique_email
from test_account_security import mint_refresh, refresh

TAKEN = {"status": "Failed", "message": "User with this email already exists"}
NEW_PASSWORD = "Chosen@Invite-2026"
HREF = re.compile(r'href="([^"]+)"')


def delivered_link(email, event, site):
    """The one link of the newest `event` mail of `site` to `email`, as the SMTP sink received it."""
    row = int(sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s AND event = %s"
                        " AND site_id = %d" % (q(email), q(event), site)))
    links = [html.unescape(h) for h in HREF.findall(svc_stack.mail_html(svc_stack.wait_for_outbox_mail(row)))]
    assert len(links) == 1, links
    return links[0]


def token_of(link):
    parts = urllib.parse.urlsplit(link)
    values = urllib.parse.parse_qs(parts.query).get("token") or urllib.parse.parse_qs(parts.fragment).get("token")
    assert values and len(values) == 1, link
    return values[0]


def set_password(link, password=NEW_PASSWORD):
    return post("/auth/reset-pass", {"password": password, "confirmPassword": password,
                                     "reset_password_token": token_of(link)})


def mails(email, event):
    return int(sql_value("SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s AND event = %s"
                         % (q(email), q(event))))


def events_of(site, uid):
    return [name for name, data in sql("SELECT event_type, data FROM svc_webhook_deliveries WHERE site_id = %d"
                                       " ORDER BY id" % site) if json.loads(data).get("user_id") == uid]


class SiteAdminUsersTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Users A")
        cls.other_site = create_site("Users B")
        admin("site", "set", "--site", str(cls.site), "--verify-email", "true")
        cls.owner = Admin(cls.site, "owner")
        cls.helper = Admin(cls.site, "admin")
        cls.viewer = Admin(cls.site, "viewer")
        cls.plain_admin = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")
        # An endpoint nobody listens on: its queued deliveries show the events.
        admin("webhook", "add", "--site", str(cls.site), "--url", "http://127.0.0.1:9/hook", "--events",
              "user.created,user.deleted,user.mfa_disabled")

    def refused(self, method, path, body=None):
        """Everyone but an admin of the site with a second factor is refused, and another pool's user is not found."""
        self.assertExact(self.viewer.call(method, path, body), 403, FORBIDDEN)
        self.assertExact(self.owner.call(method, path, body, token="x.y.z"), 401, UNAUTHORIZED)
        self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
        self.assertExact(self.plain_admin.call(method, path, body), 403, SECOND_FACTOR)

    def foreign_user_not_found(self, method, suffix=""):
        _, foreign = create_user(self.other_site, "foreign")
        self.assertExact(self.owner.call(method, "/users/%d%s" % (foreign, suffix)), 404, NOT_FOUND)
        self.assertExact(self.owner.call(method, "/users/999999999%s" % suffix), 404, NOT_FOUND)
        return foreign

    def assertNoTokenInAudit(self, site):
        for row in sql("SELECT target, detail FROM svc_admin_audit WHERE site_id = %d" % site):
            self.assertNotIn("eyJ", " ".join(row))

    # --- create by invitation -------------------------------------------------------------------

    def test_invitation_creates_a_user_whose_link_sets_a_password(self):
        email = unique_email("invited")
        body = {"email": email, "first_name": "Ivy", "last_name": "New"}
        self.refused("POST", "/users", body)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")
        self.assertOnlyFields(self.owner.call("POST", "/users", {"email": "not-an-address"}), "email")
        self.assertOnlyFields(self.owner.call("POST", "/users", {"email": email, "first_name": "a\nb"}), "first_name")
        self.assertOnlyFields(self.owner.call("POST", "/users", {"email": email, "role": "a b"}), "role")

        reply = self.helper.call("POST", "/users", body)
        self.assertReply(reply, 201)
        user = reply.json["user"]
        uid = user["id"]
        self.assertEqual((user["email"], user["first_name"], user["last_name"], user["role"], user["active"],
                          user["email_verified"]), (email, "Ivy", "New", "user", True, False))
        self.assertEqual(sql_value("SELECT pool_id FROM svc_users WHERE id = %d" % uid),
                         sql_value("SELECT user_pool FROM svc_sites WHERE id = %d" % self.site))
        # No password yet: any sign-in is refused like a wrong one.
        wrong = login(self.owner.email, self.site, password="Not@The-Password-1")
        refused = login(email, self.site, password="!invited")
        self.assertEqual((refused.status, refused.json), (wrong.status, wrong.json))
        # Taken in the pool: 409, nothing more; the same address in another pool is another user.
        self.assertExact(self.owner.call("POST", "/users", body), 409, TAKEN)
        self.assertReply(self.stranger.call("POST", "/users", {"email": email}), 201)

        link = delivered_link(email, "invitation", self.site)
        self.assertIn("site=%d" % self.site, link)
        self.assertReply(set_password(link), 200)
        self.assertEqual(set_password(link, NEW_PASSWORD + "x").status, 400)  # spent once used
        signed_in = login(email, self.site, password=NEW_PASSWORD)
        self.assertReply(signed_in, 200)
        self.assertEqual(sql_value("SELECT email_verified_at IS NOT NULL FROM svc_users WHERE id = %d" % uid), "1")
        self.assertEqual(audit_rows(self.site, "users.create")[-1],
                         (str(self.helper.id), "user %d" % uid, "invitation mailed, role user"))
        self.assertIn("user.created", events_of(self.site, uid))
        self.assertNoTokenInAudit(self.site)

    def test_no_invitation_from_a_site_that_sends_no_mail(self):
        site = create_site("Users quiet")
        owner = Admin(site, "owner")
        admin("site", "set", "--site", str(site), "--disable-email", "true")
        email = unique_email("quiet")
        reply = owner.call("POST", "/users", {"email": email})
        self.assertExact(reply, 409, {"status": "Failed", "message":
                                      "E-mail is turned off for this site (disable_email): no invitation can be sent"})
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "0")
        self.assertEqual(audit_rows(site, "users.create"), [])
        _, uid = create_user(site, "quiet-reset")
        self.assertEqual(owner.call("POST", "/users/%d/password-reset" % uid).status, 409)

    # --- delete ---------------------------------------------------------------------------------

    def test_delete_removes_everything_of_the_user(self):
        email, uid = create_user(self.site, "deleted")
        token = login(email, self.site).json["token"]
        self.refused("DELETE", "/users/%d" % uid)
        foreign = self.foreign_user_not_found("DELETE")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id IN (%d, %d)" % (uid, foreign)), "2")
        self.assertReply(self.helper.call("DELETE", "/users/%d" % uid), 200, {"status": "Success"})
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % uid), "0")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_sessions WHERE user_id = %d" % uid), "0")
        self.assertEqual(post("/auth/refresh-token", {"payload": {"access_token": token["access_token"],
                                                                  "refresh_token": token["refresh_token"]}}).status, 401)
        self.assertExact(self.owner.call("GET", "/users/%d" % uid), 404, NOT_FOUND)
        self.assertEqual(audit_rows(self.site, "users.delete")[-1], (str(self.helper.id), "user %d" % uid, ""))
        detail = sql_value("SELECT detail FROM svc_audit_log WHERE event = 'account_deleted' ORDER BY id DESC LIMIT 1")
        self.assertRegex(detail, r"^by site admin, user [0-9a-f]{32}$")
        self.assertIn("user.deleted", events_of(self.site, uid))
        notice = svc_stack.wait_for_mail(lambda m: email in (m["To"] or "") and m["Subject"] == "Your account was deleted")
        self.assertIn(email, svc_stack.mail_html(notice))

    def test_an_admin_may_not_delete_an_owner_and_nobody_the_last_owner(self):
        site = create_site("Users owners")
        owner = Admin(site, "owner")
        helper = Admin(site, "admin")
        self.assertExact(helper.call("DELETE", "/users/%d" % owner.id), 403, FORBIDDEN)
        self.assertExact(helper.call("DELETE", "/users/%d/second-factor" % owner.id), 403, FORBIDDEN)
        self.assertExact(owner.call("DELETE", "/users/%d" % owner.id), 409,
                         {"status": "Failed", "message": "The site's last owner cannot be deleted"})
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % owner.id), "1")
        # An owner deletes an admin: the grant goes with the account.
        self.assertReply(owner.call("DELETE", "/users/%d" % helper.id), 200)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_site_admins WHERE user_id = %d AND site_id = %d"
                                   % (helper.id, site)), "0")

    def test_delete_needs_a_recent_sign_in(self):
        # A default-pool site: a refresh keeps the session's sign-in time (as in test_site_admin).
        site = int(admin("site", "create", "--name", "Users stale", "--domain", "stale.example", "--user-pool",
                         "default").stdout.strip().splitlines()[-1])
        owner = Admin(site, "owner")
        _, uid = create_user(site, "stale-victim")
        stale = refresh(mint_refresh(owner.id, int(time.time()) - 11 * 60, amr=("pwd", "otp", "mfa")))
        self.assertReply(stale, 200)
        token = stale.json["token"]["access_token"]
        self.assertExact(owner.call("DELETE", "/users/%d" % uid, token=token), 401, RECENT)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % uid), "1")
        # The other changes are not destructive: a stale sign-in may send a reset mail.
        self.assertReply(owner.call("POST", "/users/%d/password-reset" % uid, token=token), 200)

    # --- second factor, reset mail, verification mail -------------------------------------------

    def test_second_factor_reset(self):
        member = Admin(self.site, None, grant=False, prefix="mfa-lost")
        self.assertEqual(login(member.email, self.site).status, 401)  # the second factor is asked for
        path = "/users/%d/second-factor" % member.id
        self.refused("DELETE", path)
        self.foreign_user_not_found("DELETE", "/second-factor")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mfa_factors WHERE user_id = %d" % member.id), "1")
        self.assertReply(self.helper.call("DELETE", path), 200, {"status": "Success", "removed": True})
        self.assertReply(login(member.email, self.site), 200)  # the password alone now
        self.assertReply(self.helper.call("DELETE", path), 200, {"status": "Success", "removed": False})
        self.assertEqual(audit_rows(self.site, "users.mfa_reset")[-2:],
                         [(str(self.helper.id), "user %d" % member.id, "second factor removed"),
                          (str(self.helper.id), "user %d" % member.id, "no active second factor")])
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'mfa_reset' AND user_id = %d"
                                   % member.id), "2")
        self.assertEqual(events_of(self.site, member.id).count("user.mfa_disabled"), 1)

    def test_password_reset_mail_sets_a_new_password(self):
        email, uid = create_user(self.site, "reset-me")
        path = "/users/%d/password-reset" % uid
        self.refused("POST", path)
        self.foreign_user_not_found("POST", "/password-reset")
        self.assertEqual(mails(email, "password-reset"), 0)
        self.assertReply(self.helper.call("POST", path), 200, {"status": "Success"})
        self.assertReply(set_password(delivered_link(email, "password-reset", self.site)), 200)
        self.assertReply(login(email, self.site, password=NEW_PASSWORD), 200)
        self.assertEqual(login(email, self.site).status, 401)
        self.assertEqual(audit_rows(self.site, "users.password_reset")[-1],
                         (str(self.helper.id), "user %d" % uid, "reset mail queued"))
        self.assertNoTokenInAudit(self.site)
        # A disabled user gets none.
        disabled, did = create_user(self.site, "reset-disabled")
        self.assertReply(self.owner.call("PATCH", "/users/%d" % did, {"active": False}), 200)
        self.assertExact(self.owner.call("POST", "/users/%d/password-reset" % did), 409,
                         {"status": "Failed", "message": "User is disabled"})
        self.assertEqual(mails(disabled, "password-reset"), 0)

    def test_verification_mail_is_resent(self):
        email, uid = create_user(self.site, "unverified", verified=False)
        path = "/users/%d/verification-mail" % uid
        self.refused("POST", path)
        self.foreign_user_not_found("POST", "/verification-mail")
        self.assertReply(self.helper.call("POST", path), 200, {"status": "Success"})
        link = delivered_link(email, "verify-email", self.site)
        # The resend gap of /auth/verify-email/resend holds for an admin too.
        self.assertExact(self.helper.call("POST", path), 429, {"status": "Failed", "message": "Too many requests"})
        self.assertEqual(mails(email, "verify-email"), 1)
        self.assertEqual(audit_rows(self.site, "users.verification_resend")[-1],
                         (str(self.helper.id), "user %d" % uid, "verification mail queued"))
        self.assertReply(post("/auth/verify-email", {"token": token_of(link)}), 200)
        self.assertExact(self.helper.call("POST", path), 409,
                         {"status": "Failed", "message": "The address is verified already"})

    # --- svc-admin ------------------------------------------------------------------------------

    def test_cli_does_the_same_with_operator_in_the_audit(self):
        site = str(self.site)
        email = unique_email("cli-invited")
        out = admin("user", "invite", "--site", site, "--email", email, "--first", "Cy", "--last", "Li").stdout
        uid = int(out.strip().splitlines()[-1])
        self.assertIn("invitation mailed to " + email, out)
        self.assertEqual(audit_rows(self.site, "users.create")[-1],
                         ("operator", "user %d" % uid, "invitation mailed, role user"))
        again = admin("user", "invite", "--site", site, "--email", email, check=False)
        self.assertEqual(again.returncode, 2, again)
        self.assertIn("User with this email already exists", again.stderr)
        self.assertReply(set_password(delivered_link(email, "invitation", self.site)), 200)
        self.assertReply(login(email, self.site, password=NEW_PASSWORD), 200)

        self.assertIn("reset mail queued for " + email,
                      admin("user", "reset-password", "--site", site, "--email", email).stdout)
        self.assertEqual(audit_rows(self.site, "users.password_reset")[-1][:2], ("operator", "user %d" % uid))
        self.assertEqual(mails(email, "password-reset"), 1)

        unverified, vid = create_user(self.site, "cli-unverified", verified=False)
        self.assertIn("verification mail queued",
                      admin("user", "resend-verification", "--site", site, "--email", unverified).stdout)
        self.assertEqual(audit_rows(self.site, "users.verification_resend")[-1][:2], ("operator", "user %d" % vid))

        member = Admin(self.site, None, grant=False, prefix="cli-mfa")
        out = admin("users", "mfa-reset", "--site", site, "--email", member.email).stdout
        self.assertIn("second factor removed", out)
        self.assertEqual(audit_rows(self.site, "users.mfa_reset")[-1][:2], ("operator", "user %d" % member.id))

        admin("user", "delete", "--site", site, "--email", email)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % uid), "0")
        self.assertEqual(audit_rows(self.site, "users.delete")[-1], ("operator", "user %d" % uid, ""))
        # Another pool's user through --site of this one is not found; nothing deleted.
        _, foreign = create_user(self.other_site, "cli-foreign")
        foreign_email = sql_value("SELECT user_email FROM svc_users WHERE id = %d" % foreign)
        missing = admin("user", "delete", "--site", site, "--email", foreign_email, check=False)
        self.assertNotEqual(missing.returncode, 0)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % foreign), "1")
        self.assertNoTokenInAudit(self.site)



def tearDownModule():
    site_admins.forget_unheard_hooks()

if __name__ == "__main__":
    svc_stack.main()

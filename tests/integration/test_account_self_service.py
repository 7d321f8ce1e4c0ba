"""Account self-service (issue 38; docs/api.md "Account self-service")
through nginx + workers + MariaDB + svc-sender + the SMTP sink.

Covers: a password change with the account token (the other sessions end,
the current one stays, the `password-changed` notice goes out), its bad
input (a wrong current password counted by the login throttle until 429,
weak or mismatched new passwords answered as reset-pass answers them, no
token or a site's token); an e-mail change (the confirmation link to the
new address and the undo link to the old one open the ready page, each
works once, the undo restores the address and ends every session; an
address taken meanwhile is 409 and leaves the old one in place; an expired,
spent or forged link is 400); account deletion with the password or a TOTP
code (refused without re-authentication, nothing deleted then; afterwards
the user's rows are gone in MariaDB, the suppression and a hashed audit row
remain); the export (every part, no secret, hash or token); and
`svc-admin user delete` / `user export`.
"""

import json
import os
import re
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, admin, post, q, sql, sql_value, unique_email
from test_email_identity import create_site, create_user, delivered, links
from test_mfa import settle, step_now, totp, wrong_code

PASSWORD = "Engine@1843"
NEW_PASSWORD = "Fresh@Pass99"
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}
INVALID_CREDENTIALS = {"status": "Failed", "message": "Invalid credentials"}
CHANGED = {"status": "Success", "message": "Password changed"}
EMAIL_CHANGED = {"status": "Success", "message": "Email changed"}
EMAIL_RESTORED = {"status": "Success", "message": "Email restored"}
EMAIL_CHANGE_SENT = {"status": "Success", "message": "A confirmation link has been sent to the new address"}
TAKEN = {"status": "Failed", "message": "User with this email already exists"}
BAD_LINK = {"status": "Failed", "message": "Email change token has expired or is invalid"}
DELETED = {"status": "Success", "message": "Account deleted"}
REVOKED = {"status": "Failed", "message": "Refresh token has been revoked"}
PAGE = "http://127.0.0.1:%d/account/email-change" % svc_stack.HTTP_PORT
BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "email_change_page_browser.js")
OUT_DIR = os.path.join(os.environ.get("SVC_BIN_DIR") or "build", "test-output", "email-change-page")


def bearer(token):
    return {"Authorization": "Bearer " + token["account_token"]}


def refresh(token):
    return post("/auth/refresh-token", {"payload": {"access_token": "unused", "refresh_token": token["refresh_token"]}})


def email_of(uid):
    return sql_value("SELECT user_email FROM svc_users WHERE id = %d" % uid)


def events_to(email):
    return [r[0] for r in sql("SELECT event FROM svc_notification_log WHERE recipient = %s ORDER BY id" % q(email))]


def link_token(email, event):
    """The token of the ready-page link in the newest `event` mail to `email`."""
    row = int(sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s AND event = %s"
                        % (q(email), q(event))))
    msg = svc_stack.wait_for_outbox_mail(row)
    found = [h for h in links(msg) if h.split("?")[0].split("#")[0].endswith("/account/email-change")]
    assert len(found) == 1, links(msg)
    assert "#token=" in found[0] and "?site=" in found[0], found[0]
    return found[0].split("#token=", 1)[1]


class AccountSelfServiceTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Self service")

    def sign_in(self, email, password=PASSWORD):
        reply = post("/auth/login", {"email": email, "password": password, "appID": self.site})
        return self.assertTokenReply(reply)

    # --- password change ---------------------------------------------------

    def test_a_password_change_keeps_this_session_ends_the_others_and_mails(self):
        email, uid = create_user("self-pw", "--verified")
        here, there = self.sign_in(email), self.sign_in(email)
        body = {"current_password": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD}
        self.assertExact(post("/auth/password/change", body, headers=bearer(here)), 200, CHANGED)
        self.assertExact(refresh(there), 401, REVOKED)
        self.assertReply(refresh(here), 200)
        self.assertExact(post("/auth/login", {"email": email, "password": PASSWORD}), 401, INVALID_CREDENTIALS)
        self.sign_in(email, NEW_PASSWORD)
        self.assertIn("password-changed", events_to(email))
        self.assertEqual(delivered(email)["Subject"], "Your password was changed")
        self.assertEqual(int(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'password_changed'"
                                       " AND user_id = %d" % uid)), 1)

    def test_weak_or_mismatched_passwords_are_answered_as_reset_pass_answers_them(self):
        email, _ = create_user("self-pw-weak", "--verified")
        token = self.sign_in(email)
        for new, confirm in (("weak", "weak"), (NEW_PASSWORD, NEW_PASSWORD + "x")):
            with self.subTest(new=new, confirm=confirm):
                mine = post("/auth/password/change", {"current_password": PASSWORD, "password": new,
                                                      "confirmPassword": confirm}, headers=bearer(token))
                theirs = post("/auth/reset-pass", {"password": new, "confirmPassword": confirm,
                                                   "reset_password_token": "x.y.z"})
                self.assertEqual(mine.status, 400, mine)
                self.assertEqual((mine.status, mine.json), (theirs.status, theirs.json))
        self.sign_in(email)  # unchanged

    def test_a_wrong_current_password_is_counted_by_the_login_throttle(self):
        email, _ = create_user("self-pw-wrong", "--verified")
        token = self.sign_in(email)
        max_failures = int(svc_stack.config_value("auth", "login_max_failures", "10"))
        body = {"current_password": "Wrong@Pass2026", "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD}
        for _ in range(max_failures):
            self.assertExact(post("/auth/password/change", body, headers=bearer(token)), 401, INVALID_CREDENTIALS)
        locked = post("/auth/password/change", dict(body, current_password=PASSWORD), headers=bearer(token))
        self.assertEqual((locked.status, locked.json["message"]), (429, "Too many attempts"), locked)
        login = post("/auth/login", {"email": email, "password": PASSWORD})
        self.assertEqual(login.status, 429, login)

    def test_the_routes_want_the_account_token(self):
        email, _ = create_user("self-token", "--verified")
        token = self.sign_in(email)
        site_token = {"Authorization": "Bearer " + token["access_token"]}
        calls = (("/auth/password/change", {"current_password": PASSWORD, "password": NEW_PASSWORD,
                                            "confirmPassword": NEW_PASSWORD}),
                 ("/auth/email/change", {"new_email": unique_email("self-token-new"), "password": PASSWORD}),
                 ("/auth/account/delete", {"password": PASSWORD}),
                 ("/auth/account/export", None))
        for path, body in calls:
            with self.subTest(path=path):
                self.assertExact(post(path, body), 401, UNAUTHORIZED)
                self.assertExact(post(path, body, headers=site_token), 401, UNAUTHORIZED)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "1")

    # --- e-mail change -----------------------------------------------------

    def request_change(self, token, new_email, password=PASSWORD):
        reply = post("/auth/email/change", {"new_email": new_email, "password": password}, headers=bearer(token))
        self.assertExact(reply, 200, EMAIL_CHANGE_SENT)

    def test_an_email_change_is_confirmed_by_the_new_address_and_undone_by_the_old(self):
        email, uid = create_user("self-mail", "--verified")
        here, there = self.sign_in(email), self.sign_in(email)
        new_email = unique_email("self-mail-new")
        self.request_change(here, new_email)
        self.assertEqual(email_of(uid), email)  # nothing changes before the confirmation
        confirm = link_token(new_email, "email-change-confirm")
        undo = link_token(email, "email-change-notice")

        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 200, EMAIL_CHANGED)
        self.assertEqual(email_of(uid), new_email)
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 400, BAD_LINK)  # spent
        self.assertExact(refresh(there), 401, REVOKED)  # the other sessions ended
        self.assertReply(refresh(here), 200)
        self.sign_in(new_email)

        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 200, EMAIL_RESTORED)
        self.assertEqual(email_of(uid), email)
        self.assertExact(refresh(here), 401, REVOKED)  # every session ended
        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 400, BAD_LINK)  # spent
        self.assertEqual(email_of(uid), email)
        self.sign_in(email)

    def test_an_undo_before_the_confirmation_cancels_it(self):
        email, uid = create_user("self-mail-cancel", "--verified")
        new_email = unique_email("self-mail-cancel-new")
        self.request_change(self.sign_in(email), new_email)
        confirm = link_token(new_email, "email-change-confirm")
        undo = link_token(email, "email-change-notice")
        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 200, EMAIL_RESTORED)
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 400, BAD_LINK)
        self.assertEqual(email_of(uid), email)

    def test_an_address_taken_meanwhile_is_409_and_the_old_address_stays(self):
        email, uid = create_user("self-mail-taken", "--verified")
        other, _ = create_user("self-mail-other")
        token = self.sign_in(email)
        self.assertExact(post("/auth/email/change", {"new_email": other, "password": PASSWORD},
                              headers=bearer(token)), 409, TAKEN)
        new_email = unique_email("self-mail-race")
        self.request_change(token, new_email)
        confirm = link_token(new_email, "email-change-confirm")
        admin("user", "create", "--email", new_email, stdin=PASSWORD + "\n")  # someone takes it meanwhile
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 409, TAKEN)
        self.assertEqual(email_of(uid), email)
        self.assertEqual(sql_value("SELECT confirmed_at IS NULL FROM svc_email_changes WHERE user_id = %d"
                                   " ORDER BY id DESC LIMIT 1" % uid), "1")
        self.sign_in(email)

    def test_bad_input_of_an_email_change(self):
        email, uid = create_user("self-mail-bad", "--verified")
        token = self.sign_in(email)
        self.assertValidation(post("/auth/email/change", {"new_email": "nope", "password": PASSWORD},
                                   headers=bearer(token)), "new_email")
        self.assertValidation(post("/auth/email/change", {"new_email": email, "password": PASSWORD},
                                   headers=bearer(token)), "new_email")
        self.assertExact(post("/auth/email/change", {"new_email": unique_email("x"), "password": "Wrong@Pass1"},
                              headers=bearer(token)), 401, INVALID_CREDENTIALS)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_email_changes WHERE user_id = %d" % uid), "0")
        for token_value in ("x.y.z", "not a token"):
            self.assertExact(post("/auth/email/change/confirm", {"token": token_value}), 400, BAD_LINK)
            self.assertExact(post("/auth/email/change/undo", {"token": token_value}), 400, BAD_LINK)
        self.assertValidation(post("/auth/email/change/confirm", {}), "token")

    def test_expired_links_change_nothing(self):
        email, uid = create_user("self-mail-expired", "--verified")
        new_email = unique_email("self-mail-expired-new")
        self.request_change(self.sign_in(email), new_email)
        confirm = link_token(new_email, "email-change-confirm")
        undo = link_token(email, "email-change-notice")
        sql("UPDATE svc_email_changes SET expires_at = %d WHERE user_id = %d" % (int(time.time()) - 1, uid))
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 400, BAD_LINK)
        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 400, BAD_LINK)
        self.assertEqual(email_of(uid), email)

    def test_the_ready_page_is_served_like_the_others(self):
        page = svc_stack.request("GET", "/account/email-change?site=%d" % self.site)
        self.assertEqual(page.status, 200, page)
        csp = page.headers.get("content-security-policy", "")
        for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"):
            self.assertIn(directive, csp)
        self.assertIsNone(re.search(r"<script(?![^>]*\bsrc=)[^>]*>", page.raw.decode()), "inline script")
        self.assertEqual(svc_stack.request("GET", "/account/email-change.js").status, 200)
        redirect = svc_stack.request("GET", "/account/email-change?token=abc")
        self.assertEqual((redirect.status, redirect.headers.get("location")), (303, "/account/email-change"))

    def run_page(self, link, changed):
        """Opens `link` in Chromium: loading it changes nothing (changed() stays
        False), the button does; returns the browser's final report."""
        proc = subprocess.Popen(["node", BROWSER_SCRIPT, link, OUT_DIR], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1"))
        try:
            first = proc.stdout.readline()
            self.assertTrue(first, "the browser script ended early")
            loaded = json.loads(first)["loaded"]
            self.assertTrue(loaded["formVisible"], loaded)
            self.assertEqual(loaded["site"], "Self service")
            self.assertNotIn("token", loaded["url"])
            self.assertFalse(changed())
            stdout, stderr = proc.communicate("click\n", timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 0, stderr)
        seen = json.loads(stdout.strip().splitlines()[-1])
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertFalse(seen["clicked"]["overflow"], seen["clicked"])
        return loaded, seen["clicked"]

    def test_the_mailed_links_change_the_address_only_when_the_button_is_pressed(self):
        email, uid = create_user("self-page", "--verified")
        new_email = unique_email("self-page-new")
        self.request_change(self.sign_in(email), new_email)
        confirm = "%s?site=%d#token=%s" % (PAGE, self.site, link_token(new_email, "email-change-confirm"))
        undo = "%s?site=%d#token=%s" % (PAGE, self.site, link_token(email, "email-change-notice"))
        loaded, clicked = self.run_page(confirm, lambda: email_of(uid) != email)
        self.assertEqual(loaded["button"], "Confirm my new address")
        self.assertEqual((clicked["doneTitle"], clicked["general"]), ("Your address is changed", ""))
        self.assertEqual(email_of(uid), new_email)
        loaded, clicked = self.run_page(undo, lambda: email_of(uid) != new_email)
        self.assertEqual(loaded["button"], "Keep my address")
        self.assertEqual((clicked["doneTitle"], clicked["general"]), ("Your address is kept", ""))
        self.assertEqual(email_of(uid), email)

    # --- deletion and export -----------------------------------------------

    def plant_rows(self, uid, email):
        now = int(time.time())
        sql("INSERT INTO svc_passkeys (site_id, auth_table, user_id, credential_hash, credential_id, public_key, alg,"
            " user_handle, created_at, name) VALUES (%d, 'svc_users', %d, SHA2(%s, 256), %s, 'pk', -7, 'h', %d,"
            " 'Laptop')" % (self.site, uid, q(email), q("cred-" + str(uid)), now))
        sql("INSERT INTO svc_mfa_recovery_codes (auth_table, user_id, code_hash, created_at)"
            " VALUES ('svc_users', %d, SHA2(%s, 256), %d)" % (uid, q("code" + email), now))
        sql("INSERT INTO svc_mail_suppressions (site_id, address, reason) VALUES (%d, %s, 'complaint')"
            % (self.site, q(email)))

    def counts(self, uid):
        tables = ("svc_sessions", "svc_passkeys", "svc_mfa_factors", "svc_mfa_recovery_codes", "svc_email_changes")
        out = {t: int(sql_value("SELECT COUNT(*) FROM %s WHERE auth_table = 'svc_users' AND user_id = %d" % (t, uid)))
               for t in tables}
        out["svc_users"] = int(sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % uid))
        out["svc_versions"] = int(sql_value("SELECT COUNT(*) FROM svc_versions WHERE table_name = 'svc_users'"
                                            " AND record_id = %d" % uid))
        out["audit_with_id"] = int(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE auth_table = 'svc_users'"
                                             " AND user_id = %d" % uid))
        return out

    def assertGone(self, uid, email, suppressed=True):
        self.assertEqual(set(self.counts(uid).values()), {0}, self.counts(uid))
        if suppressed:
            self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mail_suppressions WHERE address = %s" % q(email)),
                             "1")
        rows = sql("SELECT detail, user_id FROM svc_audit_log WHERE event = 'account_deleted' ORDER BY id DESC"
                   " LIMIT 1")
        detail = rows[0][0]
        self.assertRegex(detail, r"user [0-9a-f]{32}$")
        self.assertNotIn(email, detail)
        self.assertIn(rows[0][1], ("NULL", "0", None, ""))

    def test_deletion_needs_the_password_then_everything_of_the_user_goes(self):
        email, uid = create_user("self-delete", "--verified")
        token = self.sign_in(email)
        self.assertExact(post("/auth/password/change", {"current_password": PASSWORD, "password": PASSWORD + "x",
                                                        "confirmPassword": PASSWORD + "x"}, headers=bearer(token)),
                         200, CHANGED)  # a version row
        self.request_change(token, unique_email("self-delete-new"), PASSWORD + "x")
        self.plant_rows(uid, email)
        before = self.counts(uid)
        self.assertValidation(post("/auth/account/delete", {}, headers=bearer(token)), "password")
        self.assertExact(post("/auth/account/delete", {"password": PASSWORD}, headers=bearer(token)), 401,
                         INVALID_CREDENTIALS)  # the password before the change
        self.assertExact(post("/auth/account/delete", {"code": "123456"}, headers=bearer(token)), 400,
                         {"status": "Failed", "message": "Invalid code"})
        after = self.counts(uid)
        self.assertEqual(after.pop("audit_with_id"), before.pop("audit_with_id") + 1)  # the wrong password's row
        self.assertEqual(after, before)  # nothing half-done
        self.assertTrue(all(before[t] > 0 for t in ("svc_users", "svc_sessions", "svc_passkeys",
                                                   "svc_email_changes", "svc_versions")), before)

        self.assertExact(post("/auth/account/delete", {"password": PASSWORD + "x"}, headers=bearer(token)), 200,
                         DELETED)
        self.assertGone(uid, email)
        self.assertExact(post("/auth/account/export", headers=bearer(token)), 401, UNAUTHORIZED)
        self.assertExact(refresh(token), 401, {"status": "Failed", "message": "Refresh token is no longer valid"})
        self.assertEqual(events_to(email)[-1], "account-deleted")

    def test_deletion_with_a_totp_code(self):
        settle()
        email, uid = create_user("self-delete-totp", "--verified")
        token = self.sign_in(email)
        setup = post("/auth/mfa/totp/setup", headers=bearer(token))
        secret = setup.json["secret"]
        self.assertReply(post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)},
                              headers=bearer(token)), 200)
        self.assertExact(post("/auth/account/delete", {"code": wrong_code(secret, step_now())},
                              headers=bearer(token)), 400, {"status": "Failed", "message": "Invalid code"})
        self.assertEqual(self.counts(uid)["svc_mfa_factors"], 1)
        self.assertExact(post("/auth/account/delete", {"code": totp(secret, step_now())}, headers=bearer(token)),
                         200, DELETED)
        self.assertGone(uid, email, suppressed=False)

    def test_the_export_holds_every_part_and_no_secret(self):
        email, uid = create_user("self-export", "--verified")
        token = self.sign_in(email)
        self.plant_rows(uid, email)
        sql("INSERT INTO svc_mfa_factors (auth_table, user_id, secret_sealed, created_at, confirmed_at)"
            " VALUES ('svc_users', %d, 'sealed-secret-here', 1, 2)" % uid)
        self.request_change(token, unique_email("self-export-new"))
        reply = post("/auth/account/export", headers=bearer(token))
        self.assertReply(reply, 200)
        account = reply.json["account"]
        self.assertEqual(reply.json["status"], "Success")
        self.assertEqual(account["profile"]["email"], email)
        self.assertEqual(account["profile"]["id"], uid)
        self.assertEqual(set(account), {"profile", "sessions", "second_factor", "recovery_codes", "passkeys",
                                        "identities", "email_changes", "versions", "audit", "mail"})
        self.assertEqual(len(account["sessions"]), 1)
        self.assertEqual(account["passkeys"][0]["name"], "Laptop")
        self.assertEqual(account["second_factor"], [{"created_at": "1", "confirmed_at": "2"}])
        self.assertIn("email-change-notice", [m["event"] for m in account["mail"]])
        self.assertIn("Your e-mail address is being changed", [m["subject"] for m in account["mail"]])
        self.assertIn("login_ok", [a["event"] for a in account["audit"]])
        text = reply.raw if isinstance(reply.raw, str) else reply.raw.decode()
        for secret in ("sealed-secret-here", "password\"", "code_hash", "credential", "public_key", "secret_sealed",
                       "$argon2", "token"):
            self.assertNotIn(secret, text)

    # --- svc-admin ---------------------------------------------------------

    def test_svc_admin_exports_and_deletes_a_user(self):
        email, uid = create_user("self-admin", "--verified")
        self.sign_in(email)
        self.plant_rows(uid, email)
        exported = json.loads(admin("user", "export", "--email", email).stdout)
        self.assertEqual(exported["account"]["profile"]["id"], uid)
        self.assertEqual(len(exported["account"]["sessions"]), 1)
        missing = admin("user", "delete", "--email", unique_email("nobody"), check=False)
        self.assertNotEqual(missing.returncode, 0)
        admin("user", "delete", "--email", email, "--site", str(self.site))
        self.assertGone(uid, email)
        self.assertEqual(events_to(email)[-1], "account-deleted")


if __name__ == "__main__":
    svc_stack.main()

"""The account goes back to the holder of its mailbox, and stays there
(issue 48 items 1, 4, 5, 9, 12) through nginx + workers + MariaDB +
svc-sender + the SMTP sink.

Each test plays an attack that worked before:
- a change of address parked by whoever signed up with someone else's
  address (or by a thief with a session) is confirmed after the owner has
  taken the account back: now every proof of the address, password reset or
  change and "end all sessions" cancels it, a confirmation whose session
  ended or whose password changed is refused, and the old address is told
  when a change is confirmed (item 1);
- the old mailbox takes the account back after a confirmed change: a reset
  link mailed to it before the change, or the undo link once the new
  holder set another password (item 4);
- the export shows the mail of an address its holder never proved, and of
  sites the user never signed in to (item 5);
- an OAuth consent given by a squatter survives the owner's proof (item 9);
- e-mail change and reset mail go out as often as asked (item 12).
"""

import time

import svc_stack
from svc_stack import ApiTest, post, q, sql, sql_value, unique_email
from test_account_self_service import (BAD_LINK, EMAIL_CHANGE_SENT, EMAIL_CHANGED, bearer, email_of,
                                       events_to, link_token)
from test_email_identity import claims, code_of, create_site, create_user, delivered, links, outbox_rows

PASSWORD = "Engine@1843"
OWNERS = "Owner@Takes1t"
THIEFS = "Thief@Keeps1t"
TAKEN = {"status": "Failed", "message": "User with this email already exists"}
BAD_RESET = {"status": "Failed", "message": "Reset password token has expired or is invalid"}


def reset_token(site, email):
    """The token of the reset link in the newest reset mail to `email`."""
    found = links(delivered(email))
    assert len(found) == 1, found
    return found[0].split("token=", 1)[1]


class TakebackTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Takeback")
        cls.other = create_site("Takeback other")

    def sign_up(self, email, password=PASSWORD):
        reply = post("/auth/sign-up", {"email": email, "password": password, "appID": self.site})
        return self.assertTokenReply(reply)

    def sign_in(self, email, password=PASSWORD, site=None):
        reply = post("/auth/login", {"email": email, "password": password, "appID": site or self.site})
        return self.assertTokenReply(reply)

    def ask_change(self, token, new_email, password=PASSWORD):
        reply = post("/auth/email/change", {"new_email": new_email, "password": password}, headers=bearer(token))
        self.assertExact(reply, 200, EMAIL_CHANGE_SENT)
        return link_token(new_email, "email-change-confirm")

    def reset(self, email, password):
        self.assertReply(post("/auth/request-pass", {"email": email, "appID": self.site}), 200)
        token = reset_token(self.site, email)
        return post("/auth/reset-pass", {"password": password, "confirmPassword": password,
                                         "reset_password_token": token})

    # --- item 1 -------------------------------------------------------------

    def test_a_change_parked_by_a_squatter_dies_when_the_owner_resets(self):
        victim, mine = unique_email("takeback-owner"), unique_email("takeback-squatter")
        squatter = self.sign_up(victim)  # no proof of the address needed
        uid = int(claims(squatter["access_token"])["sub"])
        parked = self.ask_change(squatter, mine)
        undo = link_token(victim, "email-change-notice")

        self.assertExact(post("/auth/sign-up", {"email": victim, "password": OWNERS, "appID": self.site}),
                         409, TAKEN)
        self.assertReply(self.reset(victim, OWNERS), 200)  # the owner proves the address
        self.sign_in(victim, OWNERS)

        self.assertExact(post("/auth/email/change/confirm", {"token": parked}), 400, BAD_LINK)
        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 400, BAD_LINK)
        self.assertEqual(email_of(uid), victim)
        self.sign_in(victim, OWNERS)

    def test_a_proof_by_email_code_cancels_a_parked_change(self):
        victim, mine = unique_email("takeback-code"), unique_email("takeback-code-squatter")
        squatter = self.sign_up(victim)
        uid = int(claims(squatter["access_token"])["sub"])
        parked = self.ask_change(squatter, mine)
        self.assertReply(post("/auth/email-code", {"email": victim, "appID": self.site}), 200)
        code = code_of(delivered(victim))
        self.assertTokenReply(post("/auth/email-code/verify", {"email": victim, "code": code, "appID": self.site}))
        self.assertExact(post("/auth/email/change/confirm", {"token": parked}), 400, BAD_LINK)
        self.assertEqual(email_of(uid), victim)

    def test_a_thiefs_change_dies_with_the_owners_password_change_or_sign_out(self):
        for event in ("password change", "sign out everywhere", "the asking session signed out"):
            with self.subTest(event=event):
                owner_email, uid = create_user("takeback-thief", "--verified")
                owner = self.sign_in(owner_email)
                thief = self.sign_in(owner_email)  # a stolen password
                parked = self.ask_change(thief, unique_email("takeback-thief-box"))
                if event == "password change":
                    body = {"current_password": PASSWORD, "password": OWNERS, "confirmPassword": OWNERS}
                    self.assertReply(post("/auth/password/change", body, headers=bearer(owner)), 200)
                elif event == "sign out everywhere":
                    self.assertReply(post("/auth/sign-out", {"refreshToken": owner["refresh_token"],
                                                            "scope": "global"}), 200)
                else:
                    self.assertReply(post("/auth/sign-out", {"refreshToken": thief["refresh_token"]}), 200)
                self.assertExact(post("/auth/email/change/confirm", {"token": parked}), 400, BAD_LINK)
                self.assertEqual(email_of(uid), owner_email)

    def test_the_old_address_is_told_when_a_change_is_confirmed(self):
        old, uid = create_user("takeback-told", "--verified")
        new = unique_email("takeback-told-new")
        confirm = self.ask_change(self.sign_in(old), new)
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 200, EMAIL_CHANGED)
        self.assertEqual(events_to(old)[-1], "email-changed")
        mail = delivered(old)
        self.assertEqual(mail["Subject"], "Your e-mail address was changed")
        self.assertIn(new, svc_stack.mail_html(mail))
        # Its link restores the address (the password is unchanged).
        undo = link_token(old, "email-changed")
        self.assertReply(post("/auth/email/change/undo", {"token": undo}), 200)
        self.assertEqual(email_of(uid), old)

    # --- item 4 -------------------------------------------------------------

    def test_a_reset_link_mailed_to_the_old_address_is_spent_by_the_change(self):
        old, uid = create_user("takeback-oldreset", "--verified")
        self.assertReply(post("/auth/request-pass", {"email": old, "appID": self.site}), 200)
        stale = reset_token(self.site, old)
        new = unique_email("takeback-oldreset-new")
        confirm = self.ask_change(self.sign_in(old), new)
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 200, EMAIL_CHANGED)
        self.assertExact(post("/auth/reset-pass", {"password": THIEFS, "confirmPassword": THIEFS,
                                                   "reset_password_token": stale}), 400, BAD_RESET)
        self.sign_in(new)  # the password stayed

    def test_the_undo_link_dies_once_the_new_holder_sets_a_password(self):
        old, uid = create_user("takeback-undo", "--verified")
        new = unique_email("takeback-undo-new")
        here = self.sign_in(old)
        confirm = self.ask_change(here, new)
        undo = link_token(old, "email-change-notice")
        self.assertExact(post("/auth/email/change/confirm", {"token": confirm}), 200, EMAIL_CHANGED)
        body = {"current_password": PASSWORD, "password": OWNERS, "confirmPassword": OWNERS}
        self.assertReply(post("/auth/password/change", body, headers=bearer(here)), 200)
        self.assertExact(post("/auth/email/change/undo", {"token": undo}), 400, BAD_LINK)
        self.assertEqual(email_of(uid), new)
        self.sign_in(new, OWNERS)

    # --- item 5 -------------------------------------------------------------

    def plant_mail(self, site, email, subject):
        sql("INSERT INTO svc_notification_log (site_id, event, recipient, subject, body, status)"
            " VALUES (%d, 'invoice', %s, %s, '', 'Sent')" % (site, q(email), q(subject)))

    def exported_subjects(self, token):
        reply = post("/auth/account/export", headers=bearer(token))
        self.assertReply(reply, 200)
        return sorted(m["subject"] for m in reply.json["account"]["mail"])

    def test_the_export_shows_no_mail_of_an_unproven_address_nor_of_other_sites(self):
        victim = unique_email("takeback-export")
        self.plant_mail(self.other, victim, "Invoice 42 for Ada, card ending 4242")
        squatter = self.sign_up(victim)
        self.assertEqual(self.exported_subjects(squatter), [])

        proven, _ = create_user("takeback-export-owner", "--verified")
        self.plant_mail(self.other, proven, "Other site's mail")
        self.plant_mail(self.site, proven, "This site's mail")
        self.assertEqual(self.exported_subjects(self.sign_in(proven)), ["This site's mail"])

    # --- item 9 -------------------------------------------------------------

    def test_a_consent_given_before_the_owners_proof_is_dropped(self):
        victim = unique_email("takeback-consent")
        squatter = self.sign_up(victim)
        uid = int(claims(squatter["access_token"])["sub"])
        sql("INSERT INTO svc_oauth_consents (auth_table, user_id, client_id, scope, created_at)"
            " VALUES ('svc_users', %d, 'squatters-app', 'openid email', %d)" % (uid, int(time.time())))
        self.assertReply(self.reset(victim, OWNERS), 200)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_oauth_consents WHERE user_id = %d" % uid), "0")

    # --- item 12 ------------------------------------------------------------

    def test_email_change_mail_is_capped(self):
        email, uid = create_user("takeback-cap", "--verified")
        token = self.sign_in(email)
        self.ask_change(token, unique_email("takeback-cap-first"))
        again = unique_email("takeback-cap-again")
        reply = post("/auth/email/change", {"new_email": again, "password": PASSWORD}, headers=bearer(token))
        self.assertEqual((reply.status, reply.json["message"]), (429, "Too many requests"), reply)
        self.assertGreaterEqual(reply.json["retry_after"], 1)
        self.assertEqual(outbox_rows(again, "email-change-confirm"), 0)

    def test_reset_mail_is_capped_and_the_reply_does_not_tell(self):
        email, _ = create_user("takeback-resetcap", "--verified")
        cap = int(svc_stack.config_value("auth", "email_code_max_sent_daily", "10"))
        replies = [post("/auth/request-pass", {"email": email, "appID": self.site}) for _ in range(cap + 2)]
        self.assertEqual({(r.status, r.raw) for r in replies}, {(replies[0].status, replies[0].raw)})
        self.assertEqual(replies[0].status, 200)
        self.assertEqual(outbox_rows(email, "password-reset"), cap)


if __name__ == "__main__":
    svc_stack.main()

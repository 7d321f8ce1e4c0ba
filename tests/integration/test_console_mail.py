"""The console's Mail section (web/console/mail.js; issue 50) in Chromium
(console_mail_browser.js) through nginx, at 1280 and 390 px.

An owner (TOTP) filters the log to an event's Failed mail (a row made as
test_site_admin_mail.py makes one), opens it (its HTML part in a
sandbox="" frame, its text part, what happened to it) and resends it: the
row is Pending again (or already Sent by svc-sender), audited as the owner.
A date the API refuses is said under its field. The owner removes a
suppression after a confirmation. The bounce guard's state is shown. A
viewer sees the log and the mail, with no write button. axe-core finds no
serious or critical violation; nothing overflows at 390 px.
"""

import os

import svc_stack
from svc_stack import ApiTest, sql_value, unique_email
from site_admins import PASSWORD, Admin, audit_rows
from test_console import assert_pages_fit, console_site, run_console_browser, with_totp
from test_site_admin_mail import MADE, insert_mail, new_event, sql

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "console_mail_browser.js")
BODY = "<p>Hi <b>there</b> <img src=x onerror=alert(1)></p>"


class ConsoleMailTest(ApiTest):
    def tearDown(self):
        if MADE:
            sql("DELETE FROM svc_notification_log WHERE id IN (%s)" % ",".join(map(str, MADE)))

    def test_an_owner_filters_to_failed_and_resends_one(self):
        site = console_site("Console mail", "console-mail.example")
        owner, owner_id, owner_secret = with_totp(site, "mail-owner", "owner")
        viewer, _, viewer_secret = with_totp(site, "mail-viewer", "viewer")
        event = new_event()
        to = unique_email("console-mail")
        insert_mail(site, event, to, status="Sent")
        failed = insert_mail(site, event, to, status="Failed", subject="Your order", body=BODY,
                             last_error="554 5.7.1 refused", attempts=3)
        insert_mail(site, new_event(), to, status="Failed")
        other = Admin(site, "admin")
        suppressed = unique_email("console-suppressed")
        self.assertEqual(other.call("POST", "/suppressions", {"email": suppressed}).status, 200)
        args = {"owner": owner, "ownerSecret": owner_secret, "viewer": viewer, "viewerSecret": viewer_secret,
                "password": PASSWORD, "event": event, "failedId": failed, "suppressed": suppressed}

        def status_after_resend():
            self.assertIn(sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % failed),
                          ("Pending", "Sent"))
            return "ok"

        seen = run_console_browser(self, BROWSER_SCRIPT, site, args, "ready", status_after_resend)
        states = seen["states"]

        self.assertIn("Mail", states["signedIn"]["nav"])
        self.assertTrue(states["log"]["guard"], states["log"])
        self.assertTrue(any("since" in e.lower() or "date" in e.lower() for e in states["badDate"]["errors"]),
                        states["badDate"])
        rows = states["failed"]["rows"]
        self.assertEqual(len(rows), 1, rows)
        self.assertIn("Your order", rows[0])
        self.assertIn("Failed", rows[0])
        message = states["message"]
        self.assertEqual(message["h1"], ["Your order"])
        self.assertEqual(message["sandbox"], "")
        self.assertIn("<b>there</b>", message["srcdoc"])
        self.assertIn("Hi there", message["text"])
        self.assertTrue(any("554 5.7.1 refused" in h for h in message["history"]), message["history"])
        self.assertIn("Resend", message["viewButtons"])
        self.assertEqual(seen["dialogs"], [])
        self.assertTrue(any("Back in the queue" in s for s in states["resent"]["status"]), states["resent"])
        self.assertEqual(audit_rows(site, "mail.resend")[-1][:2], (str(owner_id), "message %d" % failed))

        self.assertEqual(seen["removeFocus"], "Cancel")
        self.assertFalse(any(suppressed in r for r in states["unsuppressed"]["suppressions"]))
        self.assertEqual(other.call("GET", "/suppressions").json["suppressions"], [])
        self.assertEqual(audit_rows(site, "mail.unsuppress")[-1][0], str(owner_id))

        for name in ("viewerLog", "viewerMessage"):
            writes = [b for b in states[name]["viewButtons"] if b in ("Resend", "Remove")]
            self.assertEqual(writes, [], name)
        self.assertEqual(states["viewerMessage"]["h1"], ["Your order"])

        assert_pages_fit(self, seen, 5)
        # The onerror of the logged body tried to run: the sandbox blocked it.
        blocked = [e for e in seen["consoleErrors"] if e.startswith("Blocked script execution in 'about:srcdoc'")]
        self.assertTrue(blocked, seen["consoleErrors"])
        self.assertEqual([e for e in seen["consoleErrors"]
                          if e not in blocked and not e.startswith("Failed to load resource")], [])


if __name__ == "__main__":
    svc_stack.main()

"""svc-admin outbox purge, audit purge and mail purge-bounces against the stack's database:
exactly the old rows of the given status go, in batches with a progress line
each; recent rows, other statuses and other tables stay.

Rows are made for a site id no other test uses and dated 40 days back; the
cutoff is 30 days, so rows other tests create (dated now) are never old.
"""

import unittest

from svc_stack import admin, sql, sql_value
import runner

SITE = 990017


def outbox(status, days_old, n=1):
    for _ in range(n):
        sql("INSERT INTO svc_notification_log (site_id, event, recipient, body, status, created_at, next_attempt_at)"
            " VALUES (%d, 'purge-test', 'p@example.org', 'x', '%s', NOW() - INTERVAL %d DAY,"
            " NOW() + INTERVAL 1 DAY)" % (SITE, status, days_old))


def counts():
    """{(status, old?): n} of this test's outbox rows."""
    rows = sql("SELECT status, created_at < NOW() - INTERVAL 30 DAY, COUNT(*) FROM svc_notification_log"
               " WHERE site_id = %d GROUP BY 1, 2" % SITE)
    return {(r[0], r[1] == "1"): int(r[2]) for r in rows}


class Purge(unittest.TestCase):
    def setUp(self):
        sql("DELETE FROM svc_notification_log WHERE site_id = %d" % SITE)
        sql("DELETE FROM svc_audit_log WHERE event LIKE 'purge_test_%'")

    tearDown = setUp

    def test_outbox_purge_by_status_in_batches(self):
        outbox("Sent", 40, 5)
        outbox("Sent", 1, 2)
        outbox("Failed", 40, 3)
        outbox("Pending", 40, 2)
        result = admin("outbox", "purge", "--older-than", "30d", "--status", "Sent", "--batch", "2",
                       "--pause-ms", "0")
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:3], ["outbox purge: Sent: 2 deleted (total 2)",
                                     "outbox purge: Sent: 2 deleted (total 4)",
                                     "outbox purge: Sent: 1 deleted (total 5)"])
        self.assertEqual(lines[3], "outbox purge: Sent done, 5 rows older than 30d deleted")
        self.assertEqual(counts(), {("Sent", False): 2, ("Failed", True): 3, ("Pending", True): 2})

        # Without --status: Sent and Failed, never Pending.
        result = admin("outbox", "purge", "--older-than", "30d")
        self.assertIn("outbox purge: Failed done, 3 rows older than 30d deleted", result.stdout)
        self.assertEqual(counts(), {("Sent", False): 2, ("Pending", True): 2})

        self.assertIn("Pending: 2 would be deleted",
                      admin("outbox", "purge", "--older-than", "30d", "--status", "Pending", "--dry-run").stdout)
        self.assertEqual(counts(), {("Sent", False): 2, ("Pending", True): 2})
        admin("outbox", "purge", "--older-than", "30d", "--status", "Pending")
        self.assertEqual(counts(), {("Sent", False): 2})

    def test_outbox_purge_refuses_bad_options(self):
        for args, message in ((["--status", "Sent"], "missing --older-than"),
                              (["--older-than", "30d", "--status", "Done"], "--status expects"),
                              (["--older-than", "soon"], "bad duration"),
                              (["--older-than", "30d", "--batch", "0"], "--batch expects")):
            result = admin("outbox", "purge", *args, check=False)
            self.assertNotEqual(result.returncode, 0, args)
            self.assertIn(message, result.stderr)

    def test_audit_purge(self):
        for event, days, n in (("purge_test_old", 40, 3), ("purge_test_new", 2, 2)):
            for _ in range(n):
                sql("INSERT INTO svc_audit_log (event, created_at) VALUES ('%s', NOW() - INTERVAL %d DAY)"
                    % (event, days))
        sql("DELETE FROM svc_admin_audit WHERE action LIKE 'purge_test%'")
        for action, days in (("purge_test_old", 40), ("purge_test_new", 2)):
            sql("INSERT INTO svc_admin_audit (site_id, actor, action, created_at)"
                " VALUES (%d, 'operator', '%s', UNIX_TIMESTAMP() - %d * 86400)" % (SITE, action, days))
        result = admin("audit", "purge", "--older-than", "30d", "--batch", "2", "--pause-ms", "0")
        lines = result.stdout.splitlines()
        self.assertEqual(lines[:3], ["audit purge: 2 deleted (total 2)",
                                     "audit purge: 1 deleted (total 3)",
                                     "audit purge: done, 3 rows older than 30d deleted"])
        # The site administrators' audit (sql/036) goes by the same age.
        self.assertEqual(lines[-1], "audit purge: site admin: done, 1 rows older than 30d deleted", lines)
        self.assertEqual(sql_value("SELECT GROUP_CONCAT(action) FROM svc_admin_audit WHERE action LIKE 'purge_test%'"),
                         "purge_test_new")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'purge_test_old'"), "0")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'purge_test_new'"), "2")
        # Recent rows of the service itself are untouched.
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE created_at < NOW() - INTERVAL 30 DAY"),
                         "0")

    def test_bounces_purge_keeps_suppressions(self):
        sql("DELETE FROM svc_mail_bounces WHERE site_id = %d" % SITE)
        for address, days in (("old-1@example.org", 40), ("old-2@example.org", 40), ("new@example.org", 2)):
            sql("INSERT INTO svc_mail_bounces (site_id, address, kind, status, created_at)"
                " VALUES (%d, '%s', 'hard', '5.1.1', NOW() - INTERVAL %d DAY)" % (SITE, address, days))
        sql("INSERT INTO svc_mail_suppressions (site_id, address, reason) VALUES (%d, 'old-1@example.org', 'bounce')"
            % SITE)
        try:
            dry = admin("mail", "purge-bounces", "--older-than", "30d", "--dry-run")
            self.assertEqual(dry.stdout.strip(), "bounces purge: 2 would be deleted")
            result = admin("mail", "purge-bounces", "--older-than", "30d", "--batch", "1", "--pause-ms", "0")
            self.assertEqual(result.stdout.splitlines(), ["bounces purge: 1 deleted (total 1)",
                                                          "bounces purge: 1 deleted (total 2)",
                                                          "bounces purge: 0 deleted (total 2)",
                                                          "bounces purge: done, 2 rows older than 30d deleted"])
            self.assertEqual(sql("SELECT address FROM svc_mail_bounces WHERE site_id = %d" % SITE),
                             [["new@example.org"]])
            # The address stays suppressed: only the notes of how it died go.
            self.assertEqual(sql_value("SELECT reason FROM svc_mail_suppressions WHERE site_id = %d" % SITE),
                             "bounce")
            bad = admin("mail", "purge-bounces", "--older-than", "soon", check=False)
            self.assertEqual(bad.returncode, 2)
            self.assertIn("bad duration", bad.stderr)
        finally:
            sql("DELETE FROM svc_mail_bounces WHERE site_id = %d" % SITE)
            sql("DELETE FROM svc_mail_suppressions WHERE site_id = %d" % SITE)

    def test_sessions_purge_takes_only_ended_sessions(self):
        table, user = "svc_users", 990017
        sql("DELETE FROM svc_sessions WHERE user_id = %d" % user)
        now = int(sql_value("SELECT UNIX_TIMESTAMP()"))
        day = 86400
        rows = [  # id, expires_at, revoked_at
            ("purgeExpiredLongAgo000", now - 40 * day, None),
            ("purgeRevokedLongAgo000", now + 20 * day, now - 35 * day),
            ("purgeRevokedRecently00", now + 20 * day, now - 2 * day),
            ("purgeStillOpen00000000", now + 20 * day, None),
        ]
        for sid, expires, revoked in rows:
            sql("INSERT INTO svc_sessions (id, auth_table, user_id, created_at, last_seen_at, rotated_at, expires_at,"
                " auth_time, revoked_at) VALUES ('%s', '%s', %d, %d, %d, %d, %d, %d, %s)"
                % (sid, table, user, now - 50 * day, now - 50 * day, now - 50 * day, expires, now - 50 * day,
                   "NULL" if revoked is None else revoked))
        try:
            dry = admin("sessions", "purge", "--older-than", "30d", "--dry-run")
            self.assertEqual(dry.stdout.strip(), "sessions purge: 2 would be deleted")
            result = admin("sessions", "purge", "--older-than", "30d", "--batch", "1", "--pause-ms", "0")
            self.assertEqual(result.stdout.splitlines()[-1], "sessions purge: done, 2 rows older than 30d deleted")
            left = sql("SELECT id FROM svc_sessions WHERE user_id = %d ORDER BY id" % user)
            self.assertEqual(left, [["purgeRevokedRecently00"], ["purgeStillOpen00000000"]])
        finally:
            sql("DELETE FROM svc_sessions WHERE user_id = %d" % user)

    def test_oauth_purge_takes_expired_requests_codes_and_ended_sign_ons(self):
        now = int(sql_value("SELECT UNIX_TIMESTAMP()"))
        day = 86400
        user = 990018
        sessions = [("oauthEndedLongAgo00000", now - 40 * day, None),
                    ("oauthRevokedRecently00", now + 20 * day, now - 2 * day),
                    ("oauthStillOpen00000000", now + 20 * day, None)]
        for sid, expires, revoked in sessions:
            sql("INSERT INTO svc_sessions (id, auth_table, user_id, created_at, last_seen_at, rotated_at, expires_at,"
                " auth_time, revoked_at) VALUES ('%s', 'svc_users', %d, %d, %d, %d, %d, %d, %s)"
                % (sid, user, now - 50 * day, now - 50 * day, now - 50 * day, expires, now - 50 * day,
                   "NULL" if revoked is None else revoked))
        # Requests and codes named by how long ago they expired.
        for name, expired in (("old", 40 * day), ("recent", 2 * day), ("live", -300)):
            sql("INSERT INTO svc_oauth_requests (id, site_id, client_id, redirect_uri, scope, browser_hash,"
                " created_at, expires_at) VALUES ('purge-%s', %d, 'c', 'https://x', 'openid', '', %d, %d)"
                % (name, SITE, now - expired - 600, now - expired))
            sql("INSERT INTO svc_oauth_codes (code_hash, site_id, client_id, redirect_uri, scope, session_id,"
                " created_at, expires_at) VALUES ('purge-%s', %d, 'c', 'https://x', 'openid', 'x', %d, %d)"
                % (name, SITE, now - expired - 60, now - expired))
        # Cookies and grants of the three sessions and of one that is gone.
        for sid in [s[0] for s in sessions] + ["oauthGoneSession000000"]:
            sql("INSERT INTO svc_oauth_sso (cookie_hash, site_id, session_id, created_at)"
                " VALUES ('purge-%s', %d, '%s', %d)" % (sid, SITE, sid, now))
            sql("INSERT INTO svc_oauth_grants (session_id, site_id, client_id, scope, created_at)"
                " VALUES ('%s', %d, 'c', 'openid', %d)" % (sid, SITE, now))
        try:
            result = admin("oauth", "purge", "--older-than", "30d", "--batch", "1", "--pause-ms", "0")
            self.assertIn("oauth purge: grants: done", result.stdout.splitlines()[-1])
            self.assertEqual(sql("SELECT id FROM svc_oauth_requests WHERE site_id = %d ORDER BY id" % SITE),
                             [["purge-live"], ["purge-recent"]])
            self.assertEqual(sql("SELECT code_hash FROM svc_oauth_codes WHERE site_id = %d ORDER BY 1" % SITE),
                             [["purge-live"], ["purge-recent"]])
            kept = [["oauthRevokedRecently00"], ["oauthStillOpen00000000"]]
            self.assertEqual(sql("SELECT session_id FROM svc_oauth_sso WHERE site_id = %d ORDER BY 1" % SITE), kept)
            self.assertEqual(sql("SELECT session_id FROM svc_oauth_grants WHERE site_id = %d ORDER BY 1" % SITE), kept)
            dry = admin("oauth", "purge", "--older-than", "30d", "--dry-run").stdout
            self.assertIn("oauth purge: requests: ", dry)
        finally:
            for table in ("svc_oauth_requests", "svc_oauth_codes", "svc_oauth_sso", "svc_oauth_grants"):
                sql("DELETE FROM %s WHERE site_id = %d" % (table, SITE))
            sql("DELETE FROM svc_sessions WHERE user_id = %d" % user)


if __name__ == "__main__":
    runner.main()

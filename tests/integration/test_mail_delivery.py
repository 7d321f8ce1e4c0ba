"""Mail delivery order (issue 12): urgent mail first, fair sharing between
sites, per-site hourly quotas, parallel SMTP sessions.

Backlogs are INSERTed straight into svc_notification_log with one
INSERT ... SELECT over MariaDB's sequence engine (20,000 rows in well under a
second); the mail that must overtake them goes through the API or svc-admin
like real mail. Each test uses its own site, and deletes whatever of its
backlog is still Pending at the end, so the sink and later tests do not pay
for it.
"""

import os
import re
import signal
import subprocess
import time
import uuid

import svc_stack as S
import test_sender as TS
from procs import wait_until

q = S.q


def new_site(name, *options):
    out = S.admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "mail-%s.example" % uuid.uuid4().hex[:6],
                  "--email-from", "Shop <shop@demo.example>", *options).stdout
    return int(out.strip().splitlines()[-1])


def backlog(site, event, count, priority=1):
    """`count` Pending rows of `site`, due now, in one statement."""
    S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status, priority,"
          " next_attempt_at, created_at)"
          " SELECT %d, %s, CONCAT('bulk-', seq, '@example.com'), 'Shop <shop@demo.example>', 'Backlog',"
          " '<p>backlog</p>', 'Pending', %d, UTC_TIMESTAMP(), UTC_TIMESTAMP() FROM seq_1_to_%d"
          % (site, q(event), priority, count))


def status_counts(event):
    return {s: int(n) for s, n in S.sql("SELECT status, COUNT(*) FROM svc_notification_log WHERE event = %s"
                                        " GROUP BY status" % q(event))}


def drop_pending(event):
    S.sql("DELETE FROM svc_notification_log WHERE event = %s AND status = 'Pending'" % q(event))


def sink_counter(path):
    return int(os.path.basename(path).split("-", 1)[0])


class MailDeliveryTest(S.ApiTest):

    def tearDown(self):
        TS.start_background_sender()

    def test_reset_mail_overtakes_20000_pending_notifications(self):
        site = new_site("backlog-priority")
        event = "backlog-" + uuid.uuid4().hex[:10]
        TS.start_background_sender()  # the stack's 1-second loop does the sending
        try:
            backlog(site, event, 20000)
            # All rows are in; the running sender may already have claimed a batch.
            self.assertEqual(sum(status_counts(event).values()), 20000)
            user_id, email = self.reset_user()
            reply = S.post("/auth/request-pass", {"email": email, "appID": 1})
            self.assertEqual(reply.status, 200, reply)
            row = S.sql("SELECT id, priority FROM svc_notification_log WHERE recipient = %s ORDER BY id DESC LIMIT 1"
                        % q(email))
            self.assertEqual(row[0][1], "0", "a reset mail is high priority")
            reset_id = int(row[0][0])

            def reset_sent():
                return S.sql_value("SELECT status FROM svc_notification_log WHERE id = %d" % reset_id) == "Sent"

            self.assertTrue(wait_until(reset_sent, 30, 0.1), "the reset mail was not delivered")
            # Sent while the backlog still waits: it did not queue behind it.
            still_pending = status_counts(event).get("Pending", 0)
            self.assertGreater(still_pending, 10000, "the reset mail waited for the backlog")
            self.assertIn(reset_id, TS.mails_by_id())
        finally:
            drop_pending(event)

    def reset_user(self):
        email = S.unique_email("prio")
        out = S.admin("user", "create", "--email", email, "--first", "Pri", "--last", "Ority",
                      stdin="Pass@1234\n").stdout
        return int(out.strip().splitlines()[-1]), email

    def test_site_b_is_served_in_the_first_two_batches_behind_site_a(self):
        a, b = new_site("fair-a"), new_site("fair-b")
        event_a, event_b = "fair-a-" + uuid.uuid4().hex[:8], "fair-b-" + uuid.uuid4().hex[:8]
        TS._stop("svc-sender")
        try:
            backlog(a, event_a, 5000)
            b_ids = TS.insert_rows(event_b, count=10, site=b)
            before = set(S.mail_files())
            first = max([sink_counter(p) for p in before] or [0])
            proc = subprocess.Popen([TS.SENDER, "--config", S.CONFIG, "--batch", "50"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            try:
                done = lambda: all(r["status"] == "Sent" for r in TS.rows(event_b))
                self.assertTrue(wait_until(done, 60, 0.05), TS.rows(event_b))
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
            got = TS.mails_by_id()
            counters = sorted(sink_counter(path) for log_id in b_ids
                              for path in S.mail_files() if path not in before
                              and self.holds(path, log_id))
            self.assertEqual(len(counters), 10)
            # Two batches of 50 are the first 100 mails the sink accepted.
            self.assertLessEqual(max(counters) - first, 100, counters)
            self.assertTrue(all(log_id in got for log_id in b_ids))
        finally:
            drop_pending(event_a)

    @staticmethod
    def holds(path, log_id):
        with open(path, "rb") as f:
            return ("<svc.%d." % log_id).encode() in f.read(8192)

    def test_hourly_quota_defers_the_rest_and_counts_it(self):
        site = new_site("quota")
        out = S.admin("site", "set", "--site", str(site), "--mail-per-hour", "5").stdout
        self.assertIn("mail_per_hour:   5", out)
        event = "quota-" + uuid.uuid4().hex[:8]
        TS._stop("svc-sender")
        ids = TS.insert_rows(event, count=12, site=site)
        r = TS.run_sender()
        self.assertIn(r.returncode, (0, 1), r.stderr)
        rows = TS.rows(event)
        self.assertEqual(sum(1 for x in rows if x["status"] == "Sent"), 5, rows)
        deferred = [x for x in rows if x["status"] == "Pending"]
        self.assertEqual(len(deferred), 7)
        # Deferred to the next hour, not dropped and not counted as an attempt.
        self.assertTrue(all(x["due"] == "0" and x["attempts"] == "0" for x in deferred), deferred)
        self.assertTrue(all(x["next_attempt_at"].endswith(":00:00") for x in deferred), deferred)
        TS.run_sender()
        self.assertEqual(sum(1 for x in TS.rows(event) if x["status"] == "Sent"), 5)
        stats = S.admin("outbox", "stats").stdout
        m = re.search(r"Deferred by site quota: (\d+) this hour", stats)
        self.assertTrue(m, stats)
        self.assertGreaterEqual(int(m.group(1)), 7)
        hour = S.sql_value("SELECT deferred FROM svc_mail_quota WHERE site_id = %d" % site)
        self.assertEqual(hour, "7")
        # Back to unlimited; the deferred rows are still there for the next hour.
        S.admin("site", "set", "--site", str(site), "--mail-per-hour", "unlimited")
        self.assertIn("mail_per_hour:   unlimited", S.admin("site", "show", "--site", str(site)).stdout)
        self.assertEqual(len(ids), 12)
        drop_pending(event)

    def test_template_marked_bulk_waits_for_normal_mail(self):
        site = new_site("bulk")
        bulk, normal = "bulk-" + uuid.uuid4().hex[:8], "normal-" + uuid.uuid4().hex[:8]
        TS._stop("svc-sender")
        backlog(site, bulk, 30, priority=2)
        TS.insert_rows(normal, count=5, site=site)
        due = TS.run_sender("--dry-run", "--batch", "5").stdout
        self.assertEqual(len(re.findall(r"event=" + normal, due)), 5, due)
        drop_pending(bulk)
        drop_pending(normal)

    def test_sessions_key_is_read_and_bad_values_refused(self):
        with open(S.CONFIG) as f:
            text = f.read()
        bad = re.sub(r"(?m)^\[smtp\]$", "[smtp]\nsessions = 0", text, count=1)
        path = os.path.join(S.STACK_DIR, "sessions-test.conf")
        with open(path, "w") as f:
            f.write(bad)
        try:
            r = TS.run_sender("--dry-run", config=path)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("sessions", r.stderr)
        finally:
            os.remove(path)


if __name__ == "__main__":
    S.main()

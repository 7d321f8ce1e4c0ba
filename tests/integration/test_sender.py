"""svc-sender against the stack's MariaDB and SMTP sink, and the svc-admin
template / merge-query / outbox commands.

Rows are INSERTed straight into svc_notification_log (status Pending, due
now), each test with its own event name, and the e-mails are found by their
Message-ID <svc.{log id}.{site id}@...>. The stack's background sender
(`svc-sender --loop 1`) is stopped for the duration of this file, so each
test runs svc-sender itself and sees exactly what one run does; it is
restarted at the end the way scripts/stack.sh starts it.
"""

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import svc_stack as S
from procs import pid_alive, wait_until

STACK = S.STACK_DIR
SENDER = os.path.join(S.BIN_DIR, "svc-sender")
CONTROL = os.path.join(STACK, "smtp-control.json")
PY = "/usr/bin/python3"
MID = re.compile(r"<svc\.(\d+)\.(\d+)@([^>]+)>")


# --- processes of the stack ----------------------------------------------------

def _stop(name):
    """Stops a stack process by its pid file; True when it was running."""
    if not S.stack_process_running(name):
        return False
    pid = S.stack_pid(name)
    os.kill(pid, signal.SIGTERM)
    if not wait_until(lambda: not pid_alive(pid), 15, 0.05):
        os.kill(pid, signal.SIGKILL)
    os.unlink(S.pid_path(name))
    return True


def _start_bg(name, log, argv):
    """As stack.sh's start_bg: a background job of a shell, output appended to
    the log, its pid in the pid file (not a child of this test process)."""
    line = "%s >>%s 2>&1 </dev/null & echo $!" % (" ".join(shlex.quote(a) for a in argv),
                                                   shlex.quote(os.path.join(STACK, log)))
    pid = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, check=True).stdout.strip()
    with open(S.pid_path(name), "w") as f:
        f.write(pid + "\n")


def start_sink():
    if S.stack_process_running("smtp-sink"):
        return
    port = int(S.ENV["SVC_SMTP_PORT"])
    _start_bg("smtp-sink", "smtp-sink.log", [PY, os.path.join(S.SOURCE_DIR, "scripts", "sinks", "smtp_sink.py"),
                                             "--host", "127.0.0.1", "--port", str(port),
                                             "--dir", os.path.join(STACK, "mail")])
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("SMTP sink did not come back")


def start_background_sender():
    if not S.stack_process_running("svc-sender"):
        _start_bg("svc-sender", "svc-sender.log", [SENDER, "--config", S.CONFIG, "--loop", "1"])


# --- rows and mail -------------------------------------------------------------

def lit(value):
    """A SQL literal that survives any client character set and any byte."""
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    data = value.encode("utf-8")
    return "_utf8mb4 X'%s'" % data.hex() if data else "''"


def insert_rows(event, count=1, site=1, recipient=None, cc="", bcc="", from_="Demo Shop <no-reply@demo.example>",
                subject="Hello", body="<p>Hello <b>there</b></p>"):
    """Pending rows due now; returns their ids in order."""
    values = []
    for i in range(count):
        to = recipient if recipient is not None else "rcpt-%d-%s@example.com" % (i, uuid.uuid4().hex[:8])
        values.append("(%d, %s, %s, %s, %s, %s, %s, %s, 'Pending', UTC_TIMESTAMP(), UTC_TIMESTAMP())" % (
            site, lit(event), lit(to), lit(cc), lit(bcc), lit(from_), lit(subject), lit(body)))
    S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, cc, bcc, `from`, subject, body, status,"
          " next_attempt_at, created_at) VALUES " + ", ".join(values))
    return [int(r[0]) for r in S.sql("SELECT id FROM svc_notification_log WHERE event = %s ORDER BY id" % lit(event))]


def rows(event):
    cols = ["id", "status", "attempts", "sent_at", "claimed_until", "last_error", "next_attempt_at", "due"]
    out = S.sql("SELECT id, status, attempts, sent_at, claimed_until, last_error, next_attempt_at,"
                " next_attempt_at <= NOW() FROM svc_notification_log WHERE event = %s ORDER BY id" % lit(event))
    return [dict(zip(cols, r)) for r in out]


def new_event():
    return "sender-test-" + uuid.uuid4().hex[:12]


_parsed = {}


def mails_by_id():
    """log id -> list of messages in the sink (every .eml with our Message-ID form)."""
    found = {}
    for path in S.mail_files():
        if path not in _parsed:
            msg = S.read_mail(path)
            with open(path, "rb") as f:
                raw = f.read()
            _parsed[path] = (msg, raw)
        msg, raw = _parsed[path]
        m = MID.search(str(msg.get("Message-ID", "")))
        if m:
            found.setdefault(int(m.group(1)), []).append((msg, raw))
    return found


def run_sender(*args, config=None, timeout=60):
    return subprocess.run([SENDER, "--config", config or S.CONFIG] + list(args), capture_output=True, text=True,
                          timeout=timeout)


class SenderTest(S.ApiTest):

    @classmethod
    def setUpClass(cls):
        cls.had_background_sender = _stop("svc-sender")
        try:
            S.set_sink_control(CONTROL, None)
            start_sink()
            run_sender()  # send whatever earlier tests left due, so it cannot take injected failures
        except BaseException:
            cls.tearDownClass()  # unittest skips it when setUpClass fails
            raise

    @classmethod
    def tearDownClass(cls):
        S.set_sink_control(CONTROL, None)
        start_sink()
        if cls.had_background_sender:
            start_background_sender()

    def tearDown(self):
        S.set_sink_control(CONTROL, None)
        start_sink()

    def send_until_done(self, event, timeout=10):
        """Runs svc-sender until no row of `event` is Pending."""
        def done():
            run_sender()
            return all(r["status"] != "Pending" for r in rows(event))
        self.assertTrue(wait_until(done, timeout, 0.3), rows(event))

    # --- delivery -------------------------------------------------------------

    def test_pending_row_is_sent_as_multipart_with_bcc_only_in_the_envelope(self):
        event = new_event()
        [log_id] = insert_rows(event, recipient="to1@example.com, to2@example.com", cc="cc@example.com",
                               bcc="hidden@example.com", subject="Grüße [x]",
                               body="<p>Hallo <b>Welt</b> &amp; mehr</p>")
        [bcc_only] = insert_rows(event + "-b", recipient="", bcc="only-bcc@example.com", from_="plain@demo.example")
        result = run_sender()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stderr, r'"event":"batch".*"claimed":\d+.*"sent":\d+.*"retry":0.*"failed":0')

        [row] = rows(event)
        self.assertEqual(row["status"], "Sent")
        self.assertIsNotNone(row["sent_at"])
        self.assertIsNone(row["claimed_until"])
        self.assertEqual(row["attempts"], "0")

        # One copy per recipient (issue 36), each in an envelope of its own
        # whose sender is a VERP bounce address ([smtp] bounce_address) for
        # that recipient; the headers are the same in every copy.
        copies = mails_by_id()[log_id]
        self.assertEqual(sorted(m["X-Sink-Rcpt-To"] for m, _ in copies),
                         ["cc@example.com", "hidden@example.com", "to1@example.com", "to2@example.com"])
        self.assertEqual(len({m["X-Sink-Mail-From"] for m, _ in copies}), 4)
        for msg, raw in copies:
            self.assertEqual(msg["Message-ID"], "<svc.%d.1@demo.example>" % log_id)
            self.assertEqual(msg["From"].addresses[0].display_name, "Demo Shop")
            self.assertEqual(msg["From"].addresses[0].addr_spec, "no-reply@demo.example")
            self.assertEqual([a.addr_spec for a in msg["To"].addresses], ["to1@example.com", "to2@example.com"])
            self.assertEqual([a.addr_spec for a in msg["Cc"].addresses], ["cc@example.com"])
            self.assertEqual(msg["Subject"], "Grüße [x]")
            self.assertIsNone(msg["Bcc"])
            self.assertRegex(msg["X-Sink-Mail-From"], r"^bounce\+%d-[0-9a-f]{20}@bounces\.localhost$" % log_id)
            headers = raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n", 2)[2]  # without the two X-Sink lines
            self.assertNotIn(b"hidden@example.com", headers)
            self.assertNotIn(b"hidden@example.com", raw.split(b"\r\n\r\n", 1)[1])
            self.assertEqual(msg.get_content_type(), "multipart/alternative")
            self.assertIn("<b>Welt</b> &amp; mehr", msg.get_body(("html",)).get_content())
            self.assertIn("Hallo Welt & mehr", msg.get_body(("plain",)).get_content())

        [(only, _)] = mails_by_id()[bcc_only]
        self.assertEqual(only["X-Sink-Rcpt-To"], "only-bcc@example.com")
        self.assertIsNone(only["Bcc"])
        self.assertNotIn("only-bcc", str(only["To"]))
        self.assertEqual(only["Message-ID"], "<svc.%d.1@demo.example>" % bcc_only)

    def test_header_injection_adds_no_header_and_no_recipient(self):
        event = new_event()
        [log_id] = insert_rows(event, recipient="victim@example.com", subject="x\r\nBcc: evil@example.com",
                               from_="Evil\r\nBcc: evil2@example.com <no-reply@demo.example>")
        [bad_to] = insert_rows(event + "-to", recipient="a@example.com\r\nBcc: evil3@example.com")
        run_sender()
        [(msg, raw)] = mails_by_id()[log_id]
        self.assertEqual(msg["X-Sink-Rcpt-To"], "victim@example.com")
        self.assertIsNone(msg["Bcc"])
        head = raw.split(b"\r\n\r\n", 1)[0]
        self.assertEqual(len(re.findall(rb"(?im)^bcc:", head)), 0, head)
        self.assertEqual(len(re.findall(rb"(?im)^subject:", head)), 1, head)
        self.assertNotIn("\n", msg["Subject"])
        self.assertEqual(msg["From"].addresses[0].addr_spec, "no-reply@demo.example")
        # An address list with a line break is not an address: Failed, nothing sent.
        [row] = rows(event + "-to")
        self.assertEqual(row["status"], "Failed")
        self.assertIn("invalid recipient", row["last_error"])
        self.assertNotIn(bad_to, mails_by_id())
        listed = S.admin("outbox", "list", "--status", "Failed", "--site", "1", "--limit", "50").stdout
        self.assertIn("%d\t1\t%s-to\tFailed\t1\t" % (bad_to, event), listed)
        self.assertIn("\ta@example.com??Bcc: evil3@example.com\t", listed)  # one line per row

    def test_451_is_retried_after_the_backoff_then_sent(self):
        event = new_event()
        S.set_sink_control(CONTROL, {"data_reply": [451]})
        [log_id] = insert_rows(event)
        result = run_sender()
        self.assertEqual(result.returncode, 1, result.stderr)
        [row] = rows(event)
        self.assertEqual((row["status"], row["attempts"]), ("Pending", "1"))
        self.assertIn("451", row["last_error"])
        self.assertEqual(row["due"], "0")  # backoff: not due at once
        self.assertIsNone(row["claimed_until"])
        self.assertNotIn(log_id, mails_by_id())
        self.send_until_done(event)
        [row] = rows(event)
        self.assertEqual((row["status"], row["attempts"]), ("Sent", "1"))
        self.assertEqual(len(mails_by_id()[log_id]), 1)

    def test_554_on_a_recipient_fails_and_outbox_retry_requeues_it(self):
        # 554 5.7.1, a policy refusal: Failed, and the address is not
        # suppressed (a dead mailbox, 550 5.1.1, would be: test_deliverability).
        event = new_event()
        bad = "refused-%s@example.com" % uuid.uuid4().hex[:8]
        S.set_sink_control(CONTROL, {"rcpt_reject": {bad: 554}})
        [log_id] = insert_rows(event, recipient=bad)
        result = run_sender()
        self.assertEqual(result.returncode, 1)
        [row] = rows(event)
        self.assertEqual(row["status"], "Failed")
        self.assertIn("554", row["last_error"])
        self.assertNotIn(log_id, mails_by_id())

        listed = S.admin("outbox", "list", "--status", "Failed", "--limit", "1000")
        self.assertRegex(listed.stdout, r"(?m)^%d\t1\t%s\tFailed\t1\t" % (log_id, event))
        stats = S.admin("outbox", "stats").stdout
        self.assertRegex(stats, r"(?m)^Pending: \d+ \(due now: \d+, claimed: \d+, oldest: \S+\)$")
        self.assertRegex(stats, r"(?m)^Failed: +[1-9]\d*$")
        self.assertRegex(stats, r"(?m)^Sent: +\d+$")

        S.set_sink_control(CONTROL, None)
        retried = S.admin("outbox", "retry", str(log_id))
        self.assertEqual(retried.stdout.strip(), "outbox row %d re-queued: Pending, attempts 0, due now" % log_id)
        [row] = rows(event)
        self.assertEqual((row["status"], row["attempts"], row["due"]), ("Pending", "0", "1"))
        self.assertEqual(run_sender().returncode, 0)
        self.assertEqual(rows(event)[0]["status"], "Sent")
        self.assertEqual(len(mails_by_id()[log_id]), 1)

        again = S.admin("outbox", "retry", str(log_id), check=False)
        self.assertEqual(again.returncode, 1)
        self.assertIn("outbox row %d is Sent, not Failed" % log_id, again.stderr)
        missing = S.admin("outbox", "retry", "999999999", check=False)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("no outbox row 999999999", missing.stderr)
        usage = S.admin("outbox", "retry", "abc", check=False)
        self.assertEqual(usage.returncode, 2)
        self.assertIn("'abc' is not a row id", usage.stderr)
        bad_status = S.admin("outbox", "list", "--status", "Lost", check=False)
        self.assertEqual(bad_status.returncode, 2)
        self.assertIn("--status expects Pending, Sent or Failed", bad_status.stderr)

    def test_sink_down_keeps_rows_pending_and_they_drain_when_it_returns(self):
        event = new_event()
        _stop("smtp-sink")
        ids = insert_rows(event, count=2)
        result = run_sender()
        self.assertEqual(result.returncode, 1)
        for row in rows(event):
            self.assertEqual((row["status"], row["attempts"]), ("Pending", "1"), row)
            self.assertIn("connect", row["last_error"])
            self.assertIsNone(row["claimed_until"])
        start_sink()
        self.send_until_done(event)
        for row in rows(event):
            self.assertEqual((row["status"], row["attempts"]), ("Sent", "1"), row)
        got = mails_by_id()
        for log_id in ids:
            self.assertEqual(len(got.get(log_id, [])), 1, log_id)

    def test_dry_run_claims_and_sends_nothing(self):
        event = new_event()
        [log_id] = insert_rows(event)
        result = run_sender("--dry-run")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("id=%d site=1 event=%s attempts=0" % (log_id, event), result.stdout)
        [row] = rows(event)
        self.assertEqual((row["status"], row["attempts"], row["claimed_until"]), ("Pending", "0", None))
        self.assertNotIn(log_id, mails_by_id())
        self.assertEqual(run_sender().returncode, 0)
        self.assertEqual(rows(event)[0]["status"], "Sent")

    def test_command_line_errors_exit_2(self):
        for args in (["--batch", "0"], ["--loop", "x"], ["--frobnicate"], ["--dry-run", "--loop", "1"]):
            result = run_sender(*args)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn("svc-sender: ", result.stderr)
        missing = subprocess.run([SENDER, "--config", "/nonexistent/svc.conf"], capture_output=True, text=True)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("/nonexistent/svc.conf", missing.stderr)
        self.assertIn("--loop", subprocess.run([SENDER, "--help"], capture_output=True, text=True).stdout)

    # --- at-least-once and concurrency ------------------------------------------

    def short_lease_config(self, tmp):
        with open(S.CONFIG) as f:
            text = f.read()
        text = re.sub(r"(?m)^lease_seconds\s*=.*$", "lease_seconds = 10", text)
        self.assertIn("lease_seconds = 10", text)
        path = os.path.join(tmp, "svc.conf")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_kill_9_mid_batch_loses_nothing(self):
        event = new_event()
        ids = insert_rows(event, count=300)
        with tempfile.TemporaryDirectory() as tmp:
            conf = self.short_lease_config(tmp)
            before = set(S.mail_files())
            proc = subprocess.Popen([SENDER, "--config", conf, "--batch", "500"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            self.assertTrue(wait_until(lambda: set(S.mail_files()) - before, 20, 0.005))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            pending = [r for r in rows(event) if r["status"] == "Pending"]
            self.assertTrue(pending, "the sender finished before the kill; nothing was tested")
            self.assertTrue(all(r["claimed_until"] for r in pending), pending[:3])
            # Still leased: another run must leave them alone.
            run_sender(config=conf)
            self.assertEqual(len([r for r in rows(event) if r["status"] == "Pending"]), len(pending))
            # After the lease they are claimed again.
            deadline = time.time() + 25
            while time.time() < deadline and any(r["status"] == "Pending" for r in rows(event)):
                time.sleep(0.5)
                run_sender(config=conf)
        final = rows(event)
        self.assertEqual({r["status"] for r in final}, {"Sent"})
        got = mails_by_id()
        for log_id in ids:
            self.assertGreaterEqual(len(got.get(log_id, [])), 1, "row %d was lost" % log_id)
        # At-least-once: only the messages in flight at the kill (one per SMTP
        # session, [smtp] sessions = 4 by default) may arrive twice.
        self.assertLessEqual(sum(len(got[i]) - 1 for i in ids), 4)

    def test_three_senders_send_each_row_exactly_once(self):
        event = new_event()
        ids = insert_rows(event, count=300)
        procs = [subprocess.Popen([SENDER, "--config", S.CONFIG, "--batch", "20"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for _ in range(3)]
        outputs = [p.communicate(timeout=60)[1] for p in procs]
        for p, err in zip(procs, outputs):
            # 1 only if a row of another test failed; a database error would show no "run" line.
            self.assertIn(p.returncode, (0, 1), err)
            self.assertIn('"event":"run"', err)
        self.assertEqual({r["status"] for r in rows(event)}, {"Sent"})
        got = mails_by_id()
        counts = {log_id: len(got.get(log_id, [])) for log_id in ids}
        self.assertEqual([i for i, n in counts.items() if n != 1], [], "rows not sent exactly once")
        sent = [sum(int(n) for n in re.findall(r'"event":"run".*?"sent":(\d+)', err)) for err in outputs]
        self.assertGreaterEqual(sum(sent), 300)
        print("rows sent per process: %s" % sent, file=sys.stderr)


class AdminTemplateTest(S.ApiTest):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def file(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def template_row(self, event):
        """[enabled, subject, content, from, bcc]; content read as hex, since
        the client prints line breaks raw."""
        out = S.sql("SELECT enabled, subject, HEX(content), `from`, bcc FROM svc_notifications"
                    " WHERE site_id = 1 AND event = %s" % lit(event))
        for row in out:
            row[2] = bytes.fromhex(row[2]).decode("utf-8")
        return out

    def test_template_set_list_enable_disable(self):
        event = new_event()
        self.addCleanup(S.sql, "DELETE FROM svc_notifications WHERE site_id = 1 AND event = %s" % lit(event))
        subject = self.file("subject", "Grüße [name]\n")
        content = self.file("content", "<p>Hallo [name]</p>\n")
        made = S.admin("template", "set", "--site", "1", "--event", event, "--subject-file", subject,
                       "--content-file", content, "--from", "Shop <shop@demo.example>", "--bcc",
                       "a@example.com; b@example.com")
        self.assertRegex(made.stdout, r"^template '%s' of site 1 created \(id \d+, enabled, from Shop "
                                      r"<shop@demo.example>, bcc a@example.com, b@example.com\)\n$" % event)
        self.assertEqual(self.template_row(event),
                         [["1", "Grüße [name]", "<p>Hallo [name]</p>\n", "Shop <shop@demo.example>",
                           "a@example.com, b@example.com"]])
        listed = S.admin("template", "list", "--site", "1").stdout
        self.assertIn("\t%s\tdefault\tyes\tnormal\tShop <shop@demo.example>\ta@example.com, b@example.com"
                      "\tGrüße [name]\n" % event, listed)

        off = S.admin("template", "disable", "--site", "1", "--event", event)
        self.assertEqual(off.stdout, "template '%s' of site 1 disabled\n" % event)
        self.assertEqual(self.template_row(event)[0][0], "0")
        reply = S.post("/message/notification", {"event": event, "email": "x@example.com", "data": {"name": "A"}},
                       headers=S.site_headers())
        self.assertEqual(reply.json.get("status"), "Failed", reply)

        on = S.admin("template", "enable", "--site", "1", "--event", event)
        self.assertEqual(on.stdout, "template '%s' of site 1 enabled\n" % event)
        reply = S.post("/message/notification", {"event": event, "email": "x@example.com", "data": {"name": "Ada"}},
                       headers=S.site_headers())
        self.assertEqual(reply.json, {"status": "Success"}, reply)

        # An update keeps from, bcc and the enabled state unless they are given.
        S.admin("template", "disable", "--site", "1", "--event", event)
        updated = S.admin("template", "set", "--site", "1", "--event", event, "--subject-file",
                          self.file("s2", "Neu [name]"), "--content-file", content)
        self.assertIn("updated", updated.stdout)
        self.assertEqual(self.template_row(event)[0][:2], ["0", "Neu [name]"])
        self.assertEqual(self.template_row(event)[0][3:], ["Shop <shop@demo.example>", "a@example.com, b@example.com"])
        cleared = S.admin("template", "set", "--site", "1", "--event", event, "--subject-file", subject,
                          "--content-file", content, "--from", "none", "--bcc", "", "--enabled", "true")
        self.assertIn("enabled, from (site default), bcc (none)", cleared.stdout)
        self.assertEqual(self.template_row(event)[0][3:], [None, None])

    def test_template_errors_name_the_problem(self):
        event = new_event()
        subject = self.file("subject", "Hi")
        content = self.file("content", "<p>x</p>")
        base = ["template", "set", "--event", event, "--subject-file", subject, "--content-file", content]
        cases = [
            (base + ["--site", "999999"], 1, "no site with id 999999"),
            (["template", "set", "--site", "1", "--subject-file", subject, "--content-file", content], 2,
             "missing --event"),
            (base + ["--site", "1", "--from", "not-an-address"], 2, "'not-an-address' is not a valid e-mail address"),
            (base + ["--site", "1", "--bcc", "ok@example.com, bad@"], 2, "'bad@' is not a valid e-mail address"),
            (base + ["--site", "1", "--enabled", "maybe"], 2, "--enabled expects true or false"),
            (["template", "set", "--site", "1", "--event", event, "--subject-file", self.file("two", "a\nb\n"),
              "--content-file", content], 1, "must hold a single line"),
            (["template", "set", "--site", "1", "--event", event, "--subject-file", subject,
              "--content-file", self.file("empty", " \n")], 1, "is empty"),
            (["template", "set", "--site", "1", "--event", event, "--subject-file", "/nonexistent/s",
              "--content-file", content], 1, "cannot read --subject-file /nonexistent/s"),
            (["template", "set", "--site", "1", "--event", "bad event", "--subject-file", subject,
              "--content-file", content], 2, "--event must be"),
            (["template", "enable", "--site", "1", "--event", event], 1, "no template '%s' for site 1" % event),
            (["template", "disable", "--site", "1", "--event", "Welcome-Email"], 1,
             "no template 'Welcome-Email' for site 1 (there is 'welcome-email'; event names match exactly)"),
            (["template", "set", "--site", "1", "--event", "WELCOME-email", "--subject-file", subject,
              "--content-file", content], 1,
             "site 1 already has template 'welcome-email', which the database does not tell apart from 'WELCOME-email'"),
            (["template", "list", "--site", "999999"], 1, "no site with id 999999"),
            (["template", "list"], 2, "missing --site"),
        ]
        for args, code, message in cases:
            result = S.admin(*args, check=False)
            self.assertEqual(result.returncode, code, (args, result.stderr))
            self.assertIn(message, result.stderr, args)
        self.assertEqual(self.template_row(event), [])

    def merge_sql(self, name):
        value = S.sql_value("SELECT HEX(sql_text) FROM svc_merge_queries WHERE site_id = 1 AND name = %s" % lit(name))
        return bytes.fromhex(value).decode("utf-8")

    def test_merge_query_set_and_list(self):
        name = "q-" + uuid.uuid4().hex[:8]
        self.addCleanup(S.sql, "DELETE FROM svc_merge_queries WHERE site_id = 1 AND name = %s" % lit(name))
        made = S.admin("merge-query", "set", "--site", "1", "--name", name, "--sql-file",
                       self.file("q.sql", "SELECT customer, total\n  FROM demo_orders WHERE id = :master_id;\n"))
        self.assertEqual(made.stdout, "merge query '%s' of site 1 created\n" % name)
        self.assertEqual(self.merge_sql(name), "SELECT customer, total\n  FROM demo_orders WHERE id = :master_id")
        listed = S.admin("merge-query", "list", "--site", "1").stdout
        self.assertIn("%s\tSELECT customer, total FROM demo_orders WHERE id = :master_id\n" % name, listed)
        again = S.admin("merge-query", "set", "--site", "1", "--name", name, "--sql-file",
                        self.file("q2.sql", "SELECT 1 AS one"))
        self.assertIn("updated", again.stdout)
        for text, message in (("DELETE FROM demo_orders", "must hold a single SELECT"),
                              ("SELECT 1; DROP TABLE demo_orders", "more than one statement"),
                              ("", "is empty")):
            result = S.admin("merge-query", "set", "--site", "1", "--name", name, "--sql-file",
                             self.file("bad.sql", text), check=False)
            self.assertEqual(result.returncode, 1, text)
            self.assertIn(message, result.stderr)
        self.assertEqual(self.merge_sql(name), "SELECT 1 AS one")


if __name__ == "__main__":
    S.main()

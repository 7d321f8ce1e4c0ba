"""Races and data at rest, through nginx -> svc-fcgi workers -> MariaDB, the
SMS sink, svc-sender and the SMTP sink.

Parallel SMS guesses at a code with one attempt left: a session of the test
holds the code row's lock (SELECT ... FOR UPDATE in an open transaction)
while the requests arrive, and lets go only when every worker is waiting on
it in the server, so all of them meet the row in the same state whatever the
scheduling: the right guess first, then the wrong ones. At most one guess may
be evaluated. (Before the fix, each worker read `attempts`, compared, then
spent: the right guess and one wrong guess were both evaluated.)

A reset mail once delivered: the e-mail in the sink carries a working link,
and the outbox row of that mail keeps no token ("[redacted]").
"""

import html
import json
import random
import re
import subprocess
import threading
import time
import urllib.parse

import svc_stack
from svc_stack import ApiTest, mint_id, post, sql, sql_value, unique_email, config_value
import runner

VERIFIED = {"status": "Success", "message": "SMS code verified"}
DEAD = {"status": "Failed", "message": "Code expired or invalid", "attempts_left": 0}
LAST_WRONG = {"status": "Failed", "message": "Invalid code", "attempts_left": 0}
CODE_TEXT = re.compile(r"^Your verification code is (\d{6})$")
HREF = re.compile(r'href="([^"]+)"')
PARALLEL = 16
WORKERS = int(config_value("server", "workers"))


class RowLock:
    """A session of its own holding the lock of the rows `select` reads (it
    must end in FOR UPDATE) until release()."""

    def __init__(self, select):
        self.proc = subprocess.Popen(
            ["mariadb", "--no-defaults", "--unbuffered", "--socket=" + svc_stack.MYSQL_SOCKET, "-uroot", "-N", "-B", "svc"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.proc.stdin.write("START TRANSACTION;\n%s;\nSELECT 'row-locked';\n" % select)
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, "the locking session ended early"
            if line.strip() == "row-locked":
                break

    def release(self):
        self.proc.stdin.write("COMMIT;\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def waiting(prefix):
    """Sessions now running a statement that starts with `prefix`."""
    return int(sql_value("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%s%%'" % prefix))


def wait_until_waiting(prefix, n, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if waiting(prefix) >= n:
            return True
        time.sleep(0.02)
    return False


def sms_to(mobile):
    out = []
    for line in svc_stack.http_sink_lines("sms"):
        try:
            body = json.loads(line.get("body") or "")
        except ValueError:
            continue
        if isinstance(body, dict) and body.get("to") == mobile:
            m = CODE_TEXT.match(body.get("text", ""))
            if m:
                out.append(m.group(1))
    return out


class Verdicts:
    """Replies collected from request threads."""

    def __init__(self):
        self.replies = []
        self.threads = []

    def send(self, token, code):
        t = threading.Thread(target=lambda: self.replies.append(
            post("/auth/verify-sms-code", {"userId": token, "code": code})))
        t.start()
        self.threads.append(t)

    def join(self):
        for t in self.threads:
            t.join(timeout=60)
        return self.replies


class RaceTest(ApiTest):

    def test_parallel_guesses_at_the_last_attempt_evaluate_at_most_one(self):
        mobile = "+1556%07d" % random.SystemRandom().randrange(10**7)
        uid = int(svc_stack.admin("user", "create", "--email", unique_email("race-sms"), "--mobile", mobile,
                                  stdin="Pass@1234\n").stdout.strip().splitlines()[-1])
        token = mint_id(uid)
        self.assertEqual(post("/auth/user-sms-code", {"userId": token}).status, 200)
        code = sms_to(mobile)[-1]
        for k in range(4):
            wrong = "%06d" % ((int(code) + 1 + k) % 10**6)
            self.assertEqual(post("/auth/verify-sms-code", {"userId": token, "code": wrong}).json,
                             {"status": "Failed", "message": "Invalid code", "attempts_left": 4 - k})

        lock = RowLock("SELECT attempts FROM svc_sms_codes WHERE user_id = %d FOR UPDATE" % uid)
        verdicts = Verdicts()
        try:
            # The right guess reaches a worker first, then the wrong ones fill the others.
            verdicts.send(token, code)
            self.assertTrue(wait_until_waiting("UPDATE svc_sms_codes", 1), "the first guess never reached the row")
            for k in range(1, PARALLEL):
                verdicts.send(token, "%06d" % ((int(code) + 100 + k) % 10**6))
            self.assertTrue(wait_until_waiting("UPDATE svc_sms_codes", min(WORKERS, PARALLEL)),
                            "not every worker reached the row")
        finally:
            lock.release()
        replies = verdicts.join()
        self.assertEqual(len(replies), PARALLEL)
        bodies = [r.json for r in replies]
        for r in replies:
            self.assertIn(r.json, (DEAD, VERIFIED, LAST_WRONG), r)
            self.assertEqual(r.status, 200 if r.json == VERIFIED else 400, r)
        self.assertEqual(len([b for b in bodies if b != DEAD]), 1, bodies)
        self.assertEqual(sql_value("SELECT attempts FROM svc_sms_codes WHERE user_id = %d" % uid), "5")

    def test_a_delivered_reset_mail_leaves_no_token_in_the_outbox(self):
        svc_stack.require_sender(self)
        email = unique_email("race-redact")
        svc_stack.admin("user", "create", "--email", email, stdin="Old@Pass123\n")
        already = svc_stack.mail_files()
        self.assertEqual(post("/auth/request-pass", {"email": email, "appID": 1}).status, 200)
        msg = svc_stack.wait_for_mail(lambda m: m["To"] == email, timeout=30, after=already)
        links = [html.unescape(h) for h in HREF.findall(msg.get_body(preferencelist=("html",)).get_content())]
        self.assertEqual(len(links), 1, links)
        reset_token = urllib.parse.parse_qs(urllib.parse.urlsplit(links[0]).fragment)["token"][0]  # the ready page
        # The sender records Sent right after the SMTP transaction.
        deadline = time.time() + 20
        while time.time() < deadline:
            status, body = sql("SELECT status, body FROM svc_notification_log WHERE recipient = %s ORDER BY id DESC"
                               " LIMIT 1" % svc_stack.q(email))[0]
            if status == "Sent":
                break
            time.sleep(0.2)
        self.assertEqual(status, "Sent")
        self.assertNotIn(reset_token, body)
        self.assertNotIn(reset_token.split(".")[2], body)
        self.assertIn("token=[redacted]", body)
        # The delivered link still works.
        reply = post("/auth/reset-pass", {"password": "New@Pass456", "confirmPassword": "New@Pass456",
                                          "reset_password_token": reset_token})
        self.assertEqual(reply.status, 200, reply)
        self.assertEqual(post("/auth/login", {"email": email, "password": "New@Pass456", "appID": 1}).status, 200)


if __name__ == "__main__":
    runner.main()

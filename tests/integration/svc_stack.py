"""Shared helpers for the integration tests: they talk HTTP to the nginx of
the stack that ctest started (scripts/stack.sh up, state in $SVC_STACK_DIR),
read the database through the MariaDB root account on its unix socket, and
read what the SMTP and HTTP sinks received.

Standard library only; run with /usr/bin/python3.
"""

import base64
import email
import email.policy
import glob
import http.client
import json
import os
import re
import subprocess
import threading
import time
import unittest

import openapi_check
import runner
from jsonio import parse_json
from procs import pid_alive

STACK_DIR = os.environ.get("SVC_STACK_DIR", "")
SOURCE_DIR = os.environ.get("SVC_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../..")))


def _read_env():
    env = {}
    path = os.path.join(STACK_DIR, "env")
    if not STACK_DIR or not os.path.exists(path):
        raise RuntimeError("no running stack: SVC_STACK_DIR=%r has no env file (ctest starts it via stack.up)" % STACK_DIR)
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.strip().split("=", 1)
                env[k] = v
    return env


ENV = _read_env() if STACK_DIR else {}
HTTP_PORT = int(ENV.get("SVC_HTTP_PORT", "0") or 0)
BIN_DIR = ENV.get("SVC_BIN_DIR", os.environ.get("SVC_BIN_DIR", ""))
CONFIG = ENV.get("SVC_CONFIG", "")
MYSQL_SOCKET = ENV.get("SVC_MYSQL_SOCKET", "")
SITE_KEY = ENV.get("SITE_KEY", "")  # the demo site's x-site-key (stack.sh writes it)


def site_headers(site_id=1):
    """The headers a backend of the demo site sends on /message/* (and on
    getFolderLimits): its id and its key."""
    return {"site-id": str(site_id), "x-site-key": SITE_KEY}


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.raw = body
        self.json = parse_json(body)

    def __repr__(self):
        return "Reply(%d, %r)" % (self.status, self.raw[:300])


def request(method, path, body=None, headers=None, raw=None, timeout=30):
    """Sends one request through nginx. `body` is JSON-encoded; `raw` is sent as is."""
    conn = http.client.HTTPConnection("127.0.0.1", HTTP_PORT, timeout=timeout)
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if isinstance(data, str):
        data = data.encode()
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
    conn.close()
    # Every reply of an API route must be what docs/openapi.yaml documents.
    openapi_check.check(method, path, reply.status, reply.headers, reply.raw)
    return reply


def post(path, body=None, headers=None, raw=None):
    return request("POST", path, body=body, headers=headers, raw=raw)


def sql(statement, database="svc"):
    """Runs SQL as root; returns rows as lists of strings (NULL -> None)."""
    out = subprocess.run(
        ["mariadb", "--no-defaults", "--default-character-set=utf8mb4", "--socket=" + MYSQL_SOCKET, "-uroot",
         "-N", "-B", "--raw", database, "-e", statement],
        check=True, capture_output=True).stdout.decode("utf-8", errors="replace")
    rows = []
    for line in out.splitlines():
        rows.append([None if c == "NULL" else c for c in line.split("\t")])
    return rows


def sql_value(statement):
    rows = sql(statement)
    return rows[0][0] if rows else None


def q(value):
    """A SQL literal for a value the test controls: a quoted string (None -> NULL)."""
    if value is None:
        return "NULL"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def admin(*args, stdin=None, check=True):
    """Runs svc-admin against the stack's configuration."""
    return subprocess.run([os.path.join(BIN_DIR, "svc-admin"), "--config", CONFIG] + list(args),
                          input=stdin, capture_output=True, text=True, check=check)


def mint_id(entity_id, kind="user", ttl=None):
    """An encrypted id from svc-admin mint-user-id / mint-customer-id."""
    args = ["mint-%s-id" % kind, "--%s" % kind, str(entity_id)] + (["--ttl", ttl] if ttl else [])
    return admin(*args).stdout.strip()


def pid_path(name):
    """The pid file stack.sh keeps for a process of the stack ("svc-fcgi", "svc-sender", "smtp-sink", ...)."""
    return os.path.join(STACK_DIR, "pids", name + ".pid")


def stack_pid(name):
    """The pid in name's pid file, or None when there is no readable one."""
    try:
        with open(pid_path(name)) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def stack_process_running(name):
    """True when the stack process `name` runs (a zombie does not count)."""
    pid = stack_pid(name)
    return pid is not None and pid_alive(pid)


def set_sink_control(path, value):
    """Steers a sink (its control file, re-read per request): writes `value`
    as JSON atomically, so a sink never reads half of it; None removes it."""
    if value is None:
        if os.path.exists(path):
            os.remove(path)
        return
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(value, f)
    os.replace(tmp, path)


def mail_files():
    return sorted(glob.glob(os.path.join(STACK_DIR, "mail", "*.eml")))


def read_mail(path):
    with open(path, "rb") as f:
        return email.message_from_binary_file(f, policy=email.policy.default)


def wait_for_mail(predicate, timeout=20, after=()):
    """Waits until a delivered message satisfies predicate(msg); returns it.
    The sink writes each file atomically and never changes it, so a file
    that did not match is not read again."""
    return wait_for_mails(predicate, 1, timeout, after)[0]


def wait_for_mails(predicate, count, timeout=20, after=()):
    """Waits until `count` delivered messages satisfy predicate(msg) (the
    copies of one mail, one per recipient); returns them in delivery order."""
    seen = set(after)
    found = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        for path in mail_files():
            if path in seen:
                continue
            seen.add(path)
            msg = read_mail(path)
            if predicate(msg):
                found.append(msg)
                if len(found) == count:
                    return found
        time.sleep(0.2)
    raise AssertionError("%d of %d matching e-mails within %ss" % (len(found), count, timeout))


def require_sender(test):
    """Fails `test` unless the stack's svc-sender runs: stack.sh always starts
    it, so a delivery test without it is a broken stack, never a skip."""
    test.assertTrue(stack_process_running("svc-sender"),
                    "svc-sender is not running in this stack (no live %s): see %s"
                    % (pid_path("svc-sender"), os.path.join(STACK_DIR, "svc-sender.log")))


def newest_outbox_id(recipient):
    """The id of the newest outbox row addressed to `recipient`, or None."""
    value = sql_value("SELECT MAX(id) FROM svc_notification_log WHERE recipient = %s" % q(recipient))
    return int(value) if value is not None else None


def wait_for_outbox_mail(row_id, timeout=30):
    """The e-mail svc-sender delivered for outbox row `row_id`, found by its
    Message-ID (<svc.{row id}.{site id}@...>, messaging/sender.cpp), so it
    cannot be confused with another mail to the same address. Read a token
    from here, never from the row: the sender redacts reset links in the row
    once the mail is sent (sql/004), so the row is a race."""
    prefix = "<svc.%d." % row_id
    deadline = time.time() + timeout
    while True:
        for path in reversed(mail_files()):  # the sink numbers its files: newest last
            if _message_id(path).startswith(prefix):
                return read_mail(path)
        if time.time() >= deadline:
            raise AssertionError("no e-mail for outbox row %d within %ss" % (row_id, timeout))
        time.sleep(0.2)


_HEADS = {}  # (mail file, header) -> its value ("" when none); the sink never changes a file


def _head_field(path, name):
    """One header of a delivered mail, from its header block only (a stack
    holds thousands of mails: parsing each whole would take seconds per
    wait)."""
    key = (path, name)
    if key not in _HEADS:
        with open(path, "rb") as f:
            head = f.read(16384).split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
        found = re.search(rb"^" + re.escape(name.encode()) + rb":[ \t]*(\S*)", head, re.I | re.M)
        _HEADS[key] = found.group(1).decode("ascii", "replace") if found else ""
    return _HEADS[key]


def _message_id(path):
    return _head_field(path, "message-id")


def delivered_count(recipient, timeout=30):
    """How many mails the SMTP sink received for `recipient` (To header)
    once svc-sender has handled every outbox row to it (none Pending; at
    most `timeout` seconds)."""
    deadline = time.time() + timeout
    pending = "SELECT COUNT(*) FROM svc_notification_log WHERE recipient = %s AND status = 'Pending'" % q(recipient)
    while sql_value(pending) != "0":
        if time.time() >= deadline:
            raise AssertionError("outbox rows to %s still Pending after %ss" % (recipient, timeout))
        time.sleep(0.2)
    return sum(1 for path in mail_files() if _head_field(path, "to") == recipient)


def mail_html(msg):
    """The text of the HTML part of a delivered e-mail (AssertionError when it has none)."""
    part = msg.get_body(preferencelist=("html",))
    if part is None:
        raise AssertionError("the e-mail has no HTML part: %s" % msg.get("Subject"))
    return part.get_content()


def http_sink_lines(name):
    """Lines received by the sms or push HTTP sink (name = 'sms' | 'push')."""
    path = os.path.join(STACK_DIR, name + ".log")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


_MISSING = object()


def config_value(section, key, default=_MISSING):
    """A value of the stack's svc.conf; KeyError (or default) when absent."""
    current = None
    with open(CONFIG) as f:
        for line in f:
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                current = line[1:-1].strip()
            elif current == section and "=" in line and not line.startswith(("#", ";")):
                k, v = line.split("=", 1)
                if k.strip() == key:
                    return v.strip()
    if default is _MISSING:
        raise KeyError("[%s] %s not in %s" % (section, key, CONFIG))
    return default


def cache_seconds(section, key, default):
    """A worker cache bound of the stack's svc.conf ([server]
    site_cache_seconds, [tokens] key_cache_seconds, ...), `default` being the
    documented default of docs/configuration.md."""
    return int(config_value(section, key, str(default)))


def wait_for_every_worker(what, condition, changed_by, seconds, checks=6):
    """Returns condition()'s value once every worker must show a change that
    was committed before `changed_by` (a time.time() taken after the command
    that made it returned).

    A worker keeps what it read in clock second N until the clock reaches
    N + `seconds` (the cache setting; whole seconds of the clock the workers
    and this test share), and it read the old state in second
    floor(changed_by) at the latest: from floor(changed_by) + seconds on, no
    worker may answer from an older view. Through nginx a test cannot pick
    the worker, so it cannot see every worker's view before then: it waits
    for that instant (the documented bound, at most `seconds` + 1 s after the
    change), and from then on condition() must hold on `checks` requests in
    a row (whichever workers nginx picks). A false value fails at once,
    never retried: a worker that still shows the old state breaks the
    documented bound."""
    settled = int(changed_by) + seconds
    while time.time() < settled:
        time.sleep(max(0.01, settled - time.time()))
    value = None
    for i in range(checks):
        value = condition()
        if not value:
            raise AssertionError("%s: not on request %d of %d, %.2fs after the %ds cache bound had passed"
                                 % (what, i + 1, checks, time.time() - settled, seconds))
    return value


def wait_for_change(what, probe, settled, step=0.05):
    """Polls probe() until it returns something true (the reply shows a
    change the test made) and returns that value.

    probe() returns a false value only for the reply from before the change
    (it asserts that it is one, so anything else fails at once). Such a reply
    is allowed before `settled`, the time.time() instant from which on the
    documented bound lets no worker answer from before the change (a cache
    bound, a token's expiry: whole seconds of the clock the workers and this
    test share); it is then asked again after `step` seconds. A false value
    for a request sent at or after `settled` fails: the bound was broken. So
    the wait ends as soon as the change shows, and never later than
    `settled` plus one request."""
    while True:
        sent = time.time()
        value = probe()
        if value:
            return value
        if sent >= settled:
            raise AssertionError("%s: the reply from before the change came %.2fs after the bound had passed"
                                 % (what, sent - settled))
        time.sleep(min(step, max(0.0, settled - time.time())))


def run_concurrently(target, items):
    """Calls target(item) for every item, each on its own thread, and returns
    when all have finished."""
    threads = [threading.Thread(target=target, args=(item,)) for item in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def b64url(data):
    if isinstance(data, str):
        data = data.encode()
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def unique_email(prefix="user"):
    return "%s.%d.%d@example.com" % (prefix, os.getpid(), time.time_ns() % 10**12)


class ApiTest(unittest.TestCase):
    """Base class with assertions in the spec's shapes."""

    maxDiff = None
    # Words (lower case) that must never appear in a reply body: traces of the
    # database, a library or an exception. A test class names its own.
    LEAK_WORDS = ()

    def assertNoLeak(self, reply, text=None):
        """None of LEAK_WORDS in the reply body (or in `text`, a cleaned copy of it)."""
        text = (reply.raw.decode("utf-8") if text is None else text).lower()
        for word in self.LEAK_WORDS:
            self.assertNotIn(word, text, reply)

    def assertTokenReply(self, reply, token_keys=("access_token", "refresh_token", "account_token", "user")):
        """200 {"status": "Success", "token": {...}} whose token has exactly
        token_keys, its access and refresh tokens compact JWTs; returns the token."""
        self.assertReply(reply, 200)
        self.assertEqual(set(reply.json), {"status", "token"}, reply)
        self.assertEqual(reply.json["status"], "Success")
        token = reply.json["token"]
        self.assertEqual(set(token), set(token_keys), reply)
        for name in ("access_token", "refresh_token"):
            self.assertRegex(token[name], r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$")
        return token

    def assertJsonType(self, reply):
        self.assertTrue(reply.headers.get("content-type", "").startswith("application/json"), reply.headers)

    def assertExact(self, reply, status, body):
        """Exactly this status and JSON body, typed as JSON, leaking nothing."""
        self.assertEqual(reply.status, status, reply)
        self.assertEqual(reply.json, body, reply)
        self.assertJsonType(reply)
        self.assertNoLeak(reply)

    def assertReply(self, reply, status, body=None):
        self.assertEqual(reply.status, status, reply)
        self.assertIsNotNone(reply.json, "body is not JSON: %r" % reply.raw)
        if body is not None:
            self.assertEqual(reply.json, body)

    def assertValidation(self, reply, *fields):
        self.assertEqual(reply.status, 400, reply)
        self.assertEqual(reply.json.get("status"), "Failed", reply)
        self.assertEqual(reply.json.get("message"), "Validation error", reply)
        got = [e["field"] for e in reply.json.get("errors", [])]
        for f in fields:
            self.assertIn(f, got, reply)
        for e in reply.json["errors"]:
            self.assertEqual(set(e.keys()), {"field", "message"})
            self.assertTrue(e["message"])

    def assertOnlyFields(self, reply, *fields):
        """A validation error naming exactly these fields (one entry each), leaking nothing."""
        self.assertValidation(reply, *fields)
        self.assertEqual(sorted(e["field"] for e in reply.json["errors"]), sorted(fields), reply)
        self.assertNoLeak(reply)


def main():
    runner.main()

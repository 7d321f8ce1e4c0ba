"""The request examples of README.md, docs/api.md and docs/operations.md,
run with the real curl against the stack, each reply compared with the one the
document shows. A document whose example drifts from the code fails here.

The example format (what a document writer follows):

    ```sh
    curl -s -X POST http://127.0.0.1:8080/auth/login -H 'Content-Type: application/json' \\
      -d '{"email":"nobody@example.com","password":"Demo@2026!"}'
    # HTTP 401
    ```
    ```json
    {"status":"Failed","message":"Invalid credentials"}
    ```

- An example is a ```sh block holding exactly one `curl` command (backslash
  continuations allowed), optionally followed by comment lines. Every ```sh
  block that runs curl is an example; it must be followed, with only blank
  lines between, by a ```json block: the reply body.
- `# HTTP NNN` in the sh block is the expected status; without it, 200.
- In the reply, `...` where a value belongs (bare, any type) or a string
  ending in `...` (`"..."`, `"eyJ..."`) stands for a value that differs from
  call to call (tokens, ids of new rows): any value, or any longer string
  with that prefix. Everything else must be equal as JSON (key order and spacing do not
  matter; types do).
- Placeholders, replaced before the command runs (and in the reply):
    127.0.0.1:8080    the stack's nginx (the documented `make run` address)
    ada@example.com,  fresh addresses, unique per run (the documents sign
    grace@example.com   them up, so the test re-runs on one stack)
    <ACCESS_TOKEN>,   from the latest reply that carried a `token` object
    <REFRESH_TOKEN>,
    <ACCOUNT_TOKEN>
    <RESET_TOKEN>     the `token` of the link in the e-mail the SMTP sink
                      received for a fresh address after the latest
                      successful request-pass example for one (waits for it)
    <USER_ID>         encrypted id of the demo user 1 (svc-admin mint-user-id)
    <CUSTOMER_ID>     encrypted id of the demo customer 1 (mint-customer-id)
    <SITE_KEY>        the demo site 1's key for x-site-key (SITE_KEY in the
                      stack's env file; svc-admin site create printed it)
    <SMS_CODE>        the code of the newest SMS the sink got for user 1's mobile
    <MFA_TOKEN>       the `mfa_token` of the latest reply that carried one
    <TOTP_CODE>       a TOTP code (oathtool) of the demo site's owner, for a
                      time step the owner's factor has not accepted yet
                      (waits for the next step when the current one was used)
  Any other <UPPER_CASE> word in a command fails the test.

The examples of one document run in document order and share the state
above (documents in the order of DOCUMENTS). The demo user is only read: the
documents reset passwords of their own fresh users. Before running, the demo
user's stored SMS code is removed so its 60 s resend rule does not meet the
previous run, and so are the failed logins of nobody@example.com.

Each document must hold at least the number of examples given below, so a
change of format that hides them from the extractor fails too.
"""

import html
import json
import os
import re
import subprocess
import tempfile
import time
from email.utils import getaddresses

import svc_stack
from svc_stack import ApiTest, mint_id, sql, unique_email

DOCUMENTS = (("README.md", 2), ("docs/api.md", 30), ("docs/operations.md", 0))
DOC_ADDRESS = "127.0.0.1:8080"
FRESH_ADDRESSES = ("ada@example.com", "grace@example.com")
DEMO_USER = 1
DEMO_CUSTOMER = 1
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
STATUS_LINE = re.compile(r"^#\s*HTTP\s+(\d{3})\s*$")
PLACEHOLDER = re.compile(r"<[A-Z][A-Z_]*>")
ANY = object()  # a bare ... in an expected reply
RESET_LINK_TOKEN = re.compile(r"[?&#]token=([A-Za-z0-9_.-]+)")
SMS_CODE = re.compile(r"\b(\d{6})\b")


class DocError(Exception):
    """A document that breaks the example format."""


def fenced_blocks(path):
    """[(info, text, first line number)] of a Markdown file: every fenced
    block, and between two blocks an entry (None, the text between, n)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i = [], 0
    prose_start, prose = 1, []
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append(lines[i])
            i += 1
            continue
        out.append((None, "\n".join(prose), prose_start))
        indent, info = m.group(1), m.group(2)
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise DocError("%s:%d: fence not closed" % (path, start))
        out.append((info, "\n".join(body), start))
        i += 1
        prose_start, prose = i + 1, []
    out.append((None, "\n".join(prose), prose_start))
    return out


class Example:
    def __init__(self, where, command, status, reply_text):
        self.where = where
        self.command = command
        self.status = status
        self.reply_text = reply_text


def parse_example(where, text):
    """(command, status) of an sh block that runs curl; DocError when it is
    not one curl command plus comments."""
    command, status = [], 200
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            m = STATUS_LINE.match(stripped)
            if m:
                status = int(m.group(1))
            continue
        if command and not command[-1].endswith("\\"):
            raise DocError("%s: an example holds one curl command; this line starts another: %r" % (where, line))
        command.append(line.rstrip())
    if not command or not command[0].lstrip().startswith("curl "):
        raise DocError("%s: an sh block that runs curl must be one curl command" % where)
    if sum(line.count("curl ") for line in command) != 1:
        raise DocError("%s: more than one curl in one example" % where)
    return "\n".join(command), status


def examples_of(relpath):
    path = os.path.join(svc_stack.SOURCE_DIR, relpath)
    blocks = fenced_blocks(path)
    out = []
    for k, (info, text, line) in enumerate(blocks):
        if info not in ("sh", "bash", "shell") or not re.search(r"(^|\s)curl\s", text):
            continue
        where = "%s:%d" % (relpath, line)
        command, status = parse_example(where, text)
        gap = blocks[k + 1] if k + 1 < len(blocks) else None
        reply = blocks[k + 2] if k + 2 < len(blocks) else None
        if gap is None or gap[1].strip() or reply is None or reply[0] != "json":
            raise DocError("%s: a curl example must be followed directly by a ```json block with its reply" % where)
        out.append(Example(where, command, status, reply[1]))
    return out


def parse_expected(text):
    """The reply of a document: JSON in which a bare ... stands for any value."""
    out, i, in_string = [], 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("...", i):
            out.append('{"\\u0000any":true}')
            i += 2
        else:
            out.append(c)
        i += 1
    return _mark_any(json.loads("".join(out)))


def _mark_any(value):
    if isinstance(value, dict):
        if list(value) == ["\u0000any"]:
            return ANY
        return {k: _mark_any(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mark_any(v) for v in value]
    return value


def mismatch(expected, got, where="reply"):
    """None when got matches expected; else a sentence naming the first difference."""
    if expected is ANY:
        return None
    if isinstance(expected, str) and expected.endswith("..."):
        prefix = expected[:-3]
        if isinstance(got, str) and got.startswith(prefix) and len(got) > len(prefix):
            return None
        return "%s: expected a string starting with %r, got %r" % (where, prefix, got)
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return "%s: expected an object, got %r" % (where, got)
        if set(expected) != set(got):
            return "%s: keys %s, expected %s" % (where, sorted(got), sorted(expected))
        for key in expected:
            problem = mismatch(expected[key], got[key], "%s.%s" % (where, key))
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return "%s: expected %r, got %r" % (where, expected, got)
        for n, (e, g) in enumerate(zip(expected, got)):
            problem = mismatch(e, g, "%s[%d]" % (where, n))
            if problem:
                return problem
        return None
    if type(expected) is not type(got) or expected != got:
        return "%s: expected %r, got %r" % (where, expected, got)
    return None


def run_curl(command):
    """(status, body bytes) of the document's command run by bash with the real
    curl; the wrapper only adds the status line after the body."""
    script = "curl() { command curl -sS --max-time 30 -w '\\n%{http_code}' \"$@\"; }\n" + command + "\n"
    done = subprocess.run(["bash", "-c", script], capture_output=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError("curl failed (%d): %s" % (done.returncode, done.stderr.decode(errors="replace")))
    body, _, status = done.stdout.rpartition(b"\n")
    return int(status), body


class DocState:
    """What the examples of one run share: fresh addresses and values taken
    from earlier replies, e-mails and SMS."""

    def __init__(self):
        self.fresh = {a: unique_email(a.split("@")[0]) for a in FRESH_ADDRESSES}
        self.tokens = {}
        self.sms_seen = len(svc_stack.http_sink_lines("sms"))
        self.demo_mobile = sql("SELECT mobile FROM svc_users WHERE id = %d" % DEMO_USER)[0][0]
        self.minted = {}
        self.mail_before = set(svc_stack.mail_files())
        self.reset = None

    def run(self, command):
        """(status, body) of the command. A request-pass for a fresh address
        that succeeds makes the next <RESET_TOKEN> wait for its e-mail."""
        mails = set(svc_stack.mail_files())
        status, body = run_curl(command)
        if "/auth/request-pass" in command and status == 200 and any(a in command for a in self.fresh.values()):
            self.mail_before, self.reset = mails, None
        return status, body

    def literal(self, text):
        """The document's fixed values replaced (command and reply alike)."""
        text = text.replace(DOC_ADDRESS, "127.0.0.1:%d" % svc_stack.HTTP_PORT)
        for doc, fresh in self.fresh.items():
            text = text.replace(doc, fresh)
        return text

    def command(self, example):
        text = self.literal(example.command)
        for name in sorted(set(PLACEHOLDER.findall(text))):
            text = text.replace(name, self.value(name, example.where))
        return text

    def value(self, name, where):
        if name in ("<ACCESS_TOKEN>", "<REFRESH_TOKEN>", "<ACCOUNT_TOKEN>"):
            key = name[1:-1].lower()
            if key not in self.tokens:
                raise AssertionError("%s: %s used before any reply carried a token" % (where, name))
            return self.tokens[key]
        if name == "<USER_ID>":
            if name not in self.minted:
                self.minted[name] = mint_id(DEMO_USER)
            return self.minted[name]
        if name == "<CUSTOMER_ID>":
            if name not in self.minted:
                self.minted[name] = mint_id(DEMO_CUSTOMER, "customer")
            return self.minted[name]
        if name == "<RESET_TOKEN>":
            if self.reset is None:
                self.reset = self.reset_token(where)
            return self.reset
        if name == "<SMS_CODE>":
            return self.sms_code(where)
        if name == "<MFA_TOKEN>":
            if "mfa_token" not in self.tokens:
                raise AssertionError("%s: <MFA_TOKEN> used before any reply carried an mfa_token" % where)
            return self.tokens["mfa_token"]
        if name == "<TOTP_CODE>":
            return self.owner_totp()
        if name == "<SITE_KEY>":
            if not svc_stack.SITE_KEY:
                raise AssertionError("%s: <SITE_KEY> used but the stack's env file has no SITE_KEY" % where)
            return svc_stack.SITE_KEY
        raise AssertionError("%s: unknown placeholder %s (see the list in %s)" % (where, name, __file__))

    def remember(self, reply):
        if isinstance(reply, dict) and isinstance(reply.get("mfa_token"), str):
            self.tokens["mfa_token"] = reply["mfa_token"]
        if isinstance(reply, dict) and isinstance(reply.get("token"), dict):
            for key in ("access_token", "refresh_token", "account_token"):
                if isinstance(reply["token"].get(key), str):
                    self.tokens[key] = reply["token"][key]

    def reset_token(self, where):
        """The link token of an e-mail to a fresh address that arrived since
        the last request-pass example."""
        fresh = set(self.fresh.values())
        deadline = time.time() + 20
        while time.time() < deadline:
            for path in reversed(svc_stack.mail_files()):
                if path in self.mail_before:
                    continue
                msg = svc_stack.read_mail(path)
                if not fresh & {a.lower() for _, a in getaddresses([str(msg.get("To", ""))])}:
                    continue
                body = html.unescape(msg.get_body(("html", "plain")).get_content())
                m = RESET_LINK_TOKEN.search(body)
                if m:
                    return m.group(1)
            time.sleep(0.2)
        raise AssertionError("%s: no reset e-mail to %s within 20 s" % (where, sorted(fresh)))

    def owner_totp(self):
        """The demo owner's code (scripts/stack.sh owner-totp.txt) of a step
        newer than the last one the factor accepted: a code is taken once."""
        with open(os.path.join(svc_stack.STACK_DIR, "owner-totp.txt")) as f:
            secret = f.read().strip()
        last = int(sql("SELECT f.last_step FROM svc_mfa_factors f JOIN svc_users u ON u.id = f.user_id"
                       " WHERE f.auth_table = 'svc_users' AND u.user_email = 'owner@example.com'")[0][0])
        while int(time.time()) // 30 <= last:
            time.sleep(0.5)
        step = int(time.time()) // 30
        return subprocess.run(["oathtool", "--totp", "-b", "--now", "@%d" % (step * 30 + 1), secret],
                              capture_output=True, text=True, check=True).stdout.strip()

    def sms_code(self, where):
        deadline = time.time() + 10
        while time.time() < deadline:
            for line in reversed(svc_stack.http_sink_lines("sms")[self.sms_seen:]):
                try:
                    body = json.loads(line.get("body") or "")
                except ValueError:
                    continue
                if isinstance(body, dict) and body.get("to") == self.demo_mobile:
                    m = SMS_CODE.search(body.get("text", ""))
                    if m:
                        return m.group(1)
            time.sleep(0.2)
        raise AssertionError("%s: no SMS to %s in this run" % (where, self.demo_mobile))


class DocExamplesTest(ApiTest):

    @classmethod
    def setUpClass(cls):
        sql("DELETE FROM svc_sms_codes WHERE user_id = %d AND auth_table = 'svc_users'" % DEMO_USER)
        # The daily SMS caps (issue 22) count earlier runs on the same stack too.
        sql("DELETE FROM svc_sms_events WHERE user_id = %d AND auth_table = 'svc_users'" % DEMO_USER)
        # The documented failed login of nobody@example.com counts towards
        # [auth] login_max_failures: the runs of the last login_window on the
        # same stack would otherwise meet 429 on the 11th run.
        sql("DELETE FROM svc_login_throttle WHERE email = 'nobody@example.com'")
        cls.state = DocState()

    def run_document(self, relpath, minimum):
        examples = examples_of(relpath)
        self.assertGreaterEqual(len(examples), minimum, "%s: fewer examples than expected" % relpath)
        for example in examples:
            with self.subTest(example=example.where):
                self.check(example)

    def check(self, example):
        state = self.state
        expected = parse_expected(state.literal(example.reply_text))
        command = state.command(example)
        status, body = state.run(command)
        try:
            got = json.loads(body.decode("utf-8"))
        except ValueError:
            self.fail("%s: the reply is not JSON: %r\n$ %s" % (example.where, body[:300], command))
        state.remember(got)
        context = "%s\n$ %s\n-> %d %s" % (example.where, command, status, body.decode("utf-8", "replace"))
        self.assertEqual(status, example.status, "status differs\n" + context)
        problem = mismatch(expected, got)
        if problem:
            self.fail(problem + "\n" + context)

    # Documents run in this order; the shared state carries over.
    def test_1_readme(self):
        self.run_document(*DOCUMENTS[0])

    def test_2_api(self):
        self.run_document(*DOCUMENTS[1])

    def test_3_operations(self):
        self.run_document(*DOCUMENTS[2])


class ExtractorTest(ApiTest):
    """The format rules themselves, on small made-up documents."""

    def test_expected_reply_markers(self):
        expected = parse_expected('{"a":..., "t":"eyJ...", "s":"x", "l":[1, ...], "m":"wait..."}')
        self.assertIsNone(mismatch(expected, {"a": 5, "t": "eyJabc", "s": "x", "l": [1, {}], "m": "wait!"}))
        self.assertIsNotNone(mismatch(expected, {"a": 5, "t": "xyz", "s": "x", "l": [1, 2], "m": "wait!"}))
        self.assertIsNotNone(mismatch(expected, {"a": 5, "t": "eyJa", "s": "y", "l": [1, 2], "m": "wait!"}))
        self.assertIsNotNone(mismatch(expected, {"t": "eyJa", "s": "x", "l": [1, 2], "m": "wait!"}))
        self.assertIsNotNone(mismatch({"n": 1}, {"n": True}))
        self.assertIsNotNone(mismatch({"n": 1}, {"n": "1"}))

    def test_parse_example(self):
        self.assertEqual(parse_example("x", "curl -s a \\\n  -d '{}'\n# HTTP 401"), ("curl -s a \\\n  -d '{}'", 401))
        self.assertEqual(parse_example("x", "curl -s a")[1], 200)
        with self.assertRaises(DocError):
            parse_example("x", "curl -s a\ncurl -s b")
        with self.assertRaises(DocError):
            parse_example("x", "TOKEN=1\ncurl -s a")

    def test_an_example_needs_its_reply_next_to_it(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "doc.md")
            for text, count in (("```sh\ncurl -s x\n```\n\n```json\n{}\n```\n", 1),
                                ("```sh\ncurl -s x\n```\nThe reply:\n```json\n{}\n```\n", None),
                                ("```sh\ncurl -s x\n```\n", None),
                                ("```sh\nmake run\n```\n", 0)):
                with open(path, "w") as f:
                    f.write(text)
                with self.subTest(text=text):
                    if count is None:
                        self.assertRaises(DocError, examples_of, path)
                    else:
                        self.assertEqual(len(examples_of(path)), count)


if __name__ == "__main__":
    svc_stack.main()

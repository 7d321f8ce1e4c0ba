"""Hostile input to the /auth/* endpoints through nginx + workers + MariaDB.

Whatever arrives, the reply is JSON in one of the spec's shapes, never a 500,
and never mentions SQL, MySQL/MariaDB, exceptions or a stack trace. Strings
that reach the database are stored verbatim as data and come back
JSON-escaped, or are refused with a 400.

Covers: SQL injection in email (login and sign-up); HTML and CR/LF in names;
NUL and 4-byte characters; JSON nested 10000 (and ~32000) levels deep;
invalid UTF-8 in values, in keys and in the User-Agent header; lone UTF-16
surrogates; numbers as strings and out-of-range numbers; duplicate keys;
non-object bodies.
"""

import re
import uuid

import svc_stack
from svc_stack import ApiTest, post, q, sql, sql_value, unique_email

STRONG = "Hostile@Pw1"
ENDPOINTS = ("/auth/login", "/auth/sign-up", "/auth/refresh-token")
LEAK_WORDS = ("sql", "mysql", "mariadb", "exception", "traceback", "stack trace", "syntax", "errno",
              "what()", "std::", ".cpp", "terminate", "segmentation", "connector")


def names(email):
    """(first_name, last_name) as stored, read as bytes (svc_stack.sql's client charset is utf8mb3)."""
    rows = sql("SELECT HEX(first_name), HEX(last_name) FROM svc_users WHERE user_email = %s" % q(email))
    if not rows:
        return None
    return tuple(bytes.fromhex(h or "") for h in rows[0])


class HostileTest(ApiTest):
    LEAK_WORDS = LEAK_WORDS

    def assertSafe(self, reply, allowed=(200, 400, 401, 409)):
        """JSON (valid UTF-8), a status from the spec, no 5xx, no internals."""
        self.assertIn(reply.status, allowed, reply)
        self.assertNotEqual(reply.status, 500, reply)
        try:
            text = reply.raw.decode("utf-8")
        except UnicodeDecodeError as e:
            text = None
            bad = "reply %d is not valid UTF-8 at byte %d: ...%r..." % (reply.status, e.start,
                                                                       reply.raw[max(0, e.start - 40):e.start + 20])
        if text is None:
            self.fail(bad)
        self.assertIsInstance(reply.json, dict, reply)
        self.assertIn(reply.json.get("status"), ("Success", "Failed"), reply)
        self.assertJsonType(reply)
        self.assertNotIn("\r", text)
        self.assertNotIn("\n", text.rstrip("\n"))
        # Tokens are random base64url: "sql" may occur in one by chance.
        self.assertNoLeak(reply, re.sub(r'"(access|refresh|account)_token":"[^"]*"', '', text))
        if reply.status == 400:
            self.assertIn(reply.json.get("message"), ("Validation error", "Invalid token format",
                                                      "Password does not meet security requirements"), reply)
            if reply.json["message"] == "Validation error":
                self.assertTrue(reply.json.get("errors"), reply)
                for e in reply.json["errors"]:
                    self.assertEqual(set(e), {"field", "message"})
        return reply

    # --- SQL injection -------------------------------------------------------------

    def test_sql_injection_in_login_email(self):
        users = sql_value("SELECT COUNT(*) FROM svc_users")
        tried = []
        # None of these may log in as demo@example.com (whose password is sent).
        for email in ("' OR '1'='1", "admin@example.com' --", "' OR 1=1 --", "demo@example.com'#",
                      "\" OR \"\"=\"", "demo@example.com\\", "x@example.com'; DROP TABLE svc_users; --",
                      "demo@example.com' OR '1'='1", "demo@example.co_", "demo@example.com\u0000",
                      # Legal addresses that would match demo if used as LIKE patterns or concatenated:
                      "%@example.com", "_emo@example.com", "'or'1'='1@example.com", "demo'--@example.com",
                      "demo@example.com'or'1'='1"):
            with self.subTest(email):
                reply = self.assertSafe(post("/auth/login", {"email": email, "password": "Demo@2026!"}),
                                        allowed=(400, 401))
                if reply.status == 400:
                    self.assertValidation(reply, "email")
                else:
                    tried.append(email)
                    self.assertEqual(reply.json, {"status": "Failed", "message": "Invalid credentials"})
        for email in ("%@example.com", "_emo@example.com", "'or'1'='1@example.com"):
            self.assertIn(email, tried)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users"), users)
        self.assertEqual(sql_value("SELECT user_email FROM svc_users WHERE id = 1"), "demo@example.com")
        for email in tried:
            sql("DELETE FROM svc_login_throttle WHERE email = %s" % q(email.lower()))

    def test_sql_injection_email_is_stored_verbatim_at_sign_up(self):
        tag = uuid.uuid4().hex[:10]
        email = "'or'1'='1-%s@example.com" % tag
        reply = self.assertSafe(post("/auth/sign-up", {"email": email, "password": STRONG}), allowed=(200,))
        self.assertEqual(reply.json["token"]["user"]["email"], email)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "1")
        login = post("/auth/login", {"email": email, "password": STRONG})
        self.assertReply(login, 200)
        self.assertEqual(login.json["token"]["user"]["id"], reply.json["token"]["user"]["id"])
        # The same string with the quote moved is another address, not a match.
        self.assertReply(post("/auth/login", {"email": "'or'1'='1-%s@example.com'" % tag, "password": STRONG}),
                         400)

    # --- HTML, CR/LF, NUL, 4-byte characters in names ----------------------------------

    def test_html_and_control_characters_in_names(self):
        values = ["<script>alert(1)</script>", "a\r\nb", "a\nSet-Cookie: x=1", "\"quoted\" \\ back",
                  "tab\there", "x\u0000y", "😀 emoji", "\u2028\u2029", "</script><img src=x onerror=alert(1)>"]
        for value in values:
            with self.subTest(repr(value)):
                email = unique_email("hostile-name")
                # From a known device (its cookie), so svc itself sets no cookie.
                reply = self.assertSafe(post("/auth/sign-up", {"email": email, "password": STRONG,
                                                               "firstname": value, "lastname": value},
                                             headers={"Cookie": "svc_device=" + "A" * 22}))
                if reply.status == 400:
                    self.assertEqual(reply.json["message"], "Validation error")
                    self.assertIsNone(names(email))
                    continue
                self.assertEqual(reply.status, 200)
                user = reply.json["token"]["user"]
                self.assertEqual((user["firstName"], user["lastName"]), (value, value))
                self.assertEqual(names(email), (value.encode(), value.encode()))
                # No header was injected by the CR/LF.
                self.assertNotIn("set-cookie", reply.headers)
                login = post("/auth/login", {"email": email, "password": STRONG})
                self.assertReply(login, 200)
                self.assertEqual(login.json["token"]["user"]["firstName"], value)

    # --- deep nesting -----------------------------------------------------------------------

    def test_deeply_nested_json_is_400(self):
        for depth in (10000, 32000):
            bodies = {
                "array": "[" * depth + "]" * depth,
                "object": '{"a":' * depth + "1" + "}" * depth,
                "in email": '{"email":' + "[" * depth + "]" * depth + ',"password":"x"}',
                "in payload": '{"payload":' + '{"a":' * depth + "1" + "}" * depth + "}",
                "unclosed": "[" * depth,
            }
            for path in ENDPOINTS:
                for label, body in bodies.items():
                    if len(body) > 65000:  # stay under the 64 KiB body limit (else nginx's 413)
                        continue
                    with self.subTest(depth=depth, path=path, shape=label):
                        reply = self.assertSafe(post(path, raw=body), allowed=(400,))
                        self.assertIn(reply.json["message"], ("Validation error", "Invalid token format"))
        # The workers survived: a normal request still works.
        self.assertReply(post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!"}), 200)

    # --- invalid UTF-8 -----------------------------------------------------------------------

    def test_invalid_utf8_in_login(self):
        bad = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf8\x88\x80\x80\x80", b"\x80"]
        for seq in bad:
            with self.subTest(seq):
                body = b'{"email":"demo' + seq + b'@example.com","password":"Demo@2026!"}'
                reply = self.assertSafe(post("/auth/login", raw=body), allowed=(400,))
                self.assertEqual(reply.json["message"], "Validation error")
                body = b'{"email":"' + unique_email("hostile-utf8").encode() + b'","password":"Demo@2026' + seq + b'"}'
                self.assertSafe(post("/auth/login", raw=body), allowed=(400, 401))
                body = b'{"email":"demo@example.com","password":"Demo@2026!","k' + seq + b'":1}'
                self.assertSafe(post("/auth/login", raw=body), allowed=(200, 400))
        sql("DELETE FROM svc_login_throttle WHERE email LIKE 'hostile-utf8.%'")

    def test_invalid_utf8_in_sign_up_names(self):
        for seq in (b"\xff\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\xc0\xaf", b"\xe2\x82"):
            for field in (b"firstname", b"lastname"):
                with self.subTest(seq=seq, field=field):
                    email = unique_email("hostile-utf8-name")
                    body = (b'{"email":"' + email.encode() + b'","password":"' + STRONG.encode() + b'","' + field +
                            b'":"a' + seq + b'b"}')
                    reply = self.assertSafe(post("/auth/sign-up", raw=body), allowed=(200, 400))
                    if reply.status == 400:
                        self.assertEqual(reply.json["message"], "Validation error", reply)
                        self.assertIn(reply.json["errors"][0]["field"], (field.decode(), "body"), reply)
                        self.assertIsNone(names(email))

    def test_invalid_utf8_password_at_sign_up(self):
        email = unique_email("hostile-utf8-pw")
        body = b'{"email":"' + email.encode() + b'","password":"' + STRONG.encode() + b'\xff"}'
        reply = self.assertSafe(post("/auth/sign-up", raw=body), allowed=(200, 400))
        if reply.status == 200:
            # Whatever was hashed, the exact same bytes log in.
            login = post("/auth/login", raw=b'{"email":"' + email.encode() + b'","password":"' + STRONG.encode() +
                         b'\xff"}')
            self.assertReply(login, 200)

    def test_lone_surrogates_and_escapes(self):
        for escaped in ("\\ud800", "\\udfff", "\\ud800\\u0041", "\\u0000"):
            with self.subTest(escaped):
                email = unique_email("hostile-esc")
                body = '{"email":"%s","password":"%s","firstname":"a%sb"}' % (email, STRONG, escaped)
                self.assertSafe(post("/auth/sign-up", raw=body), allowed=(200, 400))
                body = '{"email":"demo%s@example.com","password":"Demo@2026!"}' % escaped
                self.assertSafe(post("/auth/login", raw=body), allowed=(400,))

    def test_user_agent_cannot_suppress_the_audit_row(self):
        # Header values travel as bytes: http.client sends str headers as latin-1, so
        # latin1(utf8 bytes) puts exactly those bytes on the wire.
        def wire(b):
            return b.decode("latin-1")
        email = unique_email("hostile-ua")
        cases = [
            ("valid UTF-8", "itest-ua/é😀".encode(), True),
            ("invalid UTF-8", b"itest-ua/\xff\xfe", False),
            ("overlong", b"itest-ua/\xc0\xaf", False),
            ("multibyte cut by the 512-byte column", b"a" * 511 + "é".encode() * 4, False),
            ("4 KB", b"u" * 4096, False),
        ]
        for label, ua, exact in cases:
            with self.subTest(label):
                reply = post("/auth/login", {"email": email, "password": "Wrong@Pass1"},
                             headers={"User-Agent": wire(ua)})
                self.assertSafe(reply, allowed=(401,))
                rid = reply.headers.get("x-request-id")
                self.assertTrue(rid, reply.headers)
                rows = sql("SELECT event, ip, HEX(user_agent) FROM svc_audit_log WHERE request_id = %s" % q(rid))
                self.assertEqual(len(rows), 1, "audit rows for a failed login with User-Agent %r: %r"
                                 % (ua[:40], rows))
                self.assertEqual(rows[0][:2], ["login_failed", "127.0.0.1"])
                if exact:
                    self.assertEqual(bytes.fromhex(rows[0][2] or ""), ua)
        sql("DELETE FROM svc_login_throttle WHERE email = %s" % q(email))

    # --- numbers, strings, duplicates, shapes ------------------------------------------------------

    def test_numbers_as_strings_and_out_of_range(self):
        login = {"email": "demo@example.com", "password": "Demo@2026!"}
        for app_id, ok in (("1", True), (1, True), ("01", True), ("abc", False), ("1e3", False), (" 1", False),
                           ("1 ", False), ("-1", False), ("0x1", False), ("", False), ("9223372036854775808", False),
                           ("99999999999999999999", False), (99999999999999999999, False), (1.0e300, False),
                           (True, False)):
            with self.subTest(appID=app_id):
                reply = self.assertSafe(post("/auth/login", dict(login, appID=app_id)), allowed=(200, 400))
                if ok:
                    self.assertEqual(reply.status, 200, reply)
                else:
                    self.assertValidation(reply, "appID")
        # A literal too big for a double is malformed JSON, not a crash.
        reply = self.assertSafe(post("/auth/login", raw='{"email":"demo@example.com","password":"Demo@2026!",'
                                                        '"appID":1e999}'), allowed=(400,))
        self.assertValidation(reply, "body")
        reply = self.assertSafe(post("/auth/login", raw='{"email":"demo@example.com","password":"Demo@2026!",'
                                                        '"appID":-1e999}'), allowed=(400,))
        self.assertValidation(reply, "body")

    def test_duplicate_keys(self):
        email = unique_email("hostile-dup")
        body = ('{"email":"%s","password":"%s","role":"user","role":"admin","firstname":"A","firstname":"B"}'
                % (email, STRONG))
        reply = self.assertSafe(post("/auth/sign-up", raw=body), allowed=(200, 400))
        if reply.status == 200:
            self.assertEqual(sql_value("SELECT primary_role FROM svc_users WHERE user_email = %s" % q(email)), "user")
            first = sql_value("SELECT first_name FROM svc_users WHERE user_email = %s" % q(email))
            self.assertIn(first, ("A", "B"))
            self.assertEqual(reply.json["token"]["user"]["firstName"], first)
        else:
            sql("INSERT INTO svc_users (user_email, password) SELECT %s, password FROM svc_users WHERE id = 1"
                % q(email))
        password = STRONG if reply.status == 200 else "Demo@2026!"
        body = ('{"email":"%s","password":"%s","authTable":"svc_users",'
                '"authTable":"svc_users; DROP TABLE svc_users"}' % (email, password))
        self.assertSafe(post("/auth/login", raw=body), allowed=(200, 400))
        body = '{"email":"%s","password":"wrong-password","password":"%s"}' % (email, password)
        self.assertSafe(post("/auth/login", raw=body), allowed=(200, 400, 401))
        body = '{"email":"%s","password":"%s","email":"demo@example.com"}' % (email, password)
        reply = self.assertSafe(post("/auth/login", raw=body), allowed=(200, 400, 401))
        if reply.status == 200:  # the password is checked against the e-mail that was looked up
            self.assertEqual(reply.json["token"]["user"]["email"], email)
        body = '{"payload":{"refresh_token":"x"},"payload":{"refresh_token":"y"}}'
        self.assertSafe(post("/auth/refresh-token", raw=body), allowed=(400,))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'svc' "
                                   "AND table_name = 'svc_users'"), "1")
        sql("DELETE FROM svc_login_throttle WHERE email = %s" % q(email.lower()))

    def test_non_object_bodies(self):
        for raw in ("", " ", "null", "true", "1", '"string"', "[]", "[{}]", "{", "}", "{'a':1}", '{"a":1,}',
                    "\x00", '{"email":"a@example.com"}garbage', "NaN", '{"a":NaN}'):
            for path in ENDPOINTS:
                with self.subTest(path=path, raw=raw):
                    reply = self.assertSafe(post(path, raw=raw.encode("utf-8")), allowed=(400,))
                    self.assertValidation(reply, "body")
                    self.assertEqual([e["field"] for e in reply.json["errors"]], ["body"], reply)


if __name__ == "__main__":
    svc_stack.main()

"""POST /auth/user-sms-code and POST /auth/verify-sms-code through nginx +
workers + MariaDB + the SMS HTTP sink ($SVC_STACK_DIR/sms.log).

Covers: the exact success reply and the one gateway request it makes (to =
the user's mobile, a 6-digit code, the configured Authorization header); the
code is stored only as a keyed hash (never as text, nor inside its hex) and
never appears in the audit log; 400 Mobile number missing ('' and NULL);
429 Too many requests with retry_after inside 60 s, and a new code once the 60 s
have passed (which kills the old one); the rolling 24 h caps on codes sent
and on wrong guesses across codes (429); a failing gateway (sink answers 500):
500 generic, the code that reached the gateway is not valid, and an immediate
retry is not blocked by the 60 s rule; verify: right code 200 exactly once,
wrong codes count down attempts_left 4..0 and then even the right code is
dead, an expired code, no code at all, a code of another user, malformed codes
(400 Validation error on code, no attempt used), concurrent guesses and
concurrent right answers; the token errors on both endpoints (expired, customer
id, unknown user); hostile strings.

Every test uses its own user (fresh e-mail and mobile), so the 60 s rule of one
test never meets another and the file is re-runnable on one stack.
"""

import json
import os
import random
import re
import socket
import subprocess
import threading
import time

import svc_stack
from svc_stack import ApiTest, mint_id, post, sql, sql_value, unique_email
from svc_stack import b64url_decode, config_value, set_sink_control

SENT = {"status": "Success", "message": "SMS code sent successfully"}
VERIFIED = {"status": "Success", "message": "SMS code verified"}
DEAD = {"status": "Failed", "message": "Code expired or invalid", "attempts_left": 0}
GENERIC_500 = {"status": "Failed", "message": "An error occurred while processing your request"}
EXPIRED = {"status": "Failed", "message": "Token expired"}
NOT_FOUND = {"status": "Failed", "message": "User not found"}
NO_MOBILE = {"status": "Failed", "message": "Mobile number missing"}
CODE_TEXT = re.compile(r"^Your verification code is (\d{6})$")
CONTROL = os.path.join(svc_stack.STACK_DIR, "sms.log.control.json")
LEAK_WORDS = ("sql syntax", "sqlstate", "mariadb", "mysql", "exception", "what()", "errno", "curl")


def invalid(left):
    return {"status": "Failed", "message": "Invalid code", "attempts_left": left}


ID_KEY_HEX = b64url_decode(config_value("keys", "id_key")).hex()
SMS_AUTH_HEADER = config_value("sms", "auth_header")


def php_seal(plaintext, ad="svc:user-id:v1"):
    code = r'''
$nonce = random_bytes(SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES);
$ct = sodium_crypto_aead_xchacha20poly1305_ietf_encrypt($argv[2], $argv[3], $nonce, hex2bin($argv[1]));
echo sodium_bin2base64($nonce . $ct, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
'''
    return subprocess.run(["php", "-r", code, "--", ID_KEY_HEX, plaintext, ad], capture_output=True, text=True,
                          check=True, timeout=30).stdout.strip()


def new_mobile():
    return "+1555%07d" % random.SystemRandom().randrange(10**7)


def create_user(prefix="sms", mobile=True):
    """A fresh user with its own mobile; returns (id, token, mobile)."""
    mobile = new_mobile() if mobile is True else mobile
    args = ["user", "create", "--email", unique_email(prefix)]
    if mobile:
        args += ["--mobile", mobile]
    uid = int(svc_stack.admin(*args, stdin="Pass@1234\n").stdout.strip().splitlines()[-1])
    return uid, mint_id(uid), mobile


def sms_lines():
    return svc_stack.http_sink_lines("sms")


def messages_to(mobile, lines=None):
    """(line, body) of every gateway request addressed to mobile."""
    out = []
    for line in sms_lines() if lines is None else lines:
        try:
            body = json.loads(line.get("body") or "")
        except ValueError:
            continue
        if isinstance(body, dict) and body.get("to") == mobile:
            out.append((line, body))
    return out


def code_in(body):
    m = CODE_TEXT.match(body.get("text", ""))
    assert m, "no code in %r" % body
    return m.group(1)


def send(token):
    return post("/auth/user-sms-code", {"userId": token})


def verify(token, code):
    return post("/auth/verify-sms-code", {"userId": token, "code": code})


def other_code(code, k=1):
    return "%06d" % ((int(code) + k) % 1000000)


def row(uid):
    rows = sql("SELECT HEX(code_hash), LENGTH(code_hash), expires_at, attempts, spent, created_at,"
               " code_hash = '000000' FROM svc_sms_codes WHERE user_id = %d AND auth_table = 'svc_users'" % uid)
    return rows[0] if rows else None


def audit_dump(uid):
    return [" | ".join("" if c is None else c for c in r)
            for r in sql("SELECT * FROM svc_audit_log WHERE user_id = %d ORDER BY id" % uid)]


def burst(path, body, n):
    """Sends n identical requests at once (connections opened first); returns sorted (status, JSON body)."""
    data = json.dumps(body).encode()
    wire = ("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\nConnection: close\r\n\r\n" % (path, len(data))).encode() + data
    socks = [socket.create_connection(("127.0.0.1", svc_stack.HTTP_PORT), timeout=30) for _ in range(n)]
    barrier = threading.Barrier(n)
    statuses = []

    def go(s):
        barrier.wait()
        s.sendall(wire)
        reply = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
        s.close()
        head, _, payload = reply.partition(b"\r\n\r\n")
        statuses.append((int(head.split(b" ", 2)[1]), json.loads(payload.decode() or "null")))
    svc_stack.run_concurrently(go, socks)
    return sorted(statuses, key=lambda r: (r[0], json.dumps(r[1], sort_keys=True)))


class SmsTest(ApiTest):
    LEAK_WORDS = LEAK_WORDS

    def sent_code(self, token, mobile):
        """Sends a code (200) and returns it as the gateway received it."""
        before = len(messages_to(mobile))
        self.assertExact(send(token), 200, SENT)
        got = messages_to(mobile)
        self.assertEqual(len(got), before + 1, got)
        return code_in(got[-1][1])

    def tearDown(self):
        set_sink_control(CONTROL, None)

    # --- sending ----------------------------------------------------------------------

    def test_send_code_reaches_the_gateway_and_is_stored_hashed(self):
        uid, token, mobile = create_user("sms-send")
        count = len(sms_lines())
        start = int(time.time())
        self.assertExact(send(token), 200, SENT)
        lines = sms_lines()
        self.assertEqual(len(lines), count + 1, lines[count:])
        line = lines[-1]
        self.assertEqual(line["method"], "POST")
        body = json.loads(line["body"])
        self.assertEqual(body["to"], mobile)
        code = code_in(body)
        name, value = SMS_AUTH_HEADER.split(":", 1)
        self.assertEqual(line["headers"].get(name.strip().lower()), value.strip())
        self.assertTrue(line["headers"].get("content-type", "").startswith("application/json"), line["headers"])

        hex_hash, length, expires_at, attempts, spent, created_at, _ = row(uid)
        self.assertNotEqual(hex_hash.lower(), code)
        self.assertNotIn(code, hex_hash.lower())
        self.assertGreaterEqual(int(length), 32)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_sms_codes WHERE user_id = %d AND (code_hash = %s"
                                   " OR HEX(code_hash) LIKE %s OR LOWER(HEX(code_hash)) LIKE %s)"
                                   % (uid, "'%s'" % code, "'%%%s%%'" % code, "'%%%s%%'" % code)), "0")
        self.assertEqual((attempts, spent), ("0", "0"))
        self.assertLessEqual(abs(int(created_at) - start), 5)
        self.assertEqual(int(expires_at) - int(created_at), 600)  # design: 10 minutes

        dump = audit_dump(uid)
        self.assertIn("sms_code_sent", [r.split(" | ")[1] for r in dump], dump)
        for r in dump:
            self.assertNotIn(code, r)
            self.assertNotIn(hex_hash, r)
        self.assertExact(verify(token, code), 200, VERIFIED)
        self.assertExact(verify(token, code), 400, DEAD)
        events = [r.split(" | ")[1] for r in audit_dump(uid)]
        self.assertIn("sms_code_verified", events)
        for r in audit_dump(uid):
            self.assertNotIn(code, r)

    def test_codes_are_six_random_digits(self):
        codes = []
        for _ in range(3):
            uid, token, mobile = create_user("sms-rand")
            codes.append(self.sent_code(token, mobile))
        for code in codes:
            self.assertRegex(code, r"^\d{6}$")
        self.assertGreater(len(set(codes)), 1, codes)

    def test_mobile_missing(self):
        uid, token, _ = create_user("sms-nomobile", mobile=None)
        count = len(sms_lines())
        self.assertExact(send(token), 400, NO_MOBILE)
        sql("UPDATE svc_users SET mobile = NULL WHERE id = %d" % uid)
        self.assertExact(send(token), 400, NO_MOBILE)
        self.assertEqual(len(sms_lines()), count)
        self.assertIsNone(row(uid))
        self.assertExact(verify(token, "123456"), 400, DEAD)

    def test_resend_within_60_seconds_is_429(self):
        uid, token, mobile = create_user("sms-resend")
        first = self.sent_code(token, mobile)
        reply = send(token)
        self.assertEqual(reply.status, 429, reply)
        self.assertEqual(set(reply.json), {"status", "message", "retry_after"}, reply)
        self.assertEqual((reply.json["status"], reply.json["message"]), ("Failed", "Too many requests"))
        self.assertIsInstance(reply.json["retry_after"], int)
        self.assertTrue(1 <= reply.json["retry_after"] <= 60, reply)
        self.assertEqual(len(messages_to(mobile)), 1)
        # 61 s later (moved in the database): a new code, and the old one is no longer it.
        sql("UPDATE svc_sms_codes SET created_at = created_at - 61 WHERE user_id = %d" % uid)
        second = self.sent_code(token, mobile)
        if second != first:
            self.assertExact(verify(token, first), 400, invalid(4))
        self.assertExact(verify(token, second), 200, VERIFIED)
        # Verifying does not reset the 60 s window of the last send.
        self.assertEqual(send(token).status, 429)

    def test_daily_caps_answer_429_through_nginx(self):
        """Issue 22: per user and rolling 24 h, at most [auth]
        sms_max_sent_daily codes (default 5) and sms_max_wrong_daily wrong
        guesses (default 10). The day's earlier events are written straight
        into svc_sms_events (the rules themselves run on the handler tests'
        fake clock); what counts here is the reply through nginx."""
        uid, token, mobile = create_user("sms-daily")
        now = int(sql_value("SELECT UNIX_TIMESTAMP()"))

        def earlier(kind, n):
            for i in range(n):
                sql("INSERT INTO svc_sms_events (user_id, auth_table, kind, happened_at)"
                    " VALUES (%d, 'svc_users', '%s', %d)" % (uid, kind, now - 3600 - i))

        earlier("wrong", 10)
        code = self.sent_code(token, mobile)  # codes still go out: 1 of 5 today
        reply = verify(token, code)
        self.assertEqual(reply.status, 429, reply)
        self.assertEqual(set(reply.json), {"status", "message", "attempts_left", "retry_after"}, reply)
        self.assertEqual((reply.json["status"], reply.json["message"], reply.json["attempts_left"]),
                         ("Failed", "Too many attempts", 0))
        self.assertTrue(82800 - 60 <= reply.json["retry_after"] <= 82800 - 9 + 60, reply)
        self.assertEqual(row(uid)[3], "0")  # the refused guess was not counted against the code

        earlier("sent", 4)  # with the code above: 5 today
        sql("UPDATE svc_sms_codes SET created_at = created_at - 61 WHERE user_id = %d" % uid)
        reply = send(token)
        self.assertEqual(reply.status, 429, reply)
        self.assertEqual(set(reply.json), {"status", "message", "retry_after"}, reply)
        self.assertEqual((reply.json["status"], reply.json["message"]), ("Failed", "Too many requests"))
        self.assertTrue(82800 - 60 <= reply.json["retry_after"] <= 82800 - 3 + 60, reply)
        self.assertEqual(len(messages_to(mobile)), 1)

    def test_concurrent_sends_send_one_sms(self):
        # Design: one send per 60 s per user, also when the requests arrive
        # together (a check-then-write race lets two through). The requests go
        # out over pre-opened connections released by one barrier; up to five
        # rounds, each with its own user, so a racy server rarely slips by.
        for round_ in range(5):
            uid, token, mobile = create_user("sms-burst")
            statuses = [r[0] for r in burst("/auth/user-sms-code", {"userId": token}, 8)]
            got = messages_to(mobile)
            self.assertEqual(len(got), 1, "round %d: %d SMS went out for one user within 60 s, replies %s"
                             % (round_, len(got), statuses))
            self.assertEqual(statuses, [200] + [429] * 7)
            self.assertExact(verify(token, code_in(got[0][1])), 200, VERIFIED)

    def test_failing_gateway(self):
        uid, token, mobile = create_user("sms-gw")
        set_sink_control(CONTROL, {"status_queue": [500]})
        self.assertExact(send(token), 500, GENERIC_500)
        got = messages_to(mobile)
        self.assertEqual(len(got), 1, got)  # the gateway saw the request and refused it
        leaked = code_in(got[0][1])
        self.assertIsNone(row(uid))
        self.assertNotIn("sms_code_sent", [r.split(" | ")[1] for r in audit_dump(uid)])
        self.assertExact(verify(token, leaked), 400, DEAD)
        self.assertExact(verify(token, other_code(leaked)), 400, DEAD)
        # The failed send does not hold the 60 s window: an immediate retry goes out.
        code = self.sent_code(token, mobile)
        self.assertExact(verify(token, code), 200, VERIFIED)

    def test_gateway_4xx_is_a_failure_too(self):
        uid, token, mobile = create_user("sms-gw4")
        set_sink_control(CONTROL, {"status_queue": [403]})
        self.assertExact(send(token), 500, GENERIC_500)
        self.assertIsNone(row(uid))

    # --- verifying --------------------------------------------------------------------

    def test_wrong_codes_count_down_then_dead(self):
        uid, token, mobile = create_user("sms-wrong")
        code = self.sent_code(token, mobile)
        for k, left in zip(range(1, 6), (4, 3, 2, 1, 0)):
            self.assertExact(verify(token, other_code(code, k)), 400, invalid(left))
        self.assertEqual(row(uid)[3], "5")
        self.assertExact(verify(token, code), 400, DEAD)
        self.assertExact(verify(token, other_code(code, 9)), 400, DEAD)
        self.assertEqual(row(uid)[3], "5")
        self.assertEqual(row(uid)[4], "0")

    def test_expired_code_is_dead(self):
        uid, token, mobile = create_user("sms-exp")
        code = self.sent_code(token, mobile)
        sql("UPDATE svc_sms_codes SET expires_at = 0 WHERE user_id = %d" % uid)
        self.assertExact(verify(token, code), 400, DEAD)
        self.assertExact(verify(token, other_code(code)), 400, DEAD)
        self.assertEqual(row(uid)[3], "0")

    def test_no_code_sent_is_dead(self):
        _, token, _ = create_user("sms-none")
        self.assertExact(verify(token, "123456"), 400, DEAD)

    def test_code_of_another_user(self):
        _, token_a, mobile_a = create_user("sms-a")
        code_a = self.sent_code(token_a, mobile_a)
        # Codes are drawn at random: on the one-in-a-million draw of the same
        # code, take another user b instead of skipping the test.
        for _ in range(5):
            _, token_b, mobile_b = create_user("sms-b")
            code_b = self.sent_code(token_b, mobile_b)
            if code_b != code_a:
                break
        self.assertNotEqual(code_a, code_b, "five users drew the same code: is the code random?")
        self.assertExact(verify(token_b, code_a), 400, invalid(4))
        self.assertExact(verify(token_a, code_a), 200, VERIFIED)
        self.assertExact(verify(token_b, code_b), 200, VERIFIED)

    def test_malformed_codes_are_validation_errors_and_cost_no_attempt(self):
        uid, token, mobile = create_user("sms-malformed")
        code = self.sent_code(token, mobile)
        for bad in ("12345", "abcdef", 1234567, "1234567", "", None, "12 456", " " + code, code + " ",
                    "\u0661\u0662\u0663\u0664\u0665\u0666", "12345a", "-12345", "1e5000", 123456, 12.5, True,
                    [code], {"code": code}, "' OR '1'='1", code + "\x00", "0x1A2B", "1" * 2000):
            with self.subTest(code=str(bad)[:30]):
                reply = verify(token, bad)
                self.assertValidation(reply, "code")
                self.assertEqual([e["field"] for e in reply.json["errors"]], ["code"], reply)
        missing = post("/auth/verify-sms-code", {"userId": token})
        self.assertValidation(missing, "code")
        both = post("/auth/verify-sms-code", {"code": "12"})
        self.assertValidation(both, "userId", "code")
        self.assertEqual(row(uid)[3], "0")
        self.assertExact(verify(token, code), 200, VERIFIED)

    def test_concurrent_right_answers_verify_once(self):
        _, token, mobile = create_user("sms-race")
        code = self.sent_code(token, mobile)
        replies = burst("/auth/verify-sms-code", {"userId": token, "code": code}, 8)
        self.assertEqual(replies, [(200, VERIFIED)] + [(400, DEAD)] * 7)

    def test_concurrent_guesses_are_capped_at_five(self):
        uid, token, mobile = create_user("sms-guess")
        code = self.sent_code(token, mobile)
        replies = burst("/auth/verify-sms-code", {"userId": token, "code": other_code(code)}, 12)
        counted = [body for status, body in replies if body.get("message") == "Invalid code"]
        self.assertLessEqual(len(counted), 5, replies)
        for status, body in replies:
            self.assertEqual(status, 400, replies)
            self.assertIn(body.get("message"), ("Invalid code", "Code expired or invalid"), replies)
        self.assertEqual(row(uid)[3], "5")
        self.assertExact(verify(token, code), 400, DEAD)

    # --- token errors -----------------------------------------------------------------

    def test_token_errors_on_both_endpoints(self):
        uid, token, mobile = create_user("sms-tok")
        expired = php_seal(json.dumps({"uid": uid, "exp": int(time.time()) - 1}))
        customer = mint_id(uid, "customer")
        gone_uid, gone, _ = create_user("sms-gone")
        sql("DELETE FROM svc_users WHERE id = %d" % gone_uid)
        for name, send_reply, verify_reply, status, body in (
                ("expired", send(expired), verify(expired, "123456"), 400, EXPIRED),
                ("customer", send(customer), verify(customer, "123456"), 500, GENERIC_500),
                ("garbage", send("garbage"), verify("garbage", "123456"), 500, GENERIC_500),
                ("deleted user", send(gone), verify(gone, "123456"), 404, NOT_FOUND)):
            with self.subTest(case=name):
                self.assertExact(send_reply, status, body)
                self.assertExact(verify_reply, status, body)
        self.assertEqual(messages_to(mobile), [])
        self.assertIsNone(row(uid))
        # A PHP-sealed token with a future exp works for both.
        good = php_seal(json.dumps({"uid": uid, "exp": int(time.time()) + 300}))
        code = self.sent_code(good, mobile)
        self.assertExact(verify(good, code), 200, VERIFIED)

    def test_hostile_strings(self):
        _, token, mobile = create_user("sms-hostile")
        for value in ("' OR 1=1 --", "1; DROP TABLE svc_sms_codes", "<script>alert(1)</script>",
                      "a\r\nX-Injected: 1", "\u202e\u0000", "9" * 20):
            with self.subTest(userId=value):
                self.assertExact(send(value), 500, GENERIC_500)
                self.assertExact(verify(value, "123456"), 500, GENERIC_500)
        for extra in ({"mobile": "+19999999999"}, {"to": "+19999999999"}, {"text": "pwned"}, {"code": "000000"}):
            with self.subTest(extra=extra):
                reply = post("/auth/user-sms-code", dict(extra, userId=token))
                self.assertIn(reply.status, (200, 429), reply)
        for line, body in messages_to("+19999999999"):
            self.fail("a request field chose the SMS recipient: %r" % body)
        got = messages_to(mobile)
        self.assertEqual(len(got), 1, got)
        self.assertRegex(got[0][1]["text"], CODE_TEXT)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'svc'"
                                   " AND table_name = 'svc_sms_codes'"), "1")


if __name__ == "__main__":
    svc_stack.main()

"""Second factor (issue 24) through nginx + workers + MariaDB, every TOTP
code made by an independent generator (Debian's oathtool, RFC 6238).

Covers: setup needs a bearer access token; setup → secret, otpauth URL and
its QR code as an SVG (the secret is stored sealed, never as text); confirm with a wrong code (400
Invalid code), then the right one (10 distinct recovery codes, stored only as
hashes); setup again → 409; a wrong password of a user with a factor gets the
plain Invalid credentials; the right one → 401 Second factor required with
mfa_token and methods; verify wrong (401 Invalid code) then right → the
login reply whose tokens say amr ["pwd","otp","mfa"], kept by a refresh with
auth_time unchanged; the accepted code again → refused (replay); a recovery
code works once; the sixth try on one mfa_token is refused even with the
right code; wrong codes count in the account's login throttle, and every
[auth] mfa_lock_after-th wrong answer locks the second step (429 with
retry_after even for the right code or a recovery code) and mails the owner
(issue 36; the ladder and the daily cap on the fixed clock are in
tests/handlers/auth/mfa_lock_test.cpp); a new set of
recovery codes voids the old; disable by password and by code; the notice
mails of confirm, recovery-codes and disable in the SMTP sink (priority
high), also for a token issued without an appID (from [smtp] from); svc-admin users mfa-reset with its audit row; 16 concurrent verifies
of one code on 16 mfa_tokens → exactly one success (the stack's 2 workers
overlap few of them: handlers.mfa_window_test interleaves two connections
deterministically).

Time steps: each test works on its own user, and a user's accepted steps must
rise (no replay), so a test uses the steps now-1, now and now+1 (all inside
the ±1 window) in that order. `settle()` first waits, if needed, until the
current 30-second step has at least 12 s left, so no test crosses a step
boundary on its way (a position of the wall clock, not a synchronisation).
"""

import json
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, b64url_decode, post, run_concurrently, sql, sql_value, unique_email

PASSWORD = "Mfa@Pass2026"
SECOND_FACTOR = "Second factor required"
INVALID_CODE_401 = {"status": "Failed", "message": "Invalid code"}
EXPIRED = {"status": "Failed", "message": "Second factor expired, log in again"}
INVALID_CREDENTIALS = {"status": "Failed", "message": "Invalid credentials"}
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}


def settle():
    """Waits (at most 18 s) until the current TOTP step has 12 s or more left."""
    while time.time() % 30 > 18:
        time.sleep(0.2)


def step_now():
    return int(time.time()) // 30


def totp(secret, step):
    """The RFC 6238 code of `step` from oathtool (not our code)."""
    out = subprocess.run(["oathtool", "--totp", "-b", "--now", "@%d" % (step * 30 + 1), secret],
                         capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    assert len(out) == 6 and out.isdigit(), out
    return out


def wrong_code(secret, step):
    """A 6-digit code that no step of the ±1 window (nor the one after) accepts."""
    valid = {totp(secret, s) for s in range(step - 2, step + 3)}
    for candidate in ("000000", "111111", "123456", "654321", "999999"):
        if candidate not in valid:
            return candidate
    raise AssertionError("no wrong code found")


def claims(jwt):
    return json.loads(b64url_decode(jwt.split(".")[1]))


def bearer(token):
    """The account token of a sign-in: the only kind the /auth/mfa/* routes take (issue 36)."""
    return {"Authorization": "Bearer " + token["account_token"]}


def new_user(prefix="mfa"):
    email = unique_email(prefix)
    uid = int(svc_stack.admin("user", "create", "--email", email, "--verified",
                              stdin=PASSWORD + "\n").stdout.strip().splitlines()[-1])
    return email, uid


def login(email, password=PASSWORD, app_id=None):
    body = {"email": email, "password": password}
    if app_id is not None:
        body["appID"] = app_id
    return post("/auth/login", body)


def mail_to(email, subject):
    """Waits (deadline 30 s) for the sink to receive a mail to `email` with `subject`."""
    return svc_stack.wait_for_mail(lambda m: m["To"] == email and m["Subject"] == subject, timeout=30)


class MfaTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    def sign_in(self, email):
        reply = login(email)
        return self.assertTokenReply(reply)

    def enrol(self, prefix="mfa"):
        """A user with a confirmed factor (confirmed with the code of step
        now-1); returns (email, uid, secret, recovery codes, token)."""
        email, uid = new_user(prefix)
        token = self.sign_in(email)
        setup = post("/auth/mfa/totp/setup", headers=bearer(token))
        self.assertReply(setup, 200)
        secret = setup.json["secret"]
        reply = post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)}, headers=bearer(token))
        self.assertReply(reply, 200)
        return email, uid, secret, reply.json["recovery_codes"], token

    def mfa_token(self, email):
        reply = login(email)
        self.assertEqual(reply.status, 401, reply)
        self.assertEqual(set(reply.json), {"status", "message", "mfa_token", "methods"}, reply)
        self.assertEqual(reply.json["status"], "Failed")
        self.assertEqual(reply.json["message"], SECOND_FACTOR)
        self.assertEqual(reply.json["methods"], ["totp", "recovery_code"])
        self.assertGreaterEqual(len(reply.json["mfa_token"]), 40)
        return reply.json["mfa_token"]

    def test_setup_needs_a_bearer_token(self):
        self.assertExact(post("/auth/mfa/totp/setup"), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/mfa/totp/setup", headers={"Authorization": "Bearer x.y.z"}), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/mfa/totp/confirm", {"code": "123456"}), 401, UNAUTHORIZED)

    def test_enrol_log_in_verify_replay_and_recovery_code(self):
        settle()
        email, uid = new_user()
        token = self.sign_in(email)
        self.assertEqual(claims(token["access_token"])["amr"], ["pwd"])
        setup = post("/auth/mfa/totp/setup", headers=bearer(token))
        self.assertReply(setup, 200)
        self.assertEqual(set(setup.json), {"status", "secret", "otpauth_url", "qr_svg"})
        # The QR code of the URL as one SVG document (decoded back by zbarimg in
        # unit.qr_svg_test and, from the page's screenshot, test_account_page_signin).
        self.assertRegex(setup.json["qr_svg"], r'^<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 (\d+) \1".*</svg>$')
        self.assertNotIn("<script", setup.json["qr_svg"])
        secret = setup.json["secret"]
        self.assertRegex(secret, r"^[A-Z2-7]{32}$")
        self.assertTrue(setup.json["otpauth_url"].startswith("otpauth://totp/"), setup)
        self.assertIn("secret=" + secret, setup.json["otpauth_url"])
        self.assertIn("digits=6", setup.json["otpauth_url"])
        self.assertIn("period=30", setup.json["otpauth_url"])
        stored = sql_value("SELECT secret_sealed FROM svc_mfa_factors WHERE user_id = %d" % uid)
        self.assertNotIn(secret, stored)
        self.assertNotIn(secret.lower(), stored.lower())
        # Not active before it is confirmed.
        self.assertTokenReply(login(email))

        step = step_now()
        self.assertExact(post("/auth/mfa/totp/confirm", {"code": wrong_code(secret, step)}, headers=bearer(token)),
                         400, {"status": "Failed", "message": "Invalid code"})
        confirmed = post("/auth/mfa/totp/confirm", {"code": totp(secret, step - 1)}, headers=bearer(token))
        self.assertReply(confirmed, 200)
        self.assertEqual(set(confirmed.json), {"status", "recovery_codes"})
        codes = confirmed.json["recovery_codes"]
        self.assertEqual(len(codes), 10)
        self.assertEqual(len(set(codes)), 10)
        for code in codes:
            self.assertRegex(code, r"^[a-z2-7]{5}-[a-z2-7]{5}$")
        hashes = [r[0] for r in sql("SELECT code_hash FROM svc_mfa_recovery_codes WHERE user_id = %d" % uid)]
        self.assertEqual(len(hashes), 10)
        for code in codes:
            self.assertFalse(any(code.replace("-", "") in h for h in hashes))
        self.assertExact(post("/auth/mfa/totp/setup", headers=bearer(token)), 409,
                         {"status": "Failed", "message": "Two-factor authentication is already enabled"})

        # A wrong password never tells that a factor exists.
        self.assertExact(login(email, "Wrong@Pass2026"), 401, INVALID_CREDENTIALS)
        mfa_token = self.mfa_token(email)
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": wrong_code(secret, step)}), 401,
                         INVALID_CODE_401)
        reply = post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": totp(secret, step)})
        session = self.assertTokenReply(reply)
        self.assertEqual(session["user"]["email"], email)
        access = claims(session["access_token"])
        self.assertEqual(access["amr"], ["pwd", "otp", "mfa"])
        self.assertEqual(claims(session["refresh_token"])["amr"], ["pwd", "otp", "mfa"])
        # The token is spent by its success.
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": totp(secret, step + 1)}), 401,
                         EXPIRED)

        # Refresh keeps amr and auth_time.
        refreshed = post("/auth/refresh-token", {"payload": {"access_token": session["access_token"],
                                                         "refresh_token": session["refresh_token"]}})
        pair = self.assertTokenReply(refreshed, ("access_token", "refresh_token"))
        again = claims(pair["access_token"])
        self.assertEqual(again["amr"], ["pwd", "otp", "mfa"])
        self.assertEqual(again["auth_time"], access["auth_time"])

        # Replay: the accepted code of `step` is refused on a new mfa_token.
        second = self.mfa_token(email)
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": second, "code": totp(secret, step)}), 401,
                         INVALID_CODE_401)
        # A recovery code, once (any case, dashes optional).
        used = codes[3]
        self.assertTokenReply(post("/auth/mfa/verify", {"mfa_token": second, "recovery_code": used.upper()}))
        third = self.mfa_token(email)
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": third, "recovery_code": used}), 401, INVALID_CODE_401)
        self.assertTokenReply(post("/auth/mfa/verify", {"mfa_token": third, "recovery_code": codes[4].replace("-", "")}))
        events = [r[0] for r in sql("SELECT event FROM svc_audit_log WHERE user_id = %d ORDER BY id" % uid)]
        self.assertIn("mfa_enabled", events)
        self.assertIn("login_mfa_required", events)

    def test_sixth_try_on_one_mfa_token_is_refused(self):
        settle()
        email, _, secret, _, _ = self.enrol("mfa-tries")
        step = step_now()
        mfa_token = self.mfa_token(email)
        for _ in range(5):
            self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": wrong_code(secret, step)}), 401,
                             INVALID_CODE_401)
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": totp(secret, step)}), 401, EXPIRED)
        # Five wrong answers also locked the account's second factor (issue
        # 36): a fresh login's right code waits for the lock, unchecked.
        locked = post("/auth/mfa/verify", {"mfa_token": self.mfa_token(email), "code": totp(secret, step)})
        self.assertEqual((locked.status, locked.json["message"]), (429, "Too many attempts"), locked)

    def test_wrong_codes_count_in_the_login_throttle(self):
        settle()
        email, _, secret, _, _ = self.enrol("mfa-throttle")
        max_failures = int(svc_stack.config_value("auth", "login_max_failures", "10"))
        lock_after = int(svc_stack.config_value("auth", "mfa_lock_after", "5"))
        self.assertLess(lock_after, max_failures)
        mfa_token = self.mfa_token(email)  # a right password takes back its own count
        for _ in range(lock_after):
            self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": wrong_code(secret, step_now())}),
                             401, INVALID_CODE_401)
        # The wrong codes counted: fewer wrong passwords lock the login.
        for _ in range(max_failures - lock_after):
            self.assertExact(login(email, "Wrong@Pass2026"), 401, INVALID_CREDENTIALS)
        locked = login(email)
        self.assertEqual(locked.status, 429, locked)
        self.assertEqual(locked.json["message"], "Too many attempts")

    def test_wrong_codes_lock_the_second_step_and_mail_the_owner(self):
        settle()
        email, _, secret, codes, _ = self.enrol("mfa-lock")
        lock_after = int(svc_stack.config_value("auth", "mfa_lock_after", "5"))
        lock_seconds = int(svc_stack.config_value("auth", "mfa_lock_seconds", "60"))
        step = step_now()
        mfa_token = self.mfa_token(email)
        probe = self.mfa_token(email)
        for _ in range(lock_after):
            self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": wrong_code(secret, step)}), 401,
                             INVALID_CODE_401)
        for answer in ({"code": totp(secret, step)}, {"recovery_code": codes[0]}):
            locked = post("/auth/mfa/verify", dict(answer, mfa_token=probe))
            self.assertEqual(locked.status, 429, locked)
            self.assertEqual(set(locked.json), {"status", "message", "retry_after"}, locked)
            self.assertEqual((locked.json["status"], locked.json["message"]), ("Failed", "Too many attempts"))
            self.assertTrue(1 <= locked.json["retry_after"] <= lock_seconds, locked)
        notice = mail_to(email, "Sign-in paused after wrong codes")
        self.assertIn("wrong", notice.get_body(("html", "plain")).get_content())

    def test_new_recovery_codes_void_the_old_and_disable_by_password(self):
        settle()
        email, uid, secret, old_codes, token = self.enrol("mfa-regen")
        step = step_now()
        self.assertExact(post("/auth/mfa/recovery-codes", {"code": wrong_code(secret, step)}, headers=bearer(token)),
                         400, {"status": "Failed", "message": "Invalid code"})
        reply = post("/auth/mfa/recovery-codes", {"code": totp(secret, step)}, headers=bearer(token))
        self.assertReply(reply, 200)
        new_codes = reply.json["recovery_codes"]
        self.assertEqual(len(new_codes), 10)
        self.assertFalse(set(new_codes) & set(old_codes))
        mfa_token = self.mfa_token(email)
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": mfa_token, "recovery_code": old_codes[0]}), 401,
                         INVALID_CODE_401)
        self.assertTokenReply(post("/auth/mfa/verify", {"mfa_token": mfa_token, "recovery_code": new_codes[0]}))

        self.assertOnlyFields(post("/auth/mfa/disable", {}, headers=bearer(token)), "code")
        self.assertExact(post("/auth/mfa/disable", {"password": "Wrong@Pass2026"}, headers=bearer(token)), 400,
                         {"status": "Failed", "message": "Invalid password"})
        self.assertExact(post("/auth/mfa/disable", {"password": PASSWORD}, headers=bearer(token)), 200,
                         {"status": "Success"})
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mfa_factors WHERE user_id = %d" % uid), "0")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_mfa_recovery_codes WHERE user_id = %d" % uid), "0")
        plain = self.sign_in(email)
        self.assertEqual(claims(plain["access_token"])["amr"], ["pwd"])
        self.assertExact(post("/auth/mfa/disable", {"password": PASSWORD}, headers=bearer(token)), 409,
                         {"status": "Failed", "message": "Two-factor authentication is not enabled"})

    def test_disable_by_code(self):
        settle()
        email, _, secret, _, token = self.enrol("mfa-off")
        step = step_now()
        self.assertExact(post("/auth/mfa/disable", {"code": wrong_code(secret, step)}, headers=bearer(token)), 400,
                         {"status": "Failed", "message": "Invalid code"})
        self.assertExact(post("/auth/mfa/disable", {"code": totp(secret, step)}, headers=bearer(token)), 200,
                         {"status": "Success"})
        self.assertTokenReply(login(email))

    def test_verify_rejects_malformed_requests_without_using_a_try(self):
        self.assertOnlyFields(post("/auth/mfa/verify", {"code": "123456"}), "mfa_token")
        self.assertOnlyFields(post("/auth/mfa/verify", {"mfa_token": "x"}), "code")
        self.assertOnlyFields(post("/auth/mfa/verify", {"mfa_token": "x", "code": "12345"}), "code")
        self.assertOnlyFields(post("/auth/mfa/verify", {"mfa_token": "x", "code": "123456", "recovery_code": "a"}),
                              "code")
        self.assertExact(post("/auth/mfa/verify", {"mfa_token": "not-a-token", "code": "123456"}), 401, EXPIRED)

    def test_factor_changes_are_mailed_with_high_priority(self):
        settle()
        email, _ = new_user("mfa-mail")
        token = self.assertTokenReply(login(email, app_id=1))  # a site's token: its mail settings send
        secret = post("/auth/mfa/totp/setup", headers=bearer(token)).json["secret"]
        step = step_now()
        self.assertReply(post("/auth/mfa/totp/confirm", {"code": totp(secret, step - 1)}, headers=bearer(token)), 200)
        on = mail_to(email, "Two-factor authentication is on")
        self.assertIn("turned on", on.get_body(("html", "plain")).get_content())
        self.assertReply(post("/auth/mfa/recovery-codes", {"code": totp(secret, step)}, headers=bearer(token)), 200)
        mail_to(email, "New recovery codes")
        self.assertReply(post("/auth/mfa/disable", {"code": totp(secret, step + 1)}, headers=bearer(token)), 200)
        mail_to(email, "Two-factor authentication is off")
        rows = sql("SELECT event, priority FROM svc_notification_log WHERE recipient = %s ORDER BY id"
                   % svc_stack.q(email))
        self.assertEqual(rows, [["mfa-enabled", "0"], ["mfa-recovery-codes", "0"], ["mfa-disabled", "0"]])

    def test_factor_changes_of_a_token_without_a_site_are_mailed_from_the_service(self):
        settle()
        email, _ = new_user("mfa-mail-nosite")
        token = self.sign_in(email)  # no appID: no site to send from
        secret = post("/auth/mfa/totp/setup", headers=bearer(token)).json["secret"]
        self.assertReply(post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)}, headers=bearer(token)),
                         200)
        on = mail_to(email, "Two-factor authentication is on")
        self.assertEqual(on["From"], svc_stack.config_value("smtp", "from"))

    def test_operator_mfa_reset(self):
        settle()
        email, uid, _, _, _ = self.enrol("mfa-reset")
        self.mfa_token(email)
        out = svc_stack.admin("users", "mfa-reset", "--email", email)
        self.assertIn("second factor removed", out.stdout)
        self.assertTokenReply(login(email))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'mfa_reset' AND user_id = %d"
                                   % uid), "1")
        again = svc_stack.admin("users", "mfa-reset", "--email", email)
        self.assertIn("no active second factor", again.stdout)
        unknown = svc_stack.admin("users", "mfa-reset", "--email", unique_email("nobody"), check=False)
        self.assertNotEqual(unknown.returncode, 0)
        self.assertIn("no user with e-mail", unknown.stderr)

    def test_sixteen_concurrent_verifies_of_one_code_one_success(self):
        settle()
        email, _, secret, _, _ = self.enrol("mfa-race")
        tokens = [self.mfa_token(email) for _ in range(16)]
        code = totp(secret, step_now())
        replies = []

        def verify(mfa_token):
            replies.append(post("/auth/mfa/verify", {"mfa_token": mfa_token, "code": code}))

        run_concurrently(verify, tokens)
        self.assertEqual(len(replies), 16)
        ok = [r for r in replies if r.status == 200]
        self.assertEqual(len(ok), 1, replies)
        for r in replies:
            if r.status != 200:
                self.assertIn(r.status, (401, 429), r)
                if r.status == 401:
                    self.assertEqual(r.json, INVALID_CODE_401)


if __name__ == "__main__":
    svc_stack.main()

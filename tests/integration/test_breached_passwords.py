"""The breached-password list (issue 41) through nginx: `svc-admin passwords
import-breached` turns a SHA1:COUNT file made here into [auth]
breached_list; sign-up, reset and change refuse a listed password (400 with
requirements.notBreached false), a login with one succeeds and says
"password_breached": true; a list replaced while the stack runs is picked up
without a restart; a truncated or unsorted file is refused and the old list
stays; the import opens no socket at all (strace); doctor reports the list.

The stack's svc.conf names no list (its first doctor run must pass), so the
class adds [auth] breached_list, reloads the workers (SIGHUP) and takes it
back afterwards the same way. 1,000,000 generated lines (45 MB): the unit
test (tests/unit/crypto/breached_list_test.cpp) walks every line of a
2,000,000-line list; here the first, the last and a few between go through
the whole stack.
"""

import hashlib
import os
import re
import shutil
import signal
import subprocess
import time

import svc_stack
from svc_stack import ApiTest, post, unique_email
from test_password_reset import create_user, fresh_token, login, reset

LINES = 1_000_000
LIST = os.path.join(svc_stack.STACK_DIR, "breached.bin")
WORK = os.path.join(svc_stack.STACK_DIR, "breached-test")
WEAK = "Password does not meet security requirements"
FIVE = {"minLength": True, "hasUpperCase": True, "hasLowerCase": True, "hasNumber": True, "hasSpecialChar": True}
RELOAD_SECONDS = 60


def listed_password(i, generation="a"):
    """Passwords that pass the spec's five rules, so only the list refuses them."""
    return "Pw@1%s-%07d" % (generation, i)


def write_list(path, passwords, eol="\r\n"):
    """A SHA1:COUNT file ordered by hash, as Have I Been Pwned ships it;
    returns the passwords of its first and last lines."""
    lines = sorted((hashlib.sha1(p.encode()).hexdigest().upper(), p) for p in passwords)
    with open(path, "w", newline="") as f:
        f.write("".join("%s:%d%s" % (h, 3, eol) for h, _ in lines))
    return lines[0][1], lines[-1][1]


def set_breached_list(value):
    """Adds (value) or removes (None) [auth] breached_list in the stack's svc.conf."""
    with open(svc_stack.CONFIG) as f:
        text = re.sub(r"(?m)^breached_list = .*\n", "", f.read())
    if value:
        text = text.replace("[auth]\n", "[auth]\nbreached_list = %s\n" % value, 1)
    with open(svc_stack.CONFIG, "w") as f:
        f.write(text)


def sign_up(password, email=None):
    return post("/auth/sign-up", {"email": email or unique_email("breach"), "password": password, "appID": 1})


def import_list(path, *extra):
    return svc_stack.admin("passwords", "import-breached", path, *extra, check=False)


def reload_until(what, probe):
    """SIGHUP svc-fcgi, then polls probe() (bounded) until the new workers show the change."""
    os.kill(svc_stack.stack_pid("svc-fcgi"), signal.SIGHUP)
    deadline = time.time() + RELOAD_SECONDS
    while not probe():
        if time.time() > deadline:
            raise AssertionError("%s: not seen %d s after SIGHUP" % (what, RELOAD_SECONDS))
        time.sleep(0.1)


def weak_requirements():
    return sign_up("weak").json.get("requirements", {})


class BreachedPasswordsTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        cls.first, cls.last = write_list(os.path.join(WORK, "a.txt"), (listed_password(i) for i in range(LINES)))
        set_breached_list(LIST)
        cls.addClassCleanup(cls.take_back)
        result = import_list(os.path.join(WORK, "a.txt"))
        assert result.returncode == 0, result.stderr
        reload_until("the list", lambda: "notBreached" in weak_requirements())

    @classmethod
    def take_back(cls):
        set_breached_list(None)
        reload_until("no list", lambda: "notBreached" not in weak_requirements())
        shutil.rmtree(WORK, ignore_errors=True)
        for path in (LIST, LIST + ".tmp"):
            if os.path.exists(path):
                os.remove(path)

    def assertRefused(self, reply):
        self.assertExact(reply, 400, {"status": "Failed", "message": WEAK,
                                      "requirements": dict(FIVE, notBreached=False)})

    def test_sign_up_refuses_the_first_and_last_lines_and_one_between(self):
        for password in (self.first, self.last, listed_password(LINES // 2)):
            with self.subTest(password=password):
                self.assertRefused(sign_up(password))
        self.assertTokenReply(sign_up("Pw@1a-not-listed"))
        self.assertEqual(weak_requirements(), {"minLength": False, "hasUpperCase": False, "hasLowerCase": True,
                                               "hasNumber": False, "hasSpecialChar": False, "notBreached": True})

    def test_reset_refuses_a_listed_password_and_keeps_the_token(self):
        _, email = create_user("breachreset")
        token, _ = fresh_token(email)
        self.assertRefused(reset(token, listed_password(7)))
        self.assertReply(reset(token, "Pw@1a-fresh-and-unlisted"), 200)

    def test_change_refuses_a_listed_password(self):
        _, email = create_user("breachchange", password="Pw@1a-current-one")
        account = {"Authorization": "Bearer " + self.assertTokenReply(login(email, "Pw@1a-current-one"))[
            "account_token"]}

        def change(new):
            return post("/auth/password/change", {"current_password": "Pw@1a-current-one", "password": new,
                                                  "confirmPassword": new}, headers=account)

        self.assertRefused(change(listed_password(13)))
        self.assertExact(change("Pw@1a-changed-unlisted"), 200, {"status": "Success", "message": "Password changed"})

    def test_login_with_a_listed_password_succeeds_and_says_so(self):
        listed = listed_password(11)
        _, email = create_user("breachlogin", password=listed)
        reply = login(email, listed)
        self.assertReply(reply, 200)
        self.assertEqual(reply.json["status"], "Success")
        # A sign-in to a site also answers its account token (issue 36 item 4).
        keys = ("access_token", "refresh_token", "account_token", "user")
        self.assertEqual(set(reply.json["token"]), set(keys))
        self.assertIs(reply.json.pop("password_breached"), True)
        self.assertTokenReply(reply, token_keys=keys)  # and nothing else beside the token
        _, other = create_user("cleanlogin", password="Pw@1a-clean-password")
        reply = login(other, "Pw@1a-clean-password")
        self.assertTokenReply(reply)
        self.assertNotIn("password_breached", reply.json)

    def test_bad_files_are_refused_and_the_old_list_stays(self):
        good = os.path.join(WORK, "small.txt")
        write_list(good, (listed_password(i, "s") for i in range(100)))
        with open(good) as f:
            lines = f.readlines()
        cases = {
            "unsorted.txt": (lines[:10] + [lines[11], lines[10]] + lines[12:], r"line 12: not ordered by hash"),
            "truncated.txt": (lines[:-1] + [lines[-1][:20]], r"line 100: .*truncated"),
        }
        before = os.stat(LIST).st_ino
        for name, (content, error) in cases.items():
            with self.subTest(name):
                path = os.path.join(WORK, name)
                with open(path, "w", newline="") as f:
                    f.write("".join(content))
                result = import_list(path)
                self.assertNotEqual(result.returncode, 0, result.stdout)
                self.assertRegex(result.stderr, error)
                self.assertEqual(os.stat(LIST).st_ino, before)
                self.assertFalse(os.path.exists(LIST + ".tmp"))
                self.assertRefused(sign_up(self.first))

    def test_the_import_opens_no_socket(self):
        """A rerun of the import under strace: not one socket, connect or
        other network call (not even a unix socket to the database), and
        it starts over cleanly."""
        trace = os.path.join(WORK, "strace.txt")
        result = subprocess.run(["strace", "-f", "-qq", "-e", "trace=%network", "-e", "signal=none", "-o", trace,
                                 os.path.join(svc_stack.BIN_DIR, "svc-admin"), "--config", svc_stack.CONFIG,
                                 "passwords", "import-breached", os.path.join(WORK, "a.txt")],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"imported %d of %d lines" % (LINES, LINES))
        with open(trace) as f:
            calls = [line for line in f if "exited with" not in line]
        self.assertEqual(calls, [])
        self.assertRefused(sign_up(self.last))

    def test_a_replaced_list_is_picked_up_without_a_restart(self):
        second = os.path.join(WORK, "b.txt")
        write_list(second, [listed_password(i, "b") for i in range(1000)], eol="\n")
        master = svc_stack.stack_pid("svc-fcgi")
        try:
            result = import_list(second)
            self.assertEqual(result.returncode, 0, result.stderr)
            # Workers stat the file at most once a second (of the clock they
            # share with this test): two seconds on, none may answer from the
            # old list.
            svc_stack.wait_for_change("the new list", lambda: sign_up(listed_password(5, "b")).status == 400,
                                      time.time() + 2)
            self.assertRefused(sign_up(listed_password(999, "b")))
            self.assertTokenReply(sign_up(listed_password(5)))  # was listed in the old one
            self.assertEqual(svc_stack.stack_pid("svc-fcgi"), master)
        finally:
            result = import_list(os.path.join(WORK, "a.txt"))
            self.assertEqual(result.returncode, 0, result.stderr)
        svc_stack.wait_for_change("the first list again", lambda: sign_up(listed_password(6)).status == 400,
                                  time.time() + 2)

    def test_doctor_reports_the_list(self):
        result = svc_stack.admin("doctor", check=False)
        self.assertRegex(result.stdout, r"(?m)^breached list\s+ok\s+%d entries \(--min-count 1\), imported 0 days ago"
                         % LINES)


if __name__ == "__main__":
    svc_stack.main()

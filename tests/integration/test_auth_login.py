"""POST /auth/login through nginx + workers + MariaDB, as transcripts:
request -> exact reply -> rows that must (or must not) exist afterwards.

Covers: the success shape; 401 Invalid credentials (wrong password and unknown
user, byte-identical; also an inactive row with any password and a password
column '' / NULL / '!': docs/decisions.md); 400 Validation error field by field; the 1024-byte
password bound; legacy bcrypt and AES-256-CBC passwords made by real PHP and
upgraded to Argon2id; the login throttle; authTable (svc_staff works, any
non-allowlisted value is a 400 on authTable and touches nothing); the audit
rows of success and failure, which never hold a password or a token.

Users are inserted with SQL using one Argon2id hash made by `svc-admin
hash-password` once per run, so each test pays only for the logins it makes.
Every e-mail is fresh (unique_email), so the tests are independent of order
and re-runnable on the same stack.
"""

import json
import os
import subprocess
import uuid

import svc_stack
from svc_stack import ApiTest, post, q, sql, sql_value, unique_email
from svc_stack import config_value

PASSWORD = "Right@Pass1"
LEGACY_PASSWORD = "Legacy@123"
INVALID_CREDENTIALS = {"status": "Failed", "message": "Invalid credentials"}
THROTTLE_MAX = 10
THROTTLE_WINDOW = 900


def php(code, stdin=""):
    """Runs PHP code (php -r) and returns its standard output."""
    return subprocess.run(["php", "-r", code], input=stdin, capture_output=True, text=True,
                          check=True, timeout=30).stdout


def php_password_verify(password, stored):
    out = php('$in = json_decode(stream_get_contents(STDIN), true);'
              'echo password_verify($in[0], $in[1]) ? "yes" : "no";',
              stdin=__import__("json").dumps([password, stored]))
    return out == "yes"


_HASH = []


def argon2_hash():
    """One Argon2id hash of PASSWORD, made by the service's own admin tool."""
    if not _HASH:
        out = svc_stack.admin("hash-password", stdin=PASSWORD + "\n").stdout.strip()
        assert out.startswith("$argon2id$"), out
        _HASH.append(out)
    return _HASH[0]


def make_user(email, password_sql=None, table="svc_users", active=1, first="Ann", last="Lee", role="user"):
    """Inserts a user row; password_sql is a SQL expression (default: the Argon2id hash of PASSWORD)."""
    if password_sql is None:
        password_sql = q(argon2_hash())
    rows = sql("INSERT INTO %s (user_email, password, first_name, last_name, primary_role, active) "
               "VALUES (%s, %s, %s, %s, %s, %d); SELECT LAST_INSERT_ID();"
               % (table, q(email), password_sql, q(first), q(last), q(role), active))
    return int(rows[-1][0])


def stored_password(user_id, table="svc_users"):
    return sql_value("SELECT password FROM %s WHERE id = %d" % (table, user_id))


def versions(table, user_id):
    """svc_versions rows of one user as [action, snapshot dict], oldest first."""
    return [[action, json.loads(snapshot)] for action, snapshot in
            sql("SELECT action, snapshot FROM svc_versions WHERE table_name = %s AND record_id = %d ORDER BY id"
                % (q(table), user_id))]


def clear_throttle(email):
    sql("DELETE FROM svc_login_throttle WHERE email = %s" % q(email.lower()))


def login(email, password, ua=None, **extra):
    body = {"email": email, "password": password}
    body.update(extra)
    headers = {"User-Agent": ua} if ua else None
    return post("/auth/login", body, headers=headers)


def audit_rows(ua):
    """Audit rows written for requests that carried this (unique) User-Agent."""
    return sql("SELECT event, user_id, ip, user_agent, auth_table FROM svc_audit_log WHERE user_agent = %s "
               "ORDER BY id" % q(ua))


class LoginTest(ApiTest):

    def assertSuccess(self, reply, user_id, email, first, last, role):
        token = self.assertTokenReply(reply)
        self.assertEqual(token["user"], {"id": user_id, "email": email, "firstName": first,
                                         "lastName": last, "role": role})
        self.assertIsInstance(token["user"]["id"], int)
        self.assertNotEqual(token["access_token"], token["refresh_token"])
        return token

    # --- success -------------------------------------------------------------

    def test_success_returns_token_pair_and_profile(self):
        email = unique_email("login-ok")
        uid = make_user(email, first="Zoë", last="O'Hara", role="editor")
        reply = login(email, PASSWORD, appID=1)
        self.assertSuccess(reply, uid, email, "Zoë", "O'Hara", "editor")
        # appID as a decimal string is accepted too (design: numbers).
        self.assertSuccess(login(email, PASSWORD, appID="1"), uid, email, "Zoë", "O'Hara", "editor")
        # Without appID and authTable: the default table.
        self.assertSuccess(login(email, PASSWORD), uid, email, "Zoë", "O'Hara", "editor")

    def test_demo_user_from_the_stack_logs_in(self):
        reply = login("demo@example.com", "Demo@2026!", appID=1)
        self.assertSuccess(reply, 1, "demo@example.com", "Demo", "User", "admin")

    # --- 401 Invalid credentials -----------------------------------------------

    def test_wrong_password_and_unknown_user_are_byte_identical(self):
        email = unique_email("login-wrong")
        make_user(email)
        wrong = login(email, "Wrong@Pass1")
        unknown = login(unique_email("login-nobody"), "Wrong@Pass1")
        self.assertReply(wrong, 401, INVALID_CREDENTIALS)
        self.assertReply(unknown, 401, INVALID_CREDENTIALS)
        self.assertEqual(wrong.raw, unknown.raw)
        self.assertEqual(wrong.headers.get("content-type"), unknown.headers.get("content-type"))
        # A password that only differs in case is wrong too.
        self.assertReply(login(email, PASSWORD.lower()), 401, INVALID_CREDENTIALS)
        clear_throttle(email)

    # --- inactive and password-less rows answer like unknown ones --------------

    def test_inactive_user_is_invalid_credentials_whatever_the_password(self):
        email = unique_email("login-inactive")
        make_user(email, active=0)
        unknown = login(unique_email("login-inactive-nobody"), PASSWORD)
        # The right password is no oracle: the same bytes as an unknown e-mail.
        for attempt in (PASSWORD, "Wrong@Pass1"):
            reply = login(email, attempt)
            self.assertReply(reply, 401, INVALID_CREDENTIALS)
            self.assertEqual(reply.raw, unknown.raw)
        clear_throttle(email)

    def test_rows_without_a_usable_password_are_invalid_credentials(self):
        for label, expr in (("empty", "''"), ("null", "NULL"), ("bang", "'!'"), ("star", "'*'")):
            with self.subTest(password_column=label):
                email = unique_email("login-nopw-" + label)
                uid = make_user(email, password_sql=expr)
                before = stored_password(uid)
                for attempt in (PASSWORD, "!!!!!!!!", "anything-at-all"):
                    self.assertReply(login(email, attempt), 401, INVALID_CREDENTIALS)
                self.assertEqual(stored_password(uid), before)
                clear_throttle(email)

    # --- 400 Validation error ----------------------------------------------------

    def test_validation_errors_name_the_field(self):
        good = unique_email("login-val")
        cases = [
            ("bad e-mail", {"email": "not-an-email", "password": PASSWORD}, ["email"]),
            ("e-mail without domain dot", {"email": "a@b", "password": PASSWORD}, ["email"]),
            ("e-mail with space", {"email": "a b@example.com", "password": PASSWORD}, ["email"]),
            ("two @", {"email": "a@b@example.com", "password": PASSWORD}, ["email"]),
            ("empty e-mail", {"email": "", "password": PASSWORD}, ["email"]),
            ("password of 7", {"email": good, "password": "Abc@123"}, ["password"]),
            ("password of 7 multibyte", {"email": good, "password": "ééééééé"}, ["password"]),
            ("empty password", {"email": good, "password": ""}, ["password"]),
            ("nothing", {}, ["email", "password"]),
            ("no e-mail", {"password": PASSWORD}, ["email"]),
            ("no password", {"email": good}, ["password"]),
            ("number e-mail", {"email": 12345, "password": PASSWORD}, ["email"]),
            ("array e-mail", {"email": [good], "password": PASSWORD}, ["email"]),
            ("object password", {"email": good, "password": {"$ne": ""}}, ["password"]),
            ("number password", {"email": good, "password": 12345678}, ["password"]),
            ("bool password", {"email": good, "password": True}, ["password"]),
            ("appID abc", {"email": good, "password": PASSWORD, "appID": "abc"}, ["appID"]),
            ("appID negative", {"email": good, "password": PASSWORD, "appID": -1}, ["appID"]),
            ("appID zero", {"email": good, "password": PASSWORD, "appID": 0}, ["appID"]),
            ("appID fraction", {"email": good, "password": PASSWORD, "appID": 1.5}, ["appID"]),
            ("appID object", {"email": good, "password": PASSWORD, "appID": {}}, ["appID"]),
            ("bad e-mail and short password", {"email": "x", "password": "x"}, ["email", "password"]),
        ]
        for label, body, fields in cases:
            with self.subTest(label):
                reply = post("/auth/login", body)
                self.assertValidation(reply, *fields)
                self.assertEqual(set(reply.json), {"status", "message", "errors"}, reply)
                self.assertEqual(sorted({e["field"] for e in reply.json["errors"]}), sorted(fields), reply)
        # Validation failures never count towards the throttle.
        self.assertIsNone(sql_value("SELECT failures FROM svc_login_throttle WHERE email = %s" % q(good)))

    def test_password_of_exactly_8_characters_passes_validation(self):
        # 8 multibyte characters = 16 bytes: the rule counts characters.
        email = unique_email("login-eight")
        self.assertReply(login(email, "éééééééé"), 401, INVALID_CREDENTIALS)
        self.assertReply(login(email, "Abc@1234"), 401, INVALID_CREDENTIALS)
        clear_throttle(email)

    def test_password_over_1024_bytes_is_400(self):
        email = unique_email("login-long")
        uid = make_user(email)
        for label, pw in (("1025 ascii", "a" * 1025), ("513 two-byte chars = 1026 bytes", "é" * 513),
                          ("1 MB-ish", "A1@a" * 10000)):
            with self.subTest(label):
                reply = login(email, pw)
                self.assertValidation(reply, "password")
                self.assertEqual([e["field"] for e in reply.json["errors"]], ["password"])
        # 1024 bytes is still a password (wrong here): not a validation error.
        self.assertReply(login(email, "a" * 1024), 401, INVALID_CREDENTIALS)
        self.assertEqual(stored_password(uid), argon2_hash())
        clear_throttle(email)

    # --- legacy passwords --------------------------------------------------------

    def legacy_key(self):
        return config_value("keys", "legacy_password_key", None) or "local-legacy-key"

    def assertUpgraded(self, uid, email, legacy_value):
        reply = login(email, LEGACY_PASSWORD)
        self.assertSuccess(reply, uid, email, "Ann", "Lee", "user")
        upgraded = stored_password(uid)
        self.assertNotEqual(upgraded, legacy_value)
        self.assertTrue(upgraded.startswith("$argon2id$"), upgraded)
        self.assertTrue(php_password_verify(LEGACY_PASSWORD, upgraded), upgraded)
        self.assertFalse(php_password_verify("Legacy@124", upgraded))
        # The upgraded hash keeps working and is not rewritten again.
        self.assertSuccess(login(email, LEGACY_PASSWORD), uid, email, "Ann", "Lee", "user")
        self.assertEqual(stored_password(uid), upgraded)

    def test_legacy_bcrypt_password_is_accepted_and_upgraded(self):
        bcrypt = php("echo password_hash('Legacy@123', PASSWORD_BCRYPT);")
        self.assertTrue(bcrypt.startswith("$2y$"), bcrypt)
        email = unique_email("login-bcrypt")
        uid = make_user(email, password_sql=q(bcrypt))
        # Wrong password: 401, row untouched.
        self.assertReply(login(email, "Legacy@124"), 401, INVALID_CREDENTIALS)
        self.assertEqual(stored_password(uid), bcrypt)
        self.assertUpgraded(uid, email, bcrypt)
        clear_throttle(email)

    def test_legacy_encrypted_password_is_accepted_and_upgraded(self):
        key = self.legacy_key()
        encrypted = php("$iv = random_bytes(16); echo base64_encode($iv . openssl_encrypt('Legacy@123', "
                        "'aes-256-cbc', %s, OPENSSL_RAW_DATA, $iv));" % q(key))
        self.assertRegex(encrypted, r"^[A-Za-z0-9+/]{43}=$")
        email = unique_email("login-aes")
        uid = make_user(email, password_sql=q(encrypted))
        self.assertReply(login(email, "Legacy@124"), 401, INVALID_CREDENTIALS)
        self.assertReply(login(email, "Legacy@1234"), 401, INVALID_CREDENTIALS)
        self.assertEqual(stored_password(uid), encrypted)
        self.assertUpgraded(uid, email, encrypted)
        clear_throttle(email)

    def test_hash_upgrade_writes_one_version_row(self):
        # The re-hash at login changes the password column: like sign-up and
        # reset-pass it leaves an svc_versions "update" row (no secrets), and
        # only when it really rewrites the hash.
        key = self.legacy_key()
        bcrypt = php("echo password_hash('Legacy@123', PASSWORD_BCRYPT);")
        encrypted = php("$iv = random_bytes(16); echo base64_encode($iv . openssl_encrypt('Legacy@123', "
                        "'aes-256-cbc', %s, OPENSSL_RAW_DATA, $iv));" % q(key))
        for name, table, legacy in (("bcrypt", "svc_users", bcrypt), ("aes", "svc_staff", encrypted)):
            with self.subTest(legacy=name, table=table):
                email = unique_email("login-version-" + name)
                uid = make_user(email, password_sql=q(legacy), table=table)
                self.assertReply(login(email, "Legacy@124", authTable=table), 401, INVALID_CREDENTIALS)
                self.assertEqual(versions(table, uid), [])
                self.assertReply(login(email, LEGACY_PASSWORD, authTable=table), 200)
                upgraded = stored_password(uid, table)
                self.assertTrue(upgraded.startswith("$argon2id$"), upgraded)
                self.assertEqual(versions(table, uid),
                                 [["update", {"id": uid, "user_email": email, "first_name": "Ann", "last_name": "Lee",
                                              "primary_role": "user"}]])
                snapshot = sql_value("SELECT snapshot FROM svc_versions WHERE table_name = %s AND record_id = %d"
                                     % (q(table), uid))
                for secret in (legacy, upgraded, LEGACY_PASSWORD):
                    self.assertNotIn(secret, snapshot)
                # A current hash is not rewritten, so no further row.
                self.assertReply(login(email, LEGACY_PASSWORD, authTable=table), 200)
                self.assertEqual(len(versions(table, uid)), 1)
                clear_throttle(email)
        # A login that needs no upgrade writes no row at all.
        email = unique_email("login-version-current")
        uid = make_user(email)
        self.assertReply(login(email, PASSWORD), 200)
        self.assertEqual(versions("svc_users", uid), [])

    def test_php_argon2id_hash_is_accepted(self):
        # Hashes written by a PHP application (other Argon2id parameters) keep working.
        php_hash = php("echo password_hash('Legacy@123', PASSWORD_ARGON2ID);")
        self.assertTrue(php_hash.startswith("$argon2id$"), php_hash)
        email = unique_email("login-php-argon2id")
        uid = make_user(email, password_sql=q(php_hash))
        self.assertReply(login(email, "Legacy@124"), 401, INVALID_CREDENTIALS)
        self.assertEqual(stored_password(uid), php_hash)
        self.assertSuccess(login(email, LEGACY_PASSWORD), uid, email, "Ann", "Lee", "user")
        after = stored_password(uid)
        self.assertTrue(after.startswith("$argon2id$"), after)
        self.assertTrue(php_password_verify(LEGACY_PASSWORD, after))
        clear_throttle(email)

    def test_legacy_encrypted_with_another_key_never_matches(self):
        encrypted = php("$iv = random_bytes(16); echo base64_encode($iv . openssl_encrypt('Legacy@123', "
                        "'aes-256-cbc', 'some-other-key', OPENSSL_RAW_DATA, $iv));")
        email = unique_email("login-aes-otherkey")
        uid = make_user(email, password_sql=q(encrypted))
        self.assertReply(login(email, LEGACY_PASSWORD), 401, INVALID_CREDENTIALS)
        self.assertEqual(stored_password(uid), encrypted)
        clear_throttle(email)

    # --- throttle ------------------------------------------------------------------

    def assertLocked(self, reply):
        self.assertEqual(reply.status, 429, reply)
        self.assertEqual(set(reply.json), {"status", "message", "retry_after"}, reply)
        self.assertEqual(reply.json["status"], "Failed")
        self.assertEqual(reply.json["message"], "Too many attempts")
        n = reply.json["retry_after"]
        self.assertIsInstance(n, int)
        self.assertGreater(n, 0)
        self.assertLessEqual(n, THROTTLE_WINDOW)

    def test_eleventh_attempt_is_429_even_with_the_right_password(self):
        email = unique_email("login-throttle")
        uid = make_user(email)
        try:
            for i in range(THROTTLE_MAX):
                # Half of them in upper case: the lock is per account, not per spelling.
                who = email.upper() if i % 2 else email
                self.assertReply(login(who, "Wrong@Pass%d" % i), 401, INVALID_CREDENTIALS)
            self.assertLocked(login(email, PASSWORD))
            self.assertLocked(login(email, "Wrong@Pass"))
            # Other accounts are not affected.
            self.assertReply(login("demo@example.com", "Demo@2026!"), 200)
        finally:
            clear_throttle(email)
        self.assertSuccess(login(email, PASSWORD), uid, email, "Ann", "Lee", "user")

    def test_concurrent_attempts_do_not_exceed_the_limit(self):
        import concurrent.futures
        email = unique_email("login-throttle-race")
        make_user(email)
        workers = int(config_value("server", "workers", None) or 2)
        try:
            with concurrent.futures.ThreadPoolExecutor(24) as pool:
                replies = list(pool.map(lambda i: login(email, "Wrong@Pass%d" % i), range(36)))
            statuses = [r.status for r in replies]
            self.assertEqual(set(statuses) - {401, 429}, set(), replies)
            # Requests already past the lock check when the 10th failure lands may
            # still be verified: at most one per worker.
            self.assertGreaterEqual(statuses.count(401), THROTTLE_MAX)
            self.assertLessEqual(statuses.count(401), THROTTLE_MAX + workers, statuses)
            self.assertLocked(login(email, PASSWORD))
        finally:
            clear_throttle(email)

    def test_unknown_email_is_throttled_like_a_known_one(self):
        # Otherwise 429-vs-401 would tell which e-mails are registered.
        email = unique_email("login-throttle-unknown")
        try:
            for i in range(THROTTLE_MAX):
                self.assertReply(login(email, "Wrong@Pass%d" % i), 401, INVALID_CREDENTIALS)
            self.assertLocked(login(email, "Wrong@Pass"))
        finally:
            clear_throttle(email)

    def test_success_before_the_limit_resets_the_count(self):
        email = unique_email("login-throttle-reset")
        uid = make_user(email)
        try:
            for i in range(THROTTLE_MAX - 1):
                self.assertReply(login(email, "Wrong@Pass%d" % i), 401, INVALID_CREDENTIALS)
            self.assertSuccess(login(email, PASSWORD), uid, email, "Ann", "Lee", "user")
            self.assertIsNone(sql_value("SELECT failures FROM svc_login_throttle WHERE email = %s" % q(email)))
            for i in range(THROTTLE_MAX - 1):
                self.assertReply(login(email, "Wrong@Pass%d" % i), 401, INVALID_CREDENTIALS)
            self.assertSuccess(login(email, PASSWORD), uid, email, "Ann", "Lee", "user")
        finally:
            clear_throttle(email)

    # --- authTable ---------------------------------------------------------------------

    def test_staff_table_login(self):
        email = unique_email("login-staff")
        out = svc_stack.admin("user", "create", "--email", email, "--first", "Sam", "--last", "Staff",
                              "--role", "staff", "--table", "svc_staff", stdin="Pass@1234\n").stdout
        staff_id = int(out.strip().splitlines()[-1])
        reply = login(email, "Pass@1234", authTable="svc_staff")
        self.assertSuccess(reply, staff_id, email, "Sam", "Staff", "staff")
        # The default table does not hold this e-mail.
        self.assertReply(login(email, "Pass@1234"), 401, INVALID_CREDENTIALS)
        self.assertReply(login(email, "Pass@1234", authTable="svc_users"), 401, INVALID_CREDENTIALS)
        clear_throttle(email)

    def test_authtable_outside_the_allowlist_is_400_and_touches_nothing(self):
        email = unique_email("login-table")
        make_user(email)
        users_before = int(sql_value("SELECT COUNT(*) FROM svc_users"))
        tables_before = sql("SHOW TABLES")
        hostile = ["svc_users; DROP TABLE x", "`svc_users`", "information_schema.tables", "svc_users --",
                   "SVC_USERS", "../svc_users", "svc_users ", " svc_users", "svc_users\u0000", "svc_sites",
                   "mysql.user", "svc_users WHERE 1=1", "x" * 10240, 12345, ["svc_users"], {"t": "svc_users"},
                   True, ""]
        for value in hostile:
            with self.subTest(authTable=repr(value)[:60]):
                reply = login(email, PASSWORD, authTable=value)
                self.assertValidation(reply, "authTable")
                self.assertEqual([e["field"] for e in reply.json["errors"]], ["authTable"], reply)
                for e in reply.json["errors"]:
                    self.assertLess(len(e["message"]), 200)
        self.assertEqual(sql("SHOW TABLES"), tables_before)
        self.assertEqual(int(sql_value("SELECT COUNT(*) FROM svc_users")), users_before)
        # Nothing was counted against the account either.
        self.assertIsNone(sql_value("SELECT failures FROM svc_login_throttle WHERE email = %s" % q(email)))

    # --- audit ----------------------------------------------------------------------------

    def test_audit_rows_for_success_and_failure(self):
        email = unique_email("login-audit")
        uid = make_user(email)
        secret = "Audit@Pw-" + uuid.uuid4().hex
        ok_ua = "itest-ok/" + uuid.uuid4().hex
        bad_ua = "itest-bad/" + uuid.uuid4().hex
        unknown_ua = "itest-unknown/" + uuid.uuid4().hex
        inactive_ua = "itest-inactive/" + uuid.uuid4().hex
        invalid_ua = "itest-invalid/" + uuid.uuid4().hex
        inactive = unique_email("login-audit-inactive")
        inactive_id = make_user(inactive, active=0)

        token = self.assertSuccess(login(email, PASSWORD, ua=ok_ua), uid, email, "Ann", "Lee", "user")
        self.assertReply(login(email, secret, ua=bad_ua), 401, INVALID_CREDENTIALS)
        self.assertReply(login(unique_email("login-audit-nobody"), secret, ua=unknown_ua), 401, INVALID_CREDENTIALS)
        self.assertReply(login(inactive, PASSWORD, ua=inactive_ua), 401, INVALID_CREDENTIALS)
        self.assertValidation(login("not-an-email", secret, ua=invalid_ua), "email")

        self.assertEqual(audit_rows(ok_ua), [["login_ok", str(uid), "127.0.0.1", ok_ua, "svc_users"]])
        self.assertEqual(audit_rows(bad_ua), [["login_failed", str(uid), "127.0.0.1", bad_ua, "svc_users"]])
        self.assertEqual(audit_rows(unknown_ua), [["login_failed", None, "127.0.0.1", unknown_ua, "svc_users"]])
        self.assertEqual(audit_rows(inactive_ua),
                         [["login_failed", str(inactive_id), "127.0.0.1", inactive_ua, "svc_users"]])
        self.assertEqual(audit_rows(invalid_ua), [])  # a 400 is not a login attempt

        # No audit row holds a password or a token (all text columns, all rows).
        needles = [secret, PASSWORD, token["access_token"].split(".")[2], token["refresh_token"].split(".")[2],
                   token["access_token"].split(".")[1][:40]]
        for needle in needles:
            hits = sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE LOCATE(%s, CONCAT_WS('|', event, auth_table, "
                             "ip, user_agent, request_id, detail)) > 0" % q(needle))
            self.assertEqual(hits, "0", needle)
        # Nor does the service's own log.
        with open(os.path.join(svc_stack.STACK_DIR, "svc-fcgi.log"), encoding="utf-8", errors="replace") as f:
            log = f.read()
        for needle in needles:
            self.assertNotIn(needle, log)
        clear_throttle(email)
        clear_throttle(inactive)


if __name__ == "__main__":
    svc_stack.main()

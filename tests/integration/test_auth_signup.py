"""POST /auth/sign-up through nginx + workers + MariaDB, as transcripts:
request -> exact reply -> rows that must exist afterwards.

Covers: the success shape (user without role); the stored Argon2id hash,
checked with PHP's password_verify; the svc_versions row whose snapshot holds
no secret; the sign_up audit row; the strength rule with its requirements
object, table-driven over passwords missing each class; name lengths counted
in characters; 409 for a taken e-mail in any letter case; mass-assignment
fields ignored; the 1024-byte password bound; authTable svc_staff (not open
for sign-up) and the allowlist; validation errors field by field.
"""

import json
import subprocess
import uuid

import svc_stack
from svc_stack import ApiTest, post, q, sql, sql_value, unique_email

STRONG = "Sign@Up2026"
WEAK = "Password does not meet security requirements"
TAKEN = {"status": "Failed", "message": "User with this email already exists"}
REQUIREMENT_KEYS = ("minLength", "hasUpperCase", "hasLowerCase", "hasNumber", "hasSpecialChar")


def php_password_verify(password, stored):
    out = subprocess.run(["php", "-r", '$in = json_decode(stream_get_contents(STDIN), true);'
                                       'echo password_verify($in[0], $in[1]) ? "yes" : "no";'],
                         input=json.dumps([password, stored]), capture_output=True, text=True, check=True,
                         timeout=30).stdout
    return out == "yes"


def sign_up(body, ua=None):
    return post("/auth/sign-up", body, headers={"User-Agent": ua} if ua else None)


def names(email, table="svc_users"):
    """(first_name, last_name) read as bytes: svc_stack.sql's client charset is utf8mb3 (4-byte chars become ?)."""
    row = sql("SELECT HEX(first_name), HEX(last_name) FROM %s WHERE user_email = %s" % (table, q(email)))[0]
    return tuple(bytes.fromhex(h or "").decode("utf-8") for h in row)


def user_row(email, table="svc_users"):
    rows = sql("SELECT id, user_email, password, first_name, last_name, primary_role, active, token_version "
               "FROM %s WHERE user_email = %s" % (table, q(email)))
    return rows[0] if rows else None


class SignUpTest(ApiTest):

    def assertSignedUp(self, reply, email, first="", last=""):
        token = self.assertTokenReply(reply)
        user = token["user"]
        self.assertEqual(set(user), {"id", "email", "firstName", "lastName"}, reply)  # no role
        self.assertIsInstance(user["id"], int)
        self.assertEqual((user["email"], user["firstName"], user["lastName"]), (email, first, last))
        return token

    def assertWeak(self, reply, **expected):
        self.assertEqual(reply.status, 400, reply)
        self.assertEqual(set(reply.json), {"status", "message", "requirements"}, reply)
        self.assertEqual(reply.json["status"], "Failed")
        self.assertEqual(reply.json["message"], WEAK)
        req = reply.json["requirements"]
        self.assertEqual(set(req), set(REQUIREMENT_KEYS), reply)
        for key in REQUIREMENT_KEYS:
            self.assertIs(req[key], expected.get(key, True), (key, reply))

    # --- success ---------------------------------------------------------------

    def test_sign_up_stores_user_version_and_audit(self):
        email = unique_email("signup-ok")
        ua = "itest-signup/" + uuid.uuid4().hex
        reply = sign_up({"email": email, "password": STRONG, "firstname": "Ada", "lastname": "Lovelace",
                         "appID": 1}, ua=ua)
        token = self.assertSignedUp(reply, email, "Ada", "Lovelace")
        uid = token["user"]["id"]

        row = user_row(email)
        self.assertIsNotNone(row)
        self.assertEqual(row[0], str(uid))
        self.assertEqual(row[1:2] + row[3:], [email, "Ada", "Lovelace", "user", "1", "0"])
        stored = row[2]
        self.assertTrue(stored.startswith("$argon2id$"), stored)
        self.assertNotIn(STRONG, stored)
        self.assertTrue(php_password_verify(STRONG, stored))
        self.assertFalse(php_password_verify(STRONG + "x", stored))

        versions = sql("SELECT table_name, record_id, action, snapshot FROM svc_versions "
                       "WHERE table_name = 'svc_users' AND record_id = %d" % uid)
        self.assertEqual(len(versions), 1, versions)
        self.assertEqual(versions[0][:3], ["svc_users", str(uid), "insert"])
        snapshot = json.loads(versions[0][3])
        self.assertIsInstance(snapshot, dict)
        self.assertEqual(snapshot.get("user_email"), email)
        for key in snapshot:
            self.assertNotIn("password", key.lower())
            self.assertNotIn("hash", key.lower())
        self.assertNotIn(STRONG, versions[0][3])
        self.assertNotIn(stored, versions[0][3])
        self.assertNotIn("$argon2", versions[0][3])

        audit = sql("SELECT event, user_id, ip, user_agent, auth_table, COALESCE(detail, '') FROM svc_audit_log "
                    "WHERE user_agent = %s" % q(ua))
        self.assertEqual(audit, [["sign_up", str(uid), "127.0.0.1", ua, "svc_users", ""]])

        # The new account logs in with the password it chose.
        login = post("/auth/login", {"email": email, "password": STRONG})
        self.assertReply(login, 200)
        self.assertEqual(login.json["token"]["user"], {"id": uid, "email": email, "firstName": "Ada",
                                                       "lastName": "Lovelace", "role": "user"})

    def test_names_are_optional(self):
        email = unique_email("signup-noname")
        token = self.assertSignedUp(sign_up({"email": email, "password": STRONG}), email, "", "")
        row = user_row(email)
        self.assertEqual((row[0], row[3], row[4]), (str(token["user"]["id"]), "", ""))

    def test_extra_fields_are_ignored(self):
        email = unique_email("signup-mass")
        taken_999 = sql_value("SELECT user_email FROM svc_users WHERE id = 999")
        reply = sign_up({"email": email, "password": STRONG, "role": "admin", "primary_role": "admin", "id": 999,
                         "token_version": 7, "active": 0, "user_email": "other@example.com", "mobile": "+15550000"})
        token = self.assertSignedUp(reply, email)
        row = user_row(email)
        self.assertEqual(row[0], str(token["user"]["id"]))
        self.assertEqual((row[5], row[6], row[7]), ("user", "1", "0"))
        if taken_999 is None:
            self.assertNotEqual(row[0], "999")
        self.assertEqual(sql_value("SELECT user_email FROM svc_users WHERE id = 999"),
                         taken_999 if row[0] != "999" else email)
        self.assertIsNone(sql_value("SELECT mobile FROM svc_users WHERE id = %s" % row[0]))
        self.assertIsNone(user_row("other@example.com"))
        login = post("/auth/login", {"email": email, "password": STRONG})
        self.assertReply(login, 200)
        self.assertEqual(login.json["token"]["user"]["role"], "user")

    # --- 409 --------------------------------------------------------------------

    def test_taken_email_is_409_in_any_case(self):
        email = unique_email("signup-dup")
        first = sign_up({"email": email, "password": STRONG, "firstname": "One"})
        self.assertSignedUp(first, email, "One")
        before = user_row(email)
        versions_before = sql_value("SELECT COUNT(*) FROM svc_versions WHERE table_name = 'svc_users' AND "
                                    "record_id = %s" % before[0])
        for variant in (email, email.upper(), email[0].upper() + email[1:]):
            with self.subTest(variant):
                reply = sign_up({"email": variant, "password": "Other@Pass9", "firstname": "Two"})
                self.assertReply(reply, 409, TAKEN)
        self.assertEqual(user_row(email), before)  # password and names unchanged
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "1")
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_versions WHERE table_name = 'svc_users' AND "
                                   "record_id = %s" % before[0]), versions_before)

    def test_concurrent_sign_ups_of_one_email(self):
        import concurrent.futures
        email = unique_email("signup-race")
        variants = [email, email.upper()] * 4
        with concurrent.futures.ThreadPoolExecutor(len(variants)) as pool:
            replies = list(pool.map(lambda e: sign_up({"email": e, "password": STRONG}), variants))
        statuses = sorted(r.status for r in replies)
        self.assertEqual(statuses, [200] + [409] * (len(variants) - 1), replies)
        for r in replies:
            if r.status == 409:
                self.assertEqual(r.json, TAKEN)
        winner = [r for r in replies if r.status == 200][0].json["token"]["user"]["id"]
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users WHERE user_email = %s" % q(email)), "1")
        self.assertEqual(sql("SELECT record_id FROM svc_versions WHERE table_name = 'svc_users' AND "
                             "LOWER(JSON_VALUE(snapshot, '$.user_email')) = %s" % q(email.lower())), [[str(winner)]])

    # --- password strength ------------------------------------------------------------

    def test_strength_rule_reports_each_missing_class(self):
        cases = [
            ("no upper", "abcd@1234", {"hasUpperCase": False}),
            ("no lower", "ABCD@1234", {"hasLowerCase": False}),
            ("no digit", "Abcd@efgh", {"hasNumber": False}),
            ("no special", "Abcd12345", {"hasSpecialChar": False}),
            ("special not in the set (#)", "Abcd#1234", {"hasSpecialChar": False}),
            ("special not in the set (space, dash, dot)", "Abc d-1.4", {"hasSpecialChar": False}),
            ("too short", "Ab@1xyz", {"minLength": False}),
            ("too short, one char", "A", {"minLength": False, "hasLowerCase": False, "hasNumber": False,
                                           "hasSpecialChar": False}),
            ("only digits", "12345678", {"hasUpperCase": False, "hasLowerCase": False,
                                         "hasSpecialChar": False}),
            ("only specials", "@$!%*?&@", {"hasUpperCase": False, "hasLowerCase": False, "hasNumber": False}),
            ("6 characters in 8 bytes", "A@1aéé", {"minLength": False}),
        ]
        for label, password, expected in cases:
            with self.subTest(label):
                email = unique_email("signup-weak")
                self.assertWeak(sign_up({"email": email, "password": password}), **expected)
                self.assertIsNone(user_row(email))

    def test_each_special_character_is_accepted(self):
        for special in "@$!%*?&":
            with self.subTest(special):
                email = unique_email("signup-special")
                self.assertSignedUp(sign_up({"email": email, "password": "Abcd123" + special}), email)

    def test_password_over_1024_bytes_is_400(self):
        strong_1024 = "Aa1@" + "x" * 1020
        strong_1025 = "Aa1@" + "x" * 1021
        email = unique_email("signup-long")
        for pw in (strong_1025, "Aa1@" + "é" * 511, "Aa1@" * 5000):
            with self.subTest(len(pw.encode())):
                reply = sign_up({"email": email, "password": pw})
                self.assertValidation(reply, "password")
                self.assertEqual([e["field"] for e in reply.json["errors"]], ["password"], reply)
        self.assertIsNone(user_row(email))
        self.assertSignedUp(sign_up({"email": email, "password": strong_1024}), email)
        self.assertTrue(php_password_verify(strong_1024, user_row(email)[2]))

    # --- names ------------------------------------------------------------------------

    def test_names_are_at_most_50_characters(self):
        email = unique_email("signup-names")
        for field in ("firstname", "lastname"):
            for value in ("x" * 51, "é" * 51, "😀" * 51):
                with self.subTest(field=field, value=value[:3]):
                    reply = sign_up({"email": email, "password": STRONG, field: value})
                    self.assertValidation(reply, field)
                    self.assertEqual([e["field"] for e in reply.json["errors"]], [field], reply)
        self.assertIsNone(user_row(email))
        # 50 characters of two and four bytes each are fine and stored exactly.
        reply = sign_up({"email": email, "password": STRONG, "firstname": "é" * 50, "lastname": "😀" * 50})
        self.assertSignedUp(reply, email, "é" * 50, "😀" * 50)
        self.assertEqual(names(email), ("é" * 50, "😀" * 50))

    def test_names_must_be_strings(self):
        email = unique_email("signup-nametype")
        for field in ("firstname", "lastname"):
            for value in (42, {"a": 1}, ["x"], True):
                with self.subTest(field=field, value=value):
                    reply = sign_up({"email": email, "password": STRONG, field: value})
                    self.assertValidation(reply, field)
        self.assertIsNone(user_row(email))

    # --- validation ---------------------------------------------------------------------

    def test_validation_errors_name_the_field(self):
        good = unique_email("signup-val")
        cases = [
            ("nothing", {}, ["email", "password"]),
            ("bad e-mail", {"email": "not-an-email", "password": STRONG}, ["email"]),
            ("e-mail without domain dot", {"email": "a@localhost", "password": STRONG}, ["email"]),
            ("number e-mail", {"email": 7, "password": STRONG}, ["email"]),
            ("no password", {"email": good}, ["password"]),
            ("empty password", {"email": good, "password": ""}, ["password"]),
            ("object password", {"email": good, "password": {"a": STRONG}}, ["password"]),
            ("number password", {"email": good, "password": 123456789}, ["password"]),
            ("appID abc", {"email": good, "password": STRONG, "appID": "abc"}, ["appID"]),
            ("e-mail too long", {"email": "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 63 + ".com",
                                 "password": STRONG}, ["email"]),
        ]
        for label, body, fields in cases:
            with self.subTest(label):
                reply = sign_up(body)
                self.assertValidation(reply, *fields)
                self.assertEqual(set(reply.json), {"status", "message", "errors"}, reply)
                self.assertEqual(sorted({e["field"] for e in reply.json["errors"]}), sorted(fields), reply)
        self.assertIsNone(user_row(good))

    # --- authTable ---------------------------------------------------------------------

    def test_sign_up_into_a_table_not_open_for_sign_up_is_400(self):
        # Issue 22: svc_staff is in [auth] tables (login, reset) but not in
        # signup_tables (the stack keeps the default: the first table only).
        # Ids overlap between tables, so a public sign-up there would hand
        # out a staff account whose id is some svc_users user's id.
        email = unique_email("signup-staff")
        count = sql_value("SELECT COUNT(*) FROM svc_staff")
        reply = sign_up({"email": email, "password": STRONG, "authTable": "svc_staff"})
        self.assertReply(reply, 400, {"status": "Failed", "message": "Validation error",
                                      "errors": [{"field": "authTable",
                                                  "message": "authTable is not open for sign-up"}]})
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_staff"), count)
        self.assertIsNone(user_row(email, "svc_staff"))
        self.assertIsNone(user_row(email))
        # The default table, named or not, stays open.
        self.assertSignedUp(sign_up({"email": email, "password": STRONG, "authTable": "svc_users"}), email)

    def test_a_staff_account_made_by_the_admin_logs_in_to_its_table(self):
        email = unique_email("signup-staff-admin")
        uid = int(svc_stack.admin("user", "create", "--email", email, "--first", "St", "--last", "Aff",
                                  "--table", "svc_staff", stdin=STRONG + "\n").stdout.strip().splitlines()[-1])
        row = user_row(email, "svc_staff")
        self.assertEqual(row[0], str(uid))
        self.assertTrue(php_password_verify(STRONG, row[2]))
        reply = post("/auth/login", {"email": email, "password": STRONG, "authTable": "svc_staff"})
        self.assertEqual(self.assertTokenReply(reply)["user"]["id"], uid)

    def test_authtable_outside_the_allowlist_is_400(self):
        email = unique_email("signup-table")
        count = sql_value("SELECT COUNT(*) FROM svc_users")
        for value in ("svc_users; DROP TABLE svc_users", "`svc_users`", "information_schema.tables",
                      "svc_users --", "SVC_USERS", "../svc_users", "svc_sites", "x" * 10240, 5):
            with self.subTest(authTable=repr(value)[:40]):
                reply = sign_up({"email": email, "password": STRONG, "authTable": value})
                self.assertValidation(reply, "authTable")
                self.assertEqual([e["field"] for e in reply.json["errors"]], ["authTable"], reply)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_users"), count)
        self.assertIsNone(user_row(email))


if __name__ == "__main__":
    svc_stack.main()

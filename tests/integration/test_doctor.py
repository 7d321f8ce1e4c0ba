"""svc-admin doctor against the local stack: a deployment where every check
passes (exit 0), then one deliberate fault at a time, each of which must
flip its own row (and only that row) to FAIL and the exit status to 1.

The checks run on a database of their own (svc_doctor, migrated here) so the
rows that read data do not depend on what other tests left in `svc`; the
stack's SMTP sink, SMS sink, FastCGI socket and the tree's nginx snippet are
the real peers.
"""

import os
import re
import socket
import subprocess
import tempfile
import unittest

from svc_stack import BIN_DIR, CONFIG, SOURCE_DIR, STACK_DIR, sql
import runner

DB = "svc_doctor"
SNIPPET = os.path.join(SOURCE_DIR, "nginx", "snippets", "svc-locations.conf")
# The stack's front secret include (scripts/stack.sh writes it, 0600).
FRONT_SECRET_INCLUDE = os.path.join(STACK_DIR, "svc-front-secret.conf")
SQL_DIR = os.path.join(SOURCE_DIR, "sql")
ROW = re.compile(r"^(\S.*?)\s{2,}(ok|FAIL|skip|warn)\s{2,}(.*)$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def set_key(text, section, key, value):
    """The INI text with `key` of `section` set to value (added when absent)."""
    lines = text.splitlines()
    start = lines.index("[%s]" % section)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    for i in range(start + 1, end):
        if re.match(r"\s*%s\s*=" % re.escape(key), lines[i]):
            lines[i] = "%s = %s" % (key, value)
            return "\n".join(lines) + "\n"
    lines.insert(start + 1, "%s = %s" % (key, value))
    return "\n".join(lines) + "\n"


class Doctor(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="doctor-", dir=STACK_DIR)
        with open(CONFIG) as f:
            base = f.read()
        base = set_key(base, "database", "name", DB)
        # A production-like file: the stack's test-only settings off (the
        # `settings` row warns while they are on: test_settings_are_reported).
        base = set_key(base, "server", "test_mode", "false")
        base = set_key(base, "push", "allow_insecure_endpoints", "false")
        cls.base = set_key(base, "database.merge", "name", DB)
        cls.conf = cls.write("good.conf", cls.base)
        sql("DROP DATABASE IF EXISTS %s" % DB, database="mysql")
        sql("CREATE DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" % DB, database="mysql")
        sql("GRANT ALL PRIVILEGES ON %s.* TO 'svc'@'localhost'" % DB, database="mysql")
        cls.admin("migrate", "--sql-dir", SQL_DIR)
        sql("GRANT SELECT ON %s.svc_folders TO 'svc_merge'@'localhost'" % DB, database="mysql")
        cls.admin("site", "create", "--user-pool", "default", "--name", "Doctor", "--api-key", "doctor-site-key-0123456789",
                  "--email-from", "Doctor <doctor@example.org>")

    @classmethod
    def tearDownClass(cls):
        sql("REVOKE SELECT ON %s.svc_folders FROM 'svc_merge'@'localhost'" % DB, database="mysql")
        sql("REVOKE ALL PRIVILEGES ON %s.* FROM 'svc'@'localhost'" % DB, database="mysql")
        sql("DROP DATABASE IF EXISTS %s" % DB, database="mysql")

    @classmethod
    def write(cls, name, text):
        path = os.path.join(cls.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o600)
        return path

    @classmethod
    def admin(cls, *args, conf=None):
        return subprocess.run([os.path.join(BIN_DIR, "svc-admin"), "--config", conf or cls.conf] + list(args),
                              capture_output=True, text=True, check=True)

    def doctor(self, *args, conf=None):
        result = subprocess.run(
            [os.path.join(BIN_DIR, "svc-admin"), "--config", conf or self.conf, "doctor",
             "--nginx-snippet", SNIPPET, "--nginx-front-secret", FRONT_SECRET_INCLUDE, "--sql-dir", SQL_DIR, "--timeout", "3"] + list(args),
            capture_output=True, text=True, timeout=60)
        rows = {}
        for line in result.stdout.splitlines()[1:]:
            m = ROW.match(line)
            if m:
                rows[m.group(1)] = (m.group(2), m.group(3))
        self.assertTrue(rows, result.stdout + result.stderr)
        return result.returncode, rows, result.stdout

    def assert_only_failure(self, name, detail_pattern, *args, conf=None):
        code, rows, out = self.doctor(*args, conf=conf)
        failed = sorted(k for k, (status, _) in rows.items() if status != "ok")
        self.assertEqual(failed, [name], out)
        self.assertRegex(rows[name][1], detail_pattern, out)
        self.assertIn("fix: ", out)
        self.assertEqual(code, 1, out)

    def test_healthy_deployment_passes_every_row(self):
        code, rows, out = self.doctor()
        expected = {"config", "keys", "settings", "front secret", "access tokens", "database", "database.merge",
                    "migrations", "signing keys", "site keys", "site senders", "templates", "sender",
                    "pending", "bounces", "smtp", "sms", "nginx", "fastcgi", "fastcgi hashing",
                    "fastcgi outbound", "breached list", "webhooks"}
        self.assertEqual(set(rows), expected, out)
        self.assertEqual({k for k, (status, _) in rows.items() if status != "ok"}, set(), out)
        self.assertEqual(code, 0, out)
        self.assertNotIn("fix:", out)

    def test_the_operations_guide_documents_every_row_and_result(self):
        # Issue 48: docs/operations.md's table lacked rows the doctor prints
        # (breached list, bounces, webhooks) and the `warn` result.
        with open(os.path.join(SOURCE_DIR, "docs", "operations.md"), encoding="utf-8") as f:
            guide = f.read()
        section = guide.split("## svc-admin doctor", 1)[1].split("\n## ", 1)[0]
        documented = set()
        for line in section.splitlines():
            if line.startswith("| `"):
                documented.update(re.findall(r"`([^`]+)`", line.split("|")[1]))
        _, rows, out = self.doctor()
        self.assertEqual(sorted(set(rows) - documented), [], out)
        self.assertEqual(sorted(documented - set(rows)), [], "rows the doctor no longer prints")
        for result in ("ok", "FAIL", "warn", "skip"):
            self.assertIn("`%s`" % result, section, result)
        self.assertIn("every row is `ok` or `warn`", " ".join(section.split()))

    def test_smtp_sink_port_wrong(self):
        conf = self.write("smtp.conf", set_key(self.base, "smtp", "port", str(free_port())))
        self.assert_only_failure("smtp", r"(?i)connect", conf=conf)

    def test_fastcgi_socket_path_wrong(self):
        self.assert_only_failure("fastcgi", r"No such file", "--socket", os.path.join(self.tmp, "none.sock"))

    def test_fastcgi_stale_socket_file_refuses(self):
        path = os.path.join(self.tmp, "stale.sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(path)  # bound, never listening: what a dead master leaves behind
        try:
            self.assert_only_failure("fastcgi", r"Connection refused", "--socket", path)
        finally:
            s.close()
            os.unlink(path)

    def test_keyless_site(self):
        self.admin("site", "create", "--user-pool", "default", "--id", "4242", "--name", "Keyless", "--api-key", "none", "--domain", "keyless.example")
        try:
            self.assert_only_failure("site keys", r"4242 Keyless")
        finally:
            sql("DELETE FROM svc_sites WHERE id = 4242", database=DB)
        self.assertEqual(self.doctor()[0], 0)

    def test_site_without_sender(self):
        """Issue 36: a site whose mail would leave with an empty From: (made
        before site create required a sender, or by hand) fails its row; one
        that sends no mail, or is inactive, does not."""
        sql("INSERT INTO svc_sites (id, name, domain, active, disable_email, api_key_hash, email_from) VALUES"
            " (4243, 'Silent', 'silent.example', 1, 0, 'x', ' '), (4244, 'Quiet', '', 1, 1, 'x', ''),"
            " (4245, 'Off', '', 0, 0, 'x', '')", database=DB)
        try:
            self.assert_only_failure("site senders", r"^active sites that send mail without a sender "
                                                     r"\(empty From:\): 4243 Silent$")
            self.assertIn("fix: svc-admin site set --site ID --email-from", self.doctor()[2])
            sql("UPDATE svc_sites SET email_from = 'Silent <no-reply@silent.example>' WHERE id = 4243", database=DB)
            code, rows, out = self.doctor()
            self.assertEqual(rows["site senders"], ("ok", "every active site that mails has a sender"), out)
            self.assertEqual(code, 0, out)
        finally:
            sql("DELETE FROM svc_sites WHERE id IN (4243, 4244, 4245)", database=DB)

    def test_old_pending_row_then_sender_not_running(self):
        sql("INSERT INTO svc_notification_log (site_id, event, recipient, body, status, created_at, next_attempt_at)"
            " VALUES (1, 'doctor', 'a@example.org', 'x', 'Pending', NOW() - INTERVAL 2 HOUR,"
            " NOW() + INTERVAL 1 HOUR)", database=DB)
        try:
            # In backoff (due later): old, but not the sender's fault.
            self.assert_only_failure("pending", r"oldest Pending row is \d+s old")
            sql("UPDATE svc_notification_log SET next_attempt_at = NOW() - INTERVAL 20 MINUTE", database=DB)
            code, rows, out = self.doctor()
            self.assertEqual(rows["sender"][0], "FAIL", out)
            self.assertRegex(rows["sender"][1], r"waited \d+s unclaimed")
            self.assertEqual(code, 1)
            self.assertEqual(self.doctor("--max-pending-age", "3h", "--sender-max-age", "1h")[0], 0)
        finally:
            sql("DELETE FROM svc_notification_log", database=DB)

    def test_sender_last_run_too_old(self):
        sql("INSERT INTO svc_sender_status (id, last_run_at, last_success_at) VALUES"
            " (1, NOW() - INTERVAL 2 HOUR, NOW() - INTERVAL 2 HOUR)", database=DB)
        try:
            self.assert_only_failure("sender", r"has not run for \d+s")
            sql("UPDATE svc_sender_status SET last_run_at = NOW() WHERE id = 1", database=DB)
            code, rows, out = self.doctor()
            self.assertEqual(rows["sender"][0], "ok", out)
            self.assertRegex(rows["sender"][1], r"last run ended \d+s ago")
        finally:
            sql("DELETE FROM svc_sender_status", database=DB)

    def test_a_webhook_endpoint_that_keeps_failing(self):
        """Issue 40: an enabled endpoint with [webhooks] failing_after (5)
        failed attempts since its last success fails the row; fewer, or a
        disabled one, do not."""
        sql("INSERT INTO svc_webhook_endpoints (id, site_id, url, events, secret, enabled, failures, created_at)"
            " VALUES (77, 1, 'https://hooks.example/svc', 'user.created', 'x', 1, 4, UNIX_TIMESTAMP()),"
            " (78, 1, 'https://gone.example/svc', 'user.created', 'x', 0, 50, UNIX_TIMESTAMP())", database=DB)
        try:
            code, rows, out = self.doctor()
            self.assertEqual(rows["webhooks"], ("ok", "no enabled endpoint has failed 5 attempts in a row"), out)
            self.assertEqual(code, 0, out)
            sql("UPDATE svc_webhook_endpoints SET failures = 5 WHERE id = 77", database=DB)
            self.assert_only_failure("webhooks", r"^endpoints failing 5 or more attempts in a row: "
                                                 r"77 \(site 1, 5 failures, https://hooks\.example/svc\)$")
            self.assertIn("fix: svc-admin webhook deliveries --site N", self.doctor()[2])
        finally:
            sql("DELETE FROM svc_webhook_endpoints WHERE id IN (77, 78)", database=DB)

    def test_migration_missing(self):
        row = sql("SELECT version, name, checksum FROM svc_schema_migrations ORDER BY version DESC LIMIT 1",
                  database=DB)[0]
        sql("DELETE FROM svc_schema_migrations WHERE version = %s" % row[0], database=DB)
        try:
            self.assert_only_failure("migrations", r"not applied: " + re.escape(row[1]))
        finally:
            sql("INSERT INTO svc_schema_migrations (version, name, checksum) VALUES (%s, '%s', '%s')" % tuple(row),
                database=DB)

    def test_merge_account_may_read_sites(self):
        sql("GRANT SELECT ON %s.svc_sites TO 'svc_merge'@'localhost'" % DB, database="mysql")
        try:
            self.assert_only_failure("database.merge", r"may read svc_sites")
        finally:
            sql("REVOKE SELECT ON %s.svc_sites FROM 'svc_merge'@'localhost'" % DB, database="mysql")

    def test_weak_and_duplicate_keys(self):
        weak = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE"  # base64url of 32 x 'a'
        conf = self.write("weak.conf", set_key(self.base, "keys", "sms_key", weak))
        self.assert_only_failure("keys", r"sms_key looks weak", conf=conf)
        id_key = re.search(r"(?m)^id_key = (\S+)", self.base).group(1)
        conf = self.write("dup.conf", set_key(self.base, "keys", "reset_key", id_key))
        self.assert_only_failure("keys", r"reset_key equals id_key", conf=conf)

    def test_legacy_hs256_access_tokens_fail_their_row(self):
        conf = self.write("hs256.conf", set_key(self.base, "tokens", "access_alg", "HS256"))
        self.assert_only_failure("access tokens", r"access_alg = HS256: every holder of \[keys\] jwt_secret", conf=conf)

    def test_a_signing_kek_that_does_not_open_the_keys(self):
        # migrate made svc_doctor's first key with the stack's kek.
        other = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWY"  # 32 distinct bytes, base64url
        conf = self.write("kek.conf", set_key(self.base, "keys", "signing_kek", other))
        self.assert_only_failure("signing keys", r"signing_kek does not open", conf=conf)

    def test_sms_gateway_unreachable(self):
        conf = self.write("sms.conf", set_key(self.base, "sms", "url", "http://127.0.0.1:%d/sms" % free_port()))
        self.assert_only_failure("sms", r"127\.0\.0\.1", conf=conf)

    def assert_only_warning(self, name, detail_pattern, conf):
        code, rows, out = self.doctor(conf=conf)
        self.assertEqual(sorted(k for k, (status, _) in rows.items() if status != "ok"), [name], out)
        self.assertEqual(rows[name][0], "warn", out)
        self.assertRegex(rows[name][1], detail_pattern, out)
        self.assertIn("fix: remove test_mode", out)
        self.assertEqual(code, 0, out)  # a test machine's configuration (issue 30)

    def test_test_settings_are_reported(self):
        conf = self.write("test-mode.conf", set_key(self.base, "server", "test_mode", "true"))
        self.assert_only_warning("settings", r"^\[server\] test_mode = true: a test configuration$", conf=conf)
        conf = self.write("insecure.conf", set_key(set_key(self.base, "server", "test_mode", "true"), "push",
                                                   "allow_insecure_endpoints", "true"))
        self.assert_only_warning("settings", r"allow_insecure_endpoints = true \(no SSRF guard\)", conf=conf)
        code, rows, out = self.doctor()
        self.assertRegex(rows["settings"][1], r"revoked site key stops working within 1 s", out)

    def test_stack_configuration_passes_without_options(self):
        """The stack's own svc.conf and no option, as a newcomer runs it after
        `make run`: its [doctor] section names the stack's nginx files; only
        the settings row warns (a test configuration)."""
        result = subprocess.run([os.path.join(BIN_DIR, "svc-admin"), "--config", CONFIG, "doctor"],
                                capture_output=True, text=True, timeout=60)
        rows = {m.group(1): m.group(2) for m in map(ROW.match, result.stdout.splitlines()[1:]) if m}
        self.assertIn("nginx", rows, result.stdout)
        self.assertIn("front secret", rows, result.stdout)
        not_ok = {k: v for k, v in rows.items() if v != "ok"}
        # Other tests of this shared stack make sites without an API key on
        # purpose (passkey, notification and interop sites); the stack's own
        # data has none: the demo site is never among those named.
        # Likewise sites other tests insert by hand may have no sender.
        failed = False
        for row, problem in (("site keys", "active sites without an API key"),
                             ("site senders", r"active sites that send mail without a sender \(empty From:\)")):
            status = not_ok.pop(row, None)
            if status is None:
                continue
            failed = True
            self.assertEqual(status, "FAIL", result.stdout)
            named = re.search(r"(?m)^%s\s+FAIL\s+%s: (.*)$" % (row, problem), result.stdout)
            self.assertIsNotNone(named, result.stdout)
            self.assertNotIn("1", [part.split()[0] for part in named.group(1).split(", ")], result.stdout)
        self.assertEqual(not_ok, {"settings": "warn"}, result.stdout)
        self.assertEqual(result.returncode, 1 if failed else 0, result.stdout + result.stderr)

    def test_front_secret_include_wrong_or_open(self):
        other = os.path.join(self.tmp, "other-front-secret.conf")
        with open(other, "w") as f:
            f.write('fastcgi_param  SVC_FRONT_SECRET  "%s";\n' % ("x" * 43))
        os.chmod(other, 0o600)
        self.assert_only_failure("front secret", r"does not pass \[server\] front_secret_file's secret",
                                 "--nginx-front-secret", other)
        with open(FRONT_SECRET_INCLUDE) as f:
            text = f.read()
        with open(other, "w") as f:
            f.write(text)
        os.chmod(other, 0o644)
        self.assert_only_failure("front secret", r"readable by other users", "--nginx-front-secret", other)
        self.assert_only_failure("front secret", r"missing", "--nginx-front-secret",
                                 os.path.join(self.tmp, "none.conf"))

    def test_nginx_snippet_missing(self):
        self.assert_only_failure("nginx", r"missing", "--nginx-snippet", os.path.join(self.tmp, "none.conf"))

    def test_invalid_config_skips_the_rest(self):
        conf = self.write("bad.conf", set_key(self.base, "server", "wokers", "2"))
        code, rows, out = self.doctor(conf=conf)
        self.assertEqual(rows["config"][0], "FAIL", out)
        self.assertIn("unknown configuration key [server] wokers", rows["config"][1])
        self.assertEqual(code, 1)
        self.assertEqual(rows["nginx"][0], "ok", out)  # still checked: needs no configuration
        self.assertNotIn("smtp", rows)


if __name__ == "__main__":
    runner.main()

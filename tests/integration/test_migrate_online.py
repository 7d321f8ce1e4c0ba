"""svc-admin migrate refuses a pending statement that would copy or lock a
table larger than --max-blocking-rows (unless --allow-blocking), names the
statement and why, and applies nothing; --dry-run prints what would run.
A statement that states ALGORITHM=INSTANT or LOCK=NONE runs on the same
table. An applied migration that only gained ALGORITHM/LOCK clauses keeps
counting as applied, and migrate records its new checksum.

Runs on a database of its own (svc_migrate_online), migrated here with the
tree's sql/ and then a test-only sql dir: the tree's files plus one test
migration at a time. The large table is a real InnoDB table of 60 rows;
the test passes --max-blocking-rows 50 (the default is 100,000).
"""

import hashlib
import os
import re
import subprocess
import tempfile
import unittest

from svc_stack import BIN_DIR, CONFIG, SOURCE_DIR, STACK_DIR, sql
from test_doctor import set_key
import runner

DB = "svc_migrate_online"
SQL_DIR = os.path.join(SOURCE_DIR, "sql")
ROWS = 60
LIMIT = "50"


def checksum(text):
    """What svc-admin records: BLAKE2b-128 (libsodium generichash) of the file, hex."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def columns(table):
    return [r[0] for r in sql("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '%s' "
                              "AND TABLE_NAME = '%s' ORDER BY ORDINAL_POSITION" % (DB, table), database=DB)]


def recorded(version):
    rows = sql("SELECT checksum FROM svc_schema_migrations WHERE version = %d" % version, database=DB)
    return rows[0][0] if rows else None


class MigrateOnline(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="migrate-online-", dir=STACK_DIR)
        with open(CONFIG) as f:
            conf = set_key(f.read(), "database", "name", DB)
        cls.conf = os.path.join(cls.tmp, "svc.conf")
        with open(cls.conf, "w") as f:
            f.write(conf)
        os.chmod(cls.conf, 0o600)
        sql("DROP DATABASE IF EXISTS %s" % DB, database="mysql")
        sql("CREATE DATABASE %s CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci" % DB, database="mysql")
        sql("GRANT ALL PRIVILEGES ON %s.* TO 'svc'@'localhost'" % DB, database="mysql")
        first = cls.migrate("--sql-dir", SQL_DIR)
        assert first.returncode == 0, first.stdout + first.stderr
        sql("CREATE TABLE big_probe (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
            database=DB)
        sql("INSERT INTO big_probe (v) SELECT seq FROM seq_1_to_%d" % ROWS, database=DB)

    @classmethod
    def tearDownClass(cls):
        sql("REVOKE ALL PRIVILEGES ON %s.* FROM 'svc'@'localhost'" % DB, database="mysql")
        sql("DROP DATABASE IF EXISTS %s" % DB, database="mysql")

    @classmethod
    def migrate(cls, *args):
        return subprocess.run([os.path.join(BIN_DIR, "svc-admin"), "--config", cls.conf, "migrate"] + list(args),
                              capture_output=True, text=True, timeout=120)

    def sql_dir_with(self, name, text):
        """A sql dir: the tree's migrations plus `name` holding `text`."""
        d = tempfile.mkdtemp(prefix="sql-", dir=self.tmp)
        for f in os.listdir(SQL_DIR):
            if f.endswith(".sql"):
                os.symlink(os.path.join(SQL_DIR, f), os.path.join(d, f))
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        return d

    def test_blocking_alter_on_a_large_table_is_refused(self):
        statement = "ALTER TABLE big_probe\n  ADD COLUMN note VARCHAR(20) NULL;\n"
        d = self.sql_dir_with("901_blocking.sql", "-- a test migration\n" + statement)
        result = self.migrate("--sql-dir", d, "--max-blocking-rows", LIMIT)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("901_blocking.sql", result.stderr)
        self.assertIn("ALTER TABLE big_probe ADD COLUMN note VARCHAR(20) NULL;", result.stderr)
        self.assertIn("no ALGORITHM=INSTANT or LOCK=NONE", result.stderr)
        self.assertIn("--max-blocking-rows 50", result.stderr)
        self.assertIn("nothing applied", result.stderr)
        self.assertNotIn("note", columns("big_probe"))
        self.assertIsNone(recorded(901))

        # The dry run prints the statement and the refusal, and applies nothing.
        dry = self.migrate("--sql-dir", d, "--max-blocking-rows", LIMIT, "--dry-run")
        self.assertEqual(dry.returncode, 0, dry.stdout + dry.stderr)
        self.assertIn("-- 901_blocking.sql\n" + statement, dry.stdout)
        self.assertRegex(dry.stdout, r"would refuse: 901_blocking\.sql: .* on big_probe")
        self.assertIn("1 pending", dry.stdout)
        self.assertNotIn("note", columns("big_probe"))
        self.assertIsNone(recorded(901))

        # Under a threshold the table does not exceed, the same file applies.
        applied = self.migrate("--sql-dir", d, "--max-blocking-rows", str(ROWS))
        self.assertEqual(applied.returncode, 0, applied.stdout + applied.stderr)
        self.assertIn("applying 901_blocking.sql", applied.stdout)
        self.assertIn("note", columns("big_probe"))
        self.assertIsNotNone(recorded(901))

    def test_copy_and_shared_lock_refused_unless_allowed(self):
        cases = [("902_copy.sql", "ALTER TABLE big_probe ADD COLUMN c1 INT NULL, ALGORITHM=COPY;\n", "ALGORITHM=COPY"),
                 ("903_shared.sql", "ALTER TABLE big_probe ADD KEY ix_v (v), ALGORITHM=INPLACE, LOCK=SHARED;\n",
                  "LOCK=SHARED")]
        for name, text, reason in cases:
            with self.subTest(name):
                d = self.sql_dir_with(name, text)
                refused = self.migrate("--sql-dir", d, "--max-blocking-rows", LIMIT)
                self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
                self.assertRegex(refused.stderr, re.escape(name) + r": " + re.escape(reason) + r".* on big_probe")
                self.assertIsNone(recorded(int(name[:3])))
                allowed = self.migrate("--sql-dir", d, "--max-blocking-rows", LIMIT, "--allow-blocking")
                self.assertEqual(allowed.returncode, 0, allowed.stdout + allowed.stderr)
                self.assertIsNotNone(recorded(int(name[:3])))
                os.unlink(os.path.join(d, name))
        self.assertIn("c1", columns("big_probe"))

    def test_online_statements_apply_on_a_large_table(self):
        text = ("ALTER TABLE big_probe ADD COLUMN c2 INT NULL, ALGORITHM=INSTANT;\n"
                "ALTER TABLE big_probe ADD KEY ix_online (v), ALGORITHM=INPLACE, LOCK=NONE;\n"
                "CREATE TABLE online_new (id INT PRIMARY KEY) ENGINE=InnoDB;\n")
        d = self.sql_dir_with("904_online.sql", text)
        result = self.migrate("--sql-dir", d, "--max-blocking-rows", LIMIT)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("applying 904_online.sql", result.stdout)
        self.assertIn("c2", columns("big_probe"))
        self.assertEqual(columns("online_new"), ["id"])

    def test_a_migration_that_gained_online_clauses_stays_applied(self):
        # 003 gained ", ALGORITHM=INSTANT": a database migrated before records
        # the checksum of the text without it.
        with open(os.path.join(SQL_DIR, "003_outbox_claims.sql")) as f:
            text = f.read()
        self.assertIn(", ALGORITHM=INSTANT;", text)
        before = checksum(text.replace(", ALGORITHM=INSTANT;", ";"))
        sql("UPDATE svc_schema_migrations SET checksum = '%s' WHERE version = 3" % before, database=DB)
        result = self.migrate("--sql-dir", SQL_DIR)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("003_outbox_claims.sql gained ALGORITHM/LOCK clauses since it was applied; checksum updated",
                      result.stdout)
        self.assertNotIn("warning", result.stdout)
        self.assertEqual(recorded(3), checksum(text))
        # A change beyond those clauses is still a changed migration.
        sql("UPDATE svc_schema_migrations SET checksum = '%s' WHERE version = 3" % checksum(text + "-- x\n"),
            database=DB)
        changed = self.migrate("--sql-dir", SQL_DIR)
        self.assertIn("warning: 003_outbox_claims.sql changed after it was applied", changed.stdout)
        sql("UPDATE svc_schema_migrations SET checksum = '%s' WHERE version = 3" % checksum(text), database=DB)


if __name__ == "__main__":
    runner.main()

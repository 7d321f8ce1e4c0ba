"""An upgrade without downtime on the local cluster (issue 30,
docs/deploy.md "Upgrades"): svc_users holds SVC_UPGRADE_USERS users
(default 1,000,000, loaded by INSERT ... SELECT from MariaDB's sequence
engine with one precomputed password hash), and mixed load runs through
the front nginx (sign-up, login, refresh, notification) while:

1. `svc-admin migrate` applies the user pools' migration (sql/034, issue
   47: an INSTANT column and a new unique key that replaces the unique
   address, INPLACE LOCK=NONE, on the loaded svc_users; svc_users is put
   back into its shape from before it first, and the app hosts restarted
   so their workers read that shape) and a test migration of the expand
   kinds (an INSTANT column on svc_users, a new table, an INPLACE LOCK=NONE
   index on the outbox) from a test-only sql dir: no request fails, and
   the p99 while it runs stays under 1 s (or, on a machine too loaded for
   that, within three times the p99 before it: the migration does not
   stall) -- except for the time Galera holds writes to svc_users while
   the unique key builds (total order isolation, docs/operations.md
   "Sites and their user pools"), which the bound adds (one and a half times it);
2. app host 1 is drained at the front and restarted (cluster.sh
   restart-app 1) while host 2 serves: no request fails;
3. the workers of app host 1 are killed (kill -9): only requests in flight
   at the kill may fail.

A failure is any reply but 200 and 429, or no reply. A 429 is the login
throttle (one user logs in over and over) or nginx's rate limit doing its
job, whatever the upgrade does; it is counted and printed, not a failure.

Prints requests, failures, p99 and the migration's duration per phase
(docs/cluster.md records them). Bounded: every phase stops at a request
count and a deadline.
"""

import os
import subprocess
import tempfile
import time
import unittest

import cluster_common as C
import runner

USERS = int(os.environ.get("SVC_UPGRADE_USERS", "1000000"))
CHUNK = 100000
BIN_DIR = C.ENV["SVC_BIN_DIR"]
CONFIG = C.ENV["APP1_CONFIG"]
VERSION = 990  # the test migration; removed again at the end
POOLS = 34  # sql/034_user_pools.sql, run again under load
MIGRATION = """-- test migration of the expand kinds (tests/cluster/test_online_upgrade.py)
ALTER TABLE svc_users ADD COLUMN upgrade_probe VARCHAR(32) NULL, ALGORITHM=INSTANT;
CREATE TABLE svc_upgrade_probe (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  note VARCHAR(64) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
ALTER TABLE svc_notification_log ADD KEY ix_svc_log_upgrade_probe (site_id, created_at),
  ALGORITHM=INPLACE, LOCK=NONE;
"""


def failed(r):
    return r[4] not in (200, 429)


def p99(records):
    durations = sorted(r[3] - r[2] for r in records)
    return durations[min(len(durations) - 1, int(len(durations) * 0.99))] if durations else 0.0


def admin(*args, stdin=None):
    return subprocess.run([os.path.join(BIN_DIR, "svc-admin"), "--config", CONFIG] + list(args),
                          input=stdin, capture_output=True, text=True, timeout=600)


def timed_admin(*args):
    """svc-admin with each line of its output timed as it arrives:
    (CompletedProcess, {line: monotonic time})."""
    lines, seen = [], {}
    with subprocess.Popen([os.path.join(BIN_DIR, "svc-admin"), "--config", CONFIG] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stdout:
            seen.setdefault(line.rstrip("\n"), time.monotonic())
            lines.append(line)
        stderr = proc.stderr.read()
        proc.wait(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(lines), stderr), seen


def wait_for_key_everywhere():
    """When every node has svc_users' pool key (monotonic time)."""
    def everywhere():
        return all(C.sql(n, "SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'svc' AND "
                            "TABLE_NAME = 'svc_users' AND INDEX_NAME = 'uq_svc_users_pool_email'",
                         sync_wait=False) == [["1"]] for n in C.DB_NODES)
    C.wait_until(everywhere, 120, "sql/034's key on every node", step=0.05)
    return time.monotonic()


def phase(load, t0, t1):
    return [r for r in load.records if r[2] >= t0 and r[2] <= t1]


def report(name, records, extra=""):
    bad = sum(1 for r in records if failed(r))
    limited = sum(1 for r in records if r[4] == 429)
    print("%-22s requests %5d  failed %3d  429 %3d  p99 %.3f s%s" % (name, len(records), bad, limited, p99(records),
                                                                     extra), flush=True)


class OnlineUpgradeTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        C.restore()
        cls.node = C.primary_node()
        t0 = time.monotonic()
        have = int(C.sql(cls.node, "SELECT COUNT(*) FROM svc_users WHERE user_email LIKE 'bulk-%'")[0][0])
        if have < USERS:
            hashed = admin("hash-password", stdin=C.PASSWORD + "\n")
            assert hashed.returncode == 0, hashed.stderr
            h = hashed.stdout.strip()
            for first in range(have + 1, USERS + 1, CHUNK):
                last = min(first + CHUNK - 1, USERS)
                C.sql(cls.node, "INSERT INTO svc_users (user_email, password, first_name, last_name) "
                      "SELECT CONCAT('bulk-', seq, '@example.com'), %s, 'Bulk', 'User' FROM seq_%d_to_%d"
                      % (C.q(h), first, last), timeout=600)
        cls.users = int(C.sql(cls.node, "SELECT COUNT(*) FROM svc_users")[0][0])
        print("svc_users: %d rows (%d bulk loaded in %.1f s)" % (cls.users, max(0, USERS - have),
                                                                 time.monotonic() - t0), flush=True)
        # svc_users as it was before user pools (every row is in the
        # default pool here), so the migration under load is sql/034 itself;
        # the app hosts restart so their workers read the table's shape again.
        t0 = time.monotonic()
        for statement in ("ALTER TABLE svc_users ADD UNIQUE KEY IF NOT EXISTS uq_svc_users_email (user_email),"
                          " DROP KEY IF EXISTS uq_svc_users_pool_email, ALGORITHM=INPLACE, LOCK=NONE",
                          "ALTER TABLE svc_users DROP COLUMN IF EXISTS pool_id, ALGORITHM=INSTANT",
                          "DELETE FROM svc_schema_migrations WHERE version = %d" % POOLS):
            C.sql(cls.node, statement, timeout=600)
        for n in C.APP_HOSTS:
            C.cluster("restart-app", n)
        print("svc_users put back before sql/034 in %.1f s" % (time.monotonic() - t0), flush=True)

    @classmethod
    def tearDownClass(cls):
        # Contract again, so the cluster's schema is the tree's.
        node = C.primary_node()
        for statement in ("ALTER TABLE svc_users DROP COLUMN IF EXISTS upgrade_probe, ALGORITHM=INSTANT",
                          "DROP TABLE IF EXISTS svc_upgrade_probe",
                          "ALTER TABLE svc_notification_log DROP KEY IF EXISTS ix_svc_log_upgrade_probe",
                          "DELETE FROM svc_schema_migrations WHERE version = %d" % VERSION):
            C.sql(node, statement)

    def test_migrate_then_roll_the_app_hosts_under_load(self):
        self.assertGreaterEqual(self.users, USERS)
        sql_dir = tempfile.mkdtemp(prefix="upgrade-sql-", dir=C.CLUSTER_DIR)
        src = os.path.join(C.SOURCE_DIR, "sql")
        for f in os.listdir(src):
            if f.endswith(".sql"):
                os.symlink(os.path.join(src, f), os.path.join(sql_dir, f))
        with open(os.path.join(sql_dir, "%d_upgrade_probe.sql" % VERSION), "w") as f:
            f.write(MIGRATION)
        dry = admin("migrate", "--sql-dir", sql_dir, "--dry-run")
        self.assertEqual(dry.returncode, 0, dry.stdout + dry.stderr)
        self.assertIn("2 pending", dry.stdout)
        self.assertIn("-- 034_user_pools.sql", dry.stdout)
        self.assertNotIn("would refuse", dry.stdout)

        load = C.Load(["sign-up", "login", "refresh", "notification"], threads=6, seconds=200, max_requests=6000)
        load.prepare()
        load.start()
        load.wait_completed(150, 60)
        t_before = time.monotonic()

        # 1. The migration, under load.
        t0 = time.monotonic()
        result, seen = timed_admin("migrate", "--sql-dir", sql_dir)
        t1 = time.monotonic()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # How long sql/034 held the cluster: from its "applying" line until
        # every node shows its key (a node applies DDL in total order, so the
        # slowest one's index build is what a write may wait for).
        pools_start = seen["migrate: applying 034_user_pools.sql"]
        pools_done = wait_for_key_everywhere()
        pools_seconds = pools_done - pools_start
        self.assertIn("applying %d_upgrade_probe.sql" % VERSION, result.stdout)
        self.assertIn("applying 034_user_pools.sql", result.stdout)
        load.wait_completed(load.completed() + 100, 60)
        t_after = time.monotonic()
        columns = C.sql(self.node, "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'svc' "
                        "AND TABLE_NAME = 'svc_users' AND COLUMN_NAME = 'upgrade_probe'")
        self.assertEqual(columns, [["1"]])
        keys = C.sql(self.node, "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM "
                     "information_schema.STATISTICS WHERE TABLE_SCHEMA = 'svc' AND TABLE_NAME = 'svc_users' AND "
                     "NON_UNIQUE = 0 AND INDEX_NAME <> 'PRIMARY' GROUP BY INDEX_NAME")
        self.assertEqual(keys, [["pool_id,user_email"]])

        # 2. App host 1 drained at the front and restarted; host 2 serves.
        t2 = time.monotonic()
        C.cluster("restart-app", 1)
        t3 = time.monotonic()
        load.wait_completed(load.completed() + 100, 60)

        # 3. kill -9 of app host 1's workers: only their open requests may fail.
        t4 = time.monotonic()
        C.cluster("kill-workers", 1)
        t5 = time.monotonic()
        load.wait_completed(load.completed() + 100, 60)
        load.stop()

        before = [r for r in load.records if r[2] < t_before]
        during = [r for r in load.records if r[2] <= t1 and r[3] >= t0]
        migration_phase = phase(load, t_before, t_after)
        rolling = [r for r in load.records if r[2] <= t3 and r[3] >= t2]
        killed = [r for r in load.records if r[2] <= t5 and r[3] >= t4]
        report("before the migration", before)
        report("during the migration", during, "  (migrate took %.2f s, sql/034 %.2f s)" % (t1 - t0, pools_seconds))
        report("migration phase", migration_phase)
        report("rolling restart", rolling, "  (restart-app took %.2f s)" % (t3 - t2))
        report("kill -9 of workers", killed)
        report("whole run", load.records)

        self.assertGreater(len(during), 0, "no request ran during the migration")
        self.assertEqual([r for r in migration_phase if failed(r)], [], C.app_problems())
        # Writes wait while sql/034's key builds (Galera's total order), then
        # the ones held back drain together on the same two cores: the
        # allowance is half as long again as the build. A stall beyond that
        # is one the key does not explain.
        self.assertLess(p99(during), max(1.0, 3 * p99(before)) + 1.5 * pools_seconds,
                        "the migration stalled requests")
        self.assertGreater(len(rolling), 0)
        # Only a request open while the workers were killed may fail; one
        # that started just before the kill and was cut by it is such a
        # request too, so the split is by "open at the kill", not by start.
        in_flight = C.started_before_and_open(load, t4, t5)
        self.assertEqual([r for r in load.records if r[3] < t4 and failed(r)], [], C.app_problems())
        self.assertEqual([r for r in load.records if failed(r) and r not in in_flight], [], C.app_problems())
        self.assertGreater(sum(1 for r in load.records if r[2] > t5 and r[4] == 200), 50)
        node = C.primary_node()
        self.assertEqual(C.missing_rows(node, "svc_users", "user_email", load.acknowledged("sign-up")), [])
        self.assertEqual(C.missing_rows(node, "svc_notification_log", "recipient",
                                        load.acknowledged("notification")), [])


if __name__ == "__main__":
    runner.main()

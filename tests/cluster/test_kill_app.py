"""Load through the front nginx (refresh-token, login, sign-up,
notification) while app host 1 dies (cluster.sh kill-app 1: kill -9 of
every process in its namespace). nginx moves to app host 2 on connect
errors, so: every acknowledged sign-up and notification exists in the
database, at most the requests in flight at the kill fail, and the load
keeps being served after it."""

import time
import unittest

import cluster_common as C
import runner


class KillAppTest(unittest.TestCase):

    def setUp(self):
        C.restore()

    def tearDown(self):
        C.cluster("start-app", 1)

    def test_requests_survive_an_app_host(self):
        load = C.Load(["refresh", "login", "sign-up", "notification"], threads=6, seconds=120, max_requests=600)
        load.prepare()
        load.start()
        load.wait_completed(120, 60)
        t0 = time.monotonic()
        C.cluster("kill-app", 1)
        t1 = time.monotonic()
        done_at_kill = load.completed()
        load.wait_completed(done_at_kill + 200, 90)
        load.stop()

        in_flight = C.started_before_and_open(load, t0, t1)
        failed = load.failed()
        after = [r for r in load.records if r[2] > t1]
        print("requests %d, failed %d, in flight at the kill %d, after the kill %d (failed %d)" %
              (len(load.records), len(failed), len(in_flight), len(after), sum(1 for r in after if r[4] != 200)))
        self.assertLessEqual(len(failed), len(in_flight), "%s\n%s" % (failed[:20], C.app_problems()))
        self.assertGreaterEqual(sum(1 for r in after if r[4] == 200), 150, "load not served after the kill")

        node = C.primary_node()
        self.assertIsNotNone(node)
        signed = load.acknowledged("sign-up")
        notes = load.acknowledged("notification")
        self.assertTrue(signed and notes)
        self.assertEqual(C.missing_rows(node, "svc_users", "user_email", signed), [])
        self.assertEqual(C.missing_rows(node, "svc_notification_log", "recipient", notes), [])


if __name__ == "__main__":
    runner.main()

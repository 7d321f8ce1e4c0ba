"""A Galera node dies under write load (cluster.sh kill-db 2: kill -9 of
mariadbd), then starts again (cluster.sh start-db 2) with no operator
action: no acknowledged write is lost, the app keeps acknowledging writes
while the node is down (the workers on node 2 move to another node), and
node 2 rejoins (wsrep_local_state 4) with the rows written while it was down.
Reads on connections that sat idle through the kill (the main pool's
refresh-token workers; app host 2 connects to node 2 first) move to
another node instead of failing: a dead TLS connection is a lost
connection (CR_SSL_CONNECTION_ERROR, 2026), not an unknown error."""

import time
import unittest

import cluster_common as C
import runner


class KillDbTest(unittest.TestCase):

    def setUp(self):
        C.restore()

    def tearDown(self):
        C.cluster("start-db", 2, check=False)

    def test_node_dies_and_rejoins(self):
        # Sessions for refresh-token, which the load below never sends: the
        # main pool's workers open their connections now, then idle.
        sessions = []
        for i in range(24):
            status, body = C.sign_up("kd-%s-%d@example.com" % (C.tag(), i))
            self.assertEqual(status, 200, body)
            sessions.append(body["token"])
        self.assertEqual([C.refresh(s)[0] for s in sessions[:8]], [200] * 8)

        load = C.Load(["sign-up", "notification", "notification"], threads=6, seconds=150, max_requests=900)
        load.start()
        load.wait_completed(100, 60)
        t0 = time.monotonic()
        C.cluster("kill-db", 2)
        t1 = time.monotonic()
        C.wait_until(lambda: (C.wsrep(1) or {}).get("size") == 2, 60, "node 1 to see a cluster of 2")
        # Each a user no worker has cached: a read on whatever connection the worker holds.
        idle_reads = [C.refresh(s)[0] for s in sessions[8:]]
        self.assertEqual(idle_reads, [200] * len(idle_reads), C.app_problems())
        done_at_kill = load.completed()
        load.wait_completed(done_at_kill + 250, 120)
        load.stop()
        t_down = time.monotonic()

        in_flight = C.started_before_and_open(load, t0, t1)
        failed = load.failed()
        down_acks = [r[1] for r in load.records if r[2] > t1 and r[3] < t_down and r[4] == 200]
        print("requests %d, failed %d, in flight at the kill %d, acknowledged while node 2 was down %d" %
              (len(load.records), len(failed), len(in_flight), len(down_acks)))
        self.assertGreaterEqual(len(down_acks), 200, "the app stopped acknowledging writes with node 2 down")
        self.assertLessEqual(len(failed), len(in_flight), "%s\n%s" % (failed[:20], C.app_problems()))

        C.cluster("start-db", 2)  # waits for Synced itself; no other step
        w = C.wsrep(2)
        self.assertEqual((w["state"], w["status"], w["size"]), (4, "Primary", 3), w)
        signed = load.acknowledged("sign-up")
        notes = load.acknowledged("notification")
        for node in C.DB_NODES:
            self.assertEqual(C.missing_rows(node, "svc_users", "user_email", signed), [], "node %d" % node)
            self.assertEqual(C.missing_rows(node, "svc_notification_log", "recipient", notes), [], "node %d" % node)
        # The rows written while it was down reached node 2 (by IST).
        self.assertEqual(C.missing_rows(2, "svc_notification_log", "recipient",
                                        [k for k in down_acks if k.startswith("nt-")]), [])


if __name__ == "__main__":
    runner.main()

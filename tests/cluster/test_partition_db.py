"""A Galera node cut off from the other two (cluster.sh partition-db 3: the
app hosts still reach it). Node 3 leaves the Primary component and refuses
writes; app host 1, whose node list starts with node 3, moves off it and
every write through the front nginx is acknowledged and stored in the
Primary component; cluster.sh heal-db 3 brings node 3 back to Synced with
those rows."""

import unittest

import cluster_common as C
import runner


class PartitionDbTest(unittest.TestCase):

    def setUp(self):
        C.restore()
        C.sql(1, "CREATE TABLE IF NOT EXISTS cluster_probe (id INT AUTO_INCREMENT PRIMARY KEY,"
              " note VARCHAR(64) NOT NULL) ENGINE=InnoDB")

    def tearDown(self):
        C.cluster("heal-db", 3, check=False)

    def test_minority_node_refuses_writes_and_comes_back(self):
        # Before: both app hosts serve (each has open connections to its first node).
        for i in range(10):
            self.assertEqual(C.notification("warm-%s-%d@example.com" % (C.tag(), i))[0], 200)

        C.cluster("partition-db", 3)
        C.wait_until(lambda: (C.wsrep(3) or {}).get("status") not in (None, "Primary"), 60,
                     "node 3 to leave the Primary component")
        C.wait_until(lambda: (C.wsrep(1) or {}).get("size") == 2, 60, "nodes 1 and 2 to form a cluster of 2")
        with self.assertRaises(C.SqlError) as refused:
            C.sql(3, "INSERT INTO cluster_probe (note) VALUES ('minority')", sync_wait=False)
        print("node 3 refused the write:", refused.exception)

        prefix = C.tag()
        replies = []
        for i in range(40):
            email = "part-%s-%d@example.com" % (prefix, i)
            replies.append((email, "sign-up", C.sign_up(email)[0]))
            replies.append((email, "notification", C.notification(email)[0]))
        failed = [r for r in replies if r[2] != 200]
        self.assertEqual(failed, [], "writes refused while node 3 was cut off")
        emails = [r[0] for r in replies if r[1] == "sign-up"]
        self.assertEqual(C.missing_rows(1, "svc_users", "user_email", emails), [])
        self.assertEqual(C.missing_rows(1, "svc_notification_log", "recipient", emails), [])

        C.cluster("heal-db", 3)
        C.wait_until(lambda: (C.wsrep(3) or {}).get("state") == 4 and C.wsrep(3)["size"] == 3, 120,
                     "node 3 Synced in a cluster of 3")
        self.assertEqual(C.missing_rows(3, "svc_users", "user_email", emails), [])
        C.sql(3, "INSERT INTO cluster_probe (note) VALUES ('healed')")


if __name__ == "__main__":
    runner.main()

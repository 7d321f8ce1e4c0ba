"""Issue 37: a refresh token's rotation is one conditional write that two app
hosts cannot both win. The same refresh token is sent to app host 1 and app
host 2 at the same moment (a barrier releases both threads), for many
sessions: both replies are 200 (the loser gets the pair of the winner's
generation, the two-tabs grace), and every session moved exactly one
generation on, as seen on a database node. Then a token rotated on one host
and played back on the other after the grace revokes the session there.

Each host is reached through a front nginx of its own (cluster.sh front)."""

import base64
import json
import threading
import unittest

import cluster_common as C
import runner
from test_signing_keys import Host

SESSIONS = 24


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def refresh_on(host, refresh_token):
    return host.call("POST", "/auth/refresh-token",
                     {"payload": {"access_token": "unused", "refresh_token": refresh_token}})


class ClusterSessionsTest(unittest.TestCase):

    def setUp(self):
        C.restore()

    def test_two_hosts_refreshing_one_token_at_once_rotate_it_once(self):
        hosts = [Host(n) for n in C.APP_HOSTS[:2]]
        self.assertEqual(len(hosts), 2, "the cluster needs two app hosts")
        email = "sessions-%s@example.com" % C.tag()
        status, body = C.sign_up(email)
        self.assertEqual(status, 200, body)
        tokens = [hosts[i % 2].login(email) for i in range(SESSIONS)]

        replies = {}
        for i, token in enumerate(tokens):
            barrier = threading.Barrier(2)

            def one(host, token=token, i=i, barrier=barrier):
                barrier.wait()
                replies[(i, host.n)] = refresh_on(host, token["refresh_token"])

            threads = [threading.Thread(target=one, args=(h,)) for h in hosts]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        statuses = sorted({status for status, _ in replies.values()})
        self.assertEqual(statuses, [200], {k: v for k, v in replies.items() if v[0] != 200})
        node = C.primary_node()
        for i, token in enumerate(tokens):
            sid = claims(token["refresh_token"])["sid"]
            gens = {claims(replies[(i, h.n)][1]["token"]["refresh_token"])["gen"] for h in hosts}
            self.assertEqual(gens, {2}, "session %d: both hosts issued generation 2" % i)
            row = C.sql(node, "SELECT generation, revoked_at IS NULL FROM svc_sessions WHERE id = %s" % C.q(sid))
            self.assertEqual(row, [["2", "1"]], "session %d rotated exactly once and stays open" % i)

    def test_a_reuse_on_the_other_host_after_the_grace_revokes_the_session(self):
        hosts = [Host(n) for n in C.APP_HOSTS[:2]]
        email = "reuse-%s@example.com" % C.tag()
        status, body = C.sign_up(email)
        self.assertEqual(status, 200, body)
        token = hosts[0].login(email)
        sid = claims(token["refresh_token"])["sid"]
        status, newer = refresh_on(hosts[0], token["refresh_token"])
        self.assertEqual(status, 200, newer)
        node = C.primary_node()
        C.sql(node, "UPDATE svc_sessions SET rotated_at = rotated_at - 3600 WHERE id = %s" % C.q(sid))
        status, reply = refresh_on(hosts[1], token["refresh_token"])
        self.assertEqual((status, reply), (401, {"status": "Failed", "message": "Refresh token has been revoked"}))
        status, reply = refresh_on(hosts[0], newer["token"]["refresh_token"])
        self.assertEqual(status, 401, reply)


if __name__ == "__main__":
    runner.main()

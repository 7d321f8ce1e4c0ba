#!/usr/bin/env python3
"""The shipped nginx files against the holes of issue 22, with a real nginx
on the rendered stack template and no FastCGI backend (every answer is
nginx's own):

- item 7: the /message/* allow list admits the host itself only. Behind a
  load balancer (simulated with realip from 127.0.0.1) a client whose
  address is on a private network gets 403, where the old list's
  10.0.0.0/8 let every client of a balancer on that network in;
- item 12: no request to /account/ with a query string is served as is or
  written to a log: the page and its files redirect to the bare path,
  other /account/ paths answer 404, and neither the access log (JSON or
  nginx's combined format) nor the error log holds the query. The one
  exception (issue 36, item 15): a page's own `?site=N`, nothing beside it,
  is served as is (and logged: a site's number is no secret).

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import http.client
import ipaddress
import json
import os
import re
import tempfile
import time
import unittest
from pathlib import Path

from deploy_common import NGINX, SOURCE_DIR, free_port, running_nginx

ACCESS_SNIPPET = SOURCE_DIR / "nginx" / "snippets" / "svc-message-access.conf"
FORBIDDEN = {"status": "Error", "message": "Forbidden"}
UNAVAILABLE = {"status": "Failed", "message": "Service unavailable"}
NOT_FOUND = {"status": "Failed", "message": "Not found"}


def render(workdir, server_extra=""):
    """nginx/stack.conf.in as scripts/stack.sh renders it, with two access
    logs (the svc_json format and nginx's combined one) and `server_extra`
    added to the server block; returns (conf, prefix, port)."""
    prefix = Path(workdir)
    port = free_port()
    logs = f"access_log {prefix}/access-json.log svc_json; access_log {prefix}/access-combined.log combined;"
    values = {"@PREFIX@": str(prefix), "@HTTP_PORT@": str(port), "@ACCESS_LOG@": logs,
              "@FCGI_SOCKET@": str(prefix / "no-backend.sock"), "@HASHING_SOCKET@": str(prefix / "no-backend.sock"),
              "@OUTBOUND_SOCKET@": str(prefix / "no-backend.sock"),
              "@USER_LINE@": "user root;" if os.geteuid() == 0 else "", "@SOURCE_DIR@": str(SOURCE_DIR)}
    text = (SOURCE_DIR / "nginx" / "stack.conf.in").read_text()
    for key, value in values.items():
        text = text.replace(key, value)
    text = text.replace("server_name localhost;", "server_name localhost;\n        " + server_extra, 1)
    conf = prefix / "nginx.conf"
    conf.write_text(text)
    return conf, prefix, port


def request(port, method, path, headers=None, body=None):
    """One request on a fresh connection -> (status, headers dict, JSON or raw bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        raw = resp.read()
        hdrs = {k.lower(): v for k, v in resp.getheaders()}
        data = json.loads(raw) if hdrs.get("content-type", "").startswith("application/json") else raw
        return resp.status, hdrs, data
    finally:
        conn.close()


def wait_for_log(path, needle, timeout=10):
    """nginx writes a request's line once it is finished: wait for `needle`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and needle in path.read_text():
            return
        time.sleep(0.05)
    raise AssertionError("%s never appeared in %s" % (needle, path))


def active_rules(text):
    """The allow/deny rules that are not commented out: [(verb, argument)]."""
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    return re.findall(r"\b(allow|deny)\s+([^;\s]+)\s*;", code)


class MessageAllowListTest(unittest.TestCase):

    def test_shipped_list_admits_loopback_only(self):
        rules = active_rules(ACCESS_SNIPPET.read_text())
        self.assertEqual(rules[-1], ("deny", "all"), rules)
        for verb, arg in rules[:-1]:
            self.assertEqual(verb, "allow", rules)
            self.assertTrue(ipaddress.ip_network(arg).is_loopback, "shipped allow for %s" % arg)
        self.assertEqual({arg for _, arg in rules[:-1]}, {"127.0.0.1", "::1"})
        # Other networks are shown, commented out, for the operator to fill in.
        self.assertRegex(ACCESS_SNIPPET.read_text(), r"(?m)^#\s*allow\s+\S+;")

    @unittest.skipUnless(NGINX, "nginx not installed")
    def test_clients_behind_a_balancer_on_a_private_network_are_refused(self):
        with tempfile.TemporaryDirectory(prefix="svc-nginx-hardening-") as tmp:
            # A balancer on this host hands nginx each client's address as X-Real-IP.
            conf, prefix, port = render(tmp, "set_real_ip_from 127.0.0.1; real_ip_header X-Real-IP;")
            with running_nginx(conf, prefix, port):
                for client in ("10.1.2.3", "172.16.0.9", "192.168.1.20", "203.0.113.7", "fd00::5"):
                    for path in ("/message/notification", "/message/sendPush"):
                        status, hdrs, data = request(port, "POST", path, {"X-Real-IP": client, "site-id": "1",
                                                                          "Content-Type": "application/json"}, "{}")
                        self.assertEqual((status, data), (403, FORBIDDEN), (client, path))
                # The host itself still passes (to the missing backend), and
                # the list keeps to /message/*.
                status, _, data = request(port, "POST", "/message/notification",
                                          {"site-id": "1", "Content-Type": "application/json"}, "{}")
                self.assertEqual((status, data), (502, UNAVAILABLE))
                status, _, data = request(port, "POST", "/auth/login",
                                          {"X-Real-IP": "10.1.2.3", "Content-Type": "application/json"}, "{}")
                self.assertEqual((status, data), (502, UNAVAILABLE))


@unittest.skipUnless(NGINX, "nginx not installed")
class AccountQueryStringTest(unittest.TestCase):

    def test_no_query_string_is_served_or_logged(self):
        secret = "tok%d%d" % (os.getpid(), time.monotonic_ns())
        with tempfile.TemporaryDirectory(prefix="svc-nginx-hardening-") as tmp:
            conf, prefix, port = render(tmp)
            with running_nginx(conf, prefix, port):
                for path in ("/account/reset", "/account/reset.js", "/account/reset.css"):
                    for method in ("GET", "HEAD", "POST"):
                        status, hdrs, _ = request(port, method, "%s?token=%s" % (path, secret))
                        self.assertEqual(status, 303, (method, path))
                        self.assertEqual(hdrs.get("location"), path, "relative, without the query")
                        self.assertRegex(hdrs.get("x-request-id", ""), r"^[0-9a-f]{32}$")
                for query in ("0", "", "a=1&token=" + secret):
                    status, hdrs, _ = request(port, "GET", "/account/reset?" + query)
                    self.assertEqual((status, hdrs.get("location")), (303, "/account/reset"), query)
                for path in ("/account/reset", "/account/verify", "/account/"):
                    status, hdrs, _ = request(port, "GET", path + "?site=12")
                    self.assertEqual(status, 200, path)
                    self.assertTrue(hdrs["content-type"].startswith("text/html"), hdrs)
                    for query in ("site=12&token=" + secret, "token=%s&site=12" % secret, "site=1" + secret,
                                  "site=", "site=0x1", "site=" + "1" * 19, "site=1?token=" + secret):
                        status, hdrs, _ = request(port, "GET", "%s?%s" % (path, query))
                        self.assertEqual((status, hdrs.get("location")), (303, path), (path, query))
                # The old enrolment page moved into the account centre (issue
                # 38): a permanent redirect that keeps ?site=N and nothing else.
                status, hdrs, _ = request(port, "GET", "/account/security?site=12")
                self.assertEqual((status, hdrs.get("location")), (301, "/account/?site=12"))
                for query in ("", "?token=" + secret, "?site=12&token=" + secret, "?site=x" + secret):
                    for method in ("GET", "HEAD", "POST"):
                        status, hdrs, _ = request(port, method, "/account/security" + query)
                        self.assertEqual((status, hdrs.get("location")), (301, "/account/"), (method, query))
                        self.assertRegex(hdrs.get("x-request-id", ""), r"^[0-9a-f]{32}$")
                status, hdrs, _ = request(port, "GET", "/account/reset.js?site=12")
                self.assertEqual((status, hdrs.get("location")), (303, "/account/reset.js"))
                status, _, data = request(port, "GET", "/account/other?site=12")
                self.assertEqual((status, data), (404, NOT_FOUND))
                status, _, data = request(port, "GET", "/account/other?token=" + secret)
                self.assertEqual((status, data), (404, NOT_FOUND))
                status, _, data = request(port, "GET", "/account/other")
                self.assertEqual((status, data), (404, NOT_FOUND))
                # The bare page is served (and logged); the marker ends the run.
                marker = "marker-" + secret
                status, hdrs, _ = request(port, "GET", "/account/reset", {"User-Agent": marker})
                self.assertEqual(status, 200)
                self.assertTrue(hdrs["content-type"].startswith("text/html"), hdrs)
                wait_for_log(prefix / "access-json.log", marker)
                wait_for_log(prefix / "access-combined.log", marker)
            for name in ("access-json.log", "access-combined.log"):
                lines = (prefix / name).read_text().splitlines()
                self.assertTrue(any("/account/reset" in line for line in lines), name)
                site_query = re.compile(r"/account/(?:reset|verify|security|)\?site=12(?=[\s\"])")
                self.assertEqual([line for line in lines if "?" in site_query.sub("", line)], [], name)
                self.assertEqual(len([line for line in lines if site_query.search(line)]), 4, name)
                self.assertEqual([line for line in lines if secret in line and marker not in line], [], name)
            self.assertNotIn(secret, (prefix / "nginx-error.log").read_text())


if __name__ == "__main__":
    unittest.main(verbosity=2)

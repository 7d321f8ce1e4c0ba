"""POST /message/sendPush through nginx + workers + MariaDB into the stack's
push HTTP sink, checked by an independent Web Push user agent
(push_decrypt.js: node's built-in crypto only, RFC 8291 / RFC 8292).

Covers: Success with exactly one POST to the subscription path and the
RFC 8030 headers (Content-Encoding aes128gcm, TTL, Urgency, optional Topic,
Authorization vapid t=..., k=<site key>); the body decrypts with the UA's
private key to exactly {"title","message","data"} (title default
"Notification", data default {}); the VAPID JWT verifies with the site's
public key (ES256; aud = endpoint origin, sub = vapid_subject, exp within
24 h); fresh salt and sender key per message; push-service replies (404/410
clear the subscription, 429/5xx keep it); 401 for every header problem with
nothing sent; every validation error incl. the 3993-byte payload boundary
and topic; customerID that is garbage, tampered, a user id, expired, or of
another site; customer without subscription; site without VAPID keys;
endpoints with forbidden schemes or control characters; hostile strings
travelling as data, never as headers.

The module makes its own sites and customers, so it can run again on the
same stack. "Nothing sent" means: the sink's log did not grow.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import time
import uuid

import svc_stack
from svc_stack import ApiTest, admin, b64url, b64url_decode, post, q, set_sink_control, sql, sql_value

PATH = "/message/sendPush"
TAG = "%d%s" % (os.getpid(), uuid.uuid4().hex[:6])
HERE = os.path.dirname(os.path.abspath(__file__))
NODE = shutil.which("node") or "/usr/bin/node"
UA = os.path.join(HERE, "push_decrypt.js")
PUSH_PORT = int(svc_stack.ENV.get("SVC_PUSH_PORT", "0") or 0)
SINK_ORIGIN = "http://127.0.0.1:%d" % PUSH_PORT
PUSH_LOG = os.path.join(svc_stack.STACK_DIR, "push.log")
CONTROL = PUSH_LOG + ".control.json"
SUBJECT = "mailto:ops@example.com"

SUCCESS = {"status": "Success"}
ERROR = {"status": "Error"}
UNAUTHORIZED = {"status": "Error", "message": "Unauthorized"}
MAX_PAYLOAD = 3993


def ua(op, **kw):
    """Runs one push_decrypt.js operation; returns its JSON answer."""
    kw["op"] = op
    out = subprocess.run([NODE, UA], input=json.dumps(kw), capture_output=True, text=True, timeout=30)
    try:
        return json.loads(out.stdout)
    except ValueError:
        raise AssertionError("push_decrypt.js %s: %r %r" % (op, out.stdout, out.stderr))


def sink_lines():
    return svc_stack.http_sink_lines("push")


def make_site(name, keys=True, extra=()):
    # Keyless on purpose unless extra names a key (keys: test_site_keys.py).
    if "--api-key" not in extra:
        extra = tuple(extra) + ("--api-key", "none")
    sid = admin("site", "create", "--user-pool", "default", "--name", "%s-%s" % (name, TAG), "--vapid-subject", SUBJECT, "--domain", "push.example",
                *extra).stdout.strip().splitlines()[-1]
    assert sid.isdigit(), sid
    public = None
    if keys:
        public = admin("vapid-keys", "--site", sid).stdout.strip()
        assert re.fullmatch(r"[A-Za-z0-9_-]{87}", public), public
    return sid, public


class Customer:
    """A svc_customers row with a subscription whose keys only node knows."""

    def __init__(self, site_id, name, endpoint=None, subscribed=True, keys=None):
        self.name = "%s-%s" % (name, TAG)
        self.path = "/push/%s/%s" % (TAG, name)
        self.endpoint = endpoint if endpoint is not None else SINK_ORIGIN + self.path
        self.keys = keys or ua("keygen")
        assert self.keys["ok"], self.keys
        if subscribed:
            vals = "%s, %s, %s" % (q(self.endpoint), q(self.keys["p256dh"]), q(self.keys["auth"]))
        else:
            vals = "NULL, NULL, NULL"
        rows = sql("INSERT INTO svc_customers (site_id, name, pushsubscription, p256dh, auth) VALUES (%s, %s, %s); "
                   "SELECT LAST_INSERT_ID();" % (int(site_id), q(self.name), vals))
        self.id = int(rows[-1][0])
        self.site_id = site_id

    def token(self, ttl=None):
        args = ["mint-customer-id", "--customer", str(self.id)] + (["--ttl", ttl] if ttl else [])
        return admin(*args).stdout.strip()

    def row(self):
        return sql("SELECT pushsubscription, p256dh, auth FROM svc_customers WHERE id = %d" % self.id)[0]

    def decrypt(self, line):
        return ua("decrypt", private=self.keys["private"], auth=self.keys["auth"], body=b64url(base64.b64decode(line["body_b64"])))


def setUpModule():
    global SITE, SITE_KEY, OTHER, OTHER_KEY, NOKEYS, INACTIVE, KEYED
    if not PUSH_PORT:
        raise RuntimeError("stack env has no SVC_PUSH_PORT")
    selftest = ua("selftest")
    assert selftest.get("ok"), "push_decrypt.js cannot decrypt the RFC 8291 example: %r" % selftest
    set_sink_control(CONTROL, {})
    SITE, SITE_KEY = make_site("push-test")
    OTHER, OTHER_KEY = make_site("push-other")
    NOKEYS, _ = make_site("push-nokeys", keys=False)
    INACTIVE, _ = make_site("push-inactive", extra=("--active", "false"))
    KEYED, _ = make_site("push-keyed", extra=("--api-key", "s3cret-" + TAG))


def tearDownModule():
    set_sink_control(CONTROL, None)
    sql("DELETE FROM svc_customers WHERE name LIKE %s" % q("%-" + TAG))
    sql("DELETE FROM svc_sites WHERE name LIKE %s" % q("push-%-" + TAG))


class PushTest(ApiTest):
    def setUp(self):
        set_sink_control(CONTROL, {})

    def tearDown(self):
        set_sink_control(CONTROL, {})

    def send(self, body, site=None, headers=None, raw=None):
        h = {"site-id": str(site or SITE)} if headers is None else headers
        return post(PATH, body=body, headers=h, raw=raw)

    def send_and_capture(self, cust, body, site=None, headers=None):
        """Sends; returns (reply, new sink lines)."""
        before = len(sink_lines())
        reply = self.send(body, site=site or cust.site_id, headers=headers)
        return reply, sink_lines()[before:]

    def assertNothingSent(self, fn):
        """fn()'s reply, after checking that the sink got no request. The
        worker sends a push before it answers, and the sink writes a
        request's line before it replies (scripts/sinks/http_sink.py): by the
        time the reply is here, a push it made is in the log."""
        before = len(sink_lines())
        reply = fn()
        self.assertEqual(len(sink_lines()), before, "the push sink received a request: %r" % (sink_lines()[before:],))
        return reply

    def assertOnePush(self, cust, lines):
        self.assertEqual(len(lines), 1, lines)
        line = lines[0]
        self.assertEqual(line["method"], "POST")
        self.assertEqual(line["path"], cust.path)
        return line

    def decrypted_json(self, cust, line):
        d = cust.decrypt(line)
        self.assertTrue(d.get("ok"), d)
        self.assertIsNotNone(d["plaintext"], "plaintext is not UTF-8")
        return d, json.loads(d["plaintext"])

    # --- Success ---------------------------------------------------------

    def test_success_headers_body_and_vapid(self):
        cust = Customer(SITE, "full")
        data = {"orderId": 42, "url": "https://shop.example/o/42", "tags": ["a", "b"], "nested": {"ok": True}}
        t0 = int(time.time())
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "title": "Your order",
                                                    "message": "Shipped today", "data": data})
        t1 = int(time.time())
        self.assertReply(reply, 200, SUCCESS)
        line = self.assertOnePush(cust, lines)
        h = line["headers"]
        self.assertEqual(h.get("content-encoding"), "aes128gcm")
        self.assertEqual(h.get("ttl"), "2419200")
        self.assertEqual(h.get("urgency"), "normal")
        self.assertEqual(h.get("content-type"), "application/octet-stream")
        self.assertNotIn("topic", h)
        self.assertEqual(int(h.get("content-length", "-1")), len(base64.b64decode(line["body_b64"])))

        # Body: independent RFC 8291 decryption, exact JSON.
        d, payload = self.decrypted_json(cust, line)
        self.assertEqual(payload, {"title": "Your order", "message": "Shipped today", "data": data})
        self.assertEqual(list(payload.keys()), ["title", "message", "data"])
        self.assertEqual(d["records"], 1)
        self.assertGreaterEqual(d["rs"], 18)
        self.assertNotEqual(d["keyid"], SITE_KEY, "the sender key must be ephemeral, not the VAPID key")
        # Only this subscription's keys open it (so the decryption above can fail).
        stranger = ua("keygen")
        wrong = ua("decrypt", private=stranger["private"], auth=cust.keys["auth"], body=b64url(base64.b64decode(line["body_b64"])))
        self.assertFalse(wrong.get("ok"), wrong)
        wrong = ua("decrypt", private=cust.keys["private"], auth=stranger["auth"], body=b64url(base64.b64decode(line["body_b64"])))
        self.assertFalse(wrong.get("ok"), wrong)

        # Authorization: vapid t=<jwt>, k=<site public key>, JWT verified by node.
        m = re.fullmatch(r"vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)",
                         h.get("authorization", ""))
        self.assertIsNotNone(m, h.get("authorization"))
        jwt, k = m.group(1), m.group(2)
        self.assertEqual(k, SITE_KEY)
        v = ua("verify_jwt", jwt=jwt, public_key=SITE_KEY)
        self.assertTrue(v.get("ok"), v)
        self.assertTrue(v["valid"], "VAPID JWT does not verify with the site's public key: %r" % v)
        self.assertEqual(v["header"].get("alg"), "ES256")
        self.assertEqual(v["header"].get("typ", "JWT"), "JWT")
        self.assertEqual(v["claims"].get("aud"), SINK_ORIGIN)
        self.assertEqual(v["claims"].get("sub"), SUBJECT)
        exp = v["claims"].get("exp")
        self.assertIsInstance(exp, int)
        self.assertGreater(exp, t1 + 60, "exp already (nearly) passed")
        self.assertLessEqual(exp, t0 + 24 * 3600, "RFC 8292: exp at most 24 h ahead")
        # The same JWT must not verify with another site's key (the check above can fail).
        other = ua("verify_jwt", jwt=jwt, public_key=OTHER_KEY)
        self.assertFalse(other.get("valid"), other)

    def test_endpoint_query_is_kept_and_aud_is_the_origin(self):
        cust = Customer(SITE, "query")
        cust.path += "?token=a%2Fb&x=1"
        sql("UPDATE svc_customers SET pushsubscription = %s WHERE id = %d" % (q(SINK_ORIGIN + cust.path), cust.id))
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "q"})
        self.assertReply(reply, 200, SUCCESS)
        line = self.assertOnePush(cust, lines)
        jwt = re.match(r"vapid t=([^,]+),", line["headers"]["authorization"]).group(1)
        v = ua("verify_jwt", jwt=jwt, public_key=SITE_KEY)
        self.assertTrue(v["valid"], v)
        self.assertEqual(v["claims"]["aud"], SINK_ORIGIN)

    def test_defaults_title_and_data(self):
        cust = Customer(SITE, "defaults")
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "just text"})
        self.assertReply(reply, 200, SUCCESS)
        _, payload = self.decrypted_json(cust, self.assertOnePush(cust, lines))
        self.assertEqual(payload, {"title": "Notification", "message": "just text", "data": {}})
        # null title/data count as absent
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "m2", "title": None,
                                                    "data": None})
        self.assertReply(reply, 200, SUCCESS)
        _, payload = self.decrypted_json(cust, self.assertOnePush(cust, lines))
        self.assertEqual(payload, {"title": "Notification", "message": "m2", "data": {}})

    def test_x_site_id_header_and_site_key(self):
        cust = Customer(SITE, "xsite")
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "via x-site-id"},
                                             headers={"x-site-id": str(SITE)})
        self.assertReply(reply, 200, SUCCESS)
        self.assertOnePush(cust, lines)
        keyed = Customer(KEYED, "keyed")
        reply, lines = self.send_and_capture(keyed, {"customerID": keyed.token(), "message": "with key"},
                                             headers={"site-id": str(KEYED), "x-site-key": "s3cret-" + TAG})
        self.assertReply(reply, 200, SUCCESS)
        self.assertOnePush(keyed, lines)

    def test_two_pushes_use_fresh_salt_and_key(self):
        cust = Customer(SITE, "fresh")
        body = {"customerID": cust.token(), "title": "same", "message": "same", "data": {"x": 1}}
        r1, l1 = self.send_and_capture(cust, body)
        r2, l2 = self.send_and_capture(cust, body)
        self.assertReply(r1, 200, SUCCESS)
        self.assertReply(r2, 200, SUCCESS)
        a, b = self.assertOnePush(cust, l1), self.assertOnePush(cust, l2)
        self.assertNotEqual(a["body_b64"], b["body_b64"])
        da, pa = self.decrypted_json(cust, a)
        db_, pb = self.decrypted_json(cust, b)
        self.assertEqual(pa, pb)
        self.assertNotEqual(da["salt"], db_["salt"])
        self.assertNotEqual(da["keyid"], db_["keyid"])

    def test_topic_header(self):
        cust = Customer(SITE, "topic")
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "t",
                                                    "topic": "order_42-Status"})
        self.assertReply(reply, 200, SUCCESS)
        self.assertEqual(self.assertOnePush(cust, lines)["headers"].get("topic"), "order_42-Status")
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "t", "topic": "A" * 32})
        self.assertReply(reply, 200, SUCCESS)
        self.assertEqual(self.assertOnePush(cust, lines)["headers"].get("topic"), "A" * 32)

    def test_payload_limit_boundary(self):
        cust = Customer(SITE, "limit")
        overhead = len(json.dumps({"title": "Notification", "message": "", "data": {}}, separators=(",", ":")))
        exact = "m" * (MAX_PAYLOAD - overhead)
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": exact})
        self.assertReply(reply, 200, SUCCESS)
        d, payload = self.decrypted_json(cust, self.assertOnePush(cust, lines))
        self.assertEqual(len(b64url_decode(d["plaintext_b64"])), MAX_PAYLOAD)
        self.assertEqual(payload["message"], exact)
        self.assertLessEqual(len(base64.b64decode(lines[0]["body_b64"])), 4096)
        # One byte more: 400 on message, nothing sent.
        r = self.assertNothingSent(lambda: self.send({"customerID": cust.token(), "message": exact + "m"}))
        self.assertValidation(r, "message")
        # Title and data count too.
        r = self.assertNothingSent(lambda: self.send({"customerID": cust.token(), "message": "short",
                                                      "title": "t" * 1000, "data": {"big": "d" * 3000}}))
        self.assertValidation(r, "message")

    def test_long_title_within_payload_limit(self):
        # The decisions cap only the whole payload (3993 bytes, field message);
        # a 2000-byte title with a short message is well inside it.
        cust = Customer(SITE, "longtitle")
        title = "T" * 2000
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "title": title, "message": "m"})
        self.assertReply(reply, 200, SUCCESS)
        _, payload = self.decrypted_json(cust, self.assertOnePush(cust, lines))
        self.assertEqual(payload, {"title": title, "message": "m", "data": {}})

    # --- Push service replies --------------------------------------------

    def test_gone_clears_subscription(self):
        for status in (410, 404):
            with self.subTest(status=status):
                cust = Customer(SITE, "gone%d" % status)
                set_sink_control(CONTROL, {"status_queue": [status]})
                reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "bye"})
                self.assertReply(reply, 200, ERROR)
                self.assertOnePush(cust, lines)
                self.assertEqual(cust.row(), [None, None, None])
                # Afterwards: Error, and nothing is sent.
                r = self.assertNothingSent(lambda: self.send({"customerID": cust.token(), "message": "again"}))
                self.assertReply(r, 200, ERROR)

    def test_transient_failures_keep_subscription(self):
        cust = Customer(SITE, "transient")
        before = cust.row()
        self.assertEqual(before, [cust.endpoint, cust.keys["p256dh"], cust.keys["auth"]])
        for status in (500, 503, 429):
            with self.subTest(status=status):
                set_sink_control(CONTROL, {"status_queue": [status]})
                reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "retry"})
                self.assertReply(reply, 200, ERROR)
                self.assertOnePush(cust, lines)
                self.assertEqual(cust.row(), before)
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "message": "works again"})
        self.assertReply(reply, 200, SUCCESS)
        self.assertOnePush(cust, lines)

    # --- Site authentication ---------------------------------------------

    def test_header_problems_are_401_and_send_nothing(self):
        cust = Customer(SITE, "auth")
        inactive = Customer(INACTIVE, "inactive")
        keyed = Customer(KEYED, "keyed401")
        unknown = str(int(sql_value("SELECT COALESCE(MAX(id), 0) FROM svc_sites")) + 1000)
        good = {"customerID": cust.token(), "message": "m"}
        cases = [
            ("no header", good, {}),
            ("empty site-id", good, {"site-id": ""}),
            ("letters", good, {"site-id": "abc"}),
            ("zero", good, {"site-id": "0"}),
            ("negative", good, {"site-id": "-" + str(SITE)}),
            ("decimal", good, {"site-id": str(SITE) + ".0"}),
            ("plus sign", good, {"site-id": "+" + str(SITE)}),
            ("hex", good, {"site-id": "0x" + str(SITE)}),
            ("exponent", good, {"site-id": str(SITE) + "e0"}),
            ("sql", good, {"site-id": str(SITE) + " OR 1=1"}),
            ("overflow", good, {"site-id": "18446744073709551617"}),
            ("unknown site", good, {"site-id": unknown}),
            ("unknown x-site-id", good, {"x-site-id": unknown}),
            ("appID in body only", dict(good, appID=int(SITE)), {}),
            ("inactive site", {"customerID": inactive.token(), "message": "m"}, {"site-id": str(INACTIVE)}),
            ("key site, no key", {"customerID": keyed.token(), "message": "m"}, {"site-id": str(KEYED)}),
            ("key site, wrong key", {"customerID": keyed.token(), "message": "m"},
             {"site-id": str(KEYED), "x-site-key": "wrong"}),
            ("key site, empty key", {"customerID": keyed.token(), "message": "m"},
             {"site-id": str(KEYED), "x-site-key": ""}),
            ("bad header beats bad body", {"message": 5}, {"site-id": "abc"}),
        ]
        for name, body, headers in cases:
            with self.subTest(name):
                r = self.assertNothingSent(lambda: self.send(body, headers=headers))
                self.assertReply(r, 401, UNAUTHORIZED)

    # --- Validation ------------------------------------------------------

    def test_validation_errors_send_nothing(self):
        cust = Customer(SITE, "valid")
        tok = cust.token()
        cases = [
            ("missing customerID", {"message": "m"}, "customerID"),
            ("empty customerID", {"customerID": "", "message": "m"}, "customerID"),
            ("numeric customerID", {"customerID": cust.id, "message": "m"}, "customerID"),
            ("missing message", {"customerID": tok}, "message"),
            ("empty message", {"customerID": tok, "message": ""}, "message"),
            ("numeric message", {"customerID": tok, "message": 12}, "message"),
            ("object message", {"customerID": tok, "message": {"a": 1}}, "message"),
            ("numeric title", {"customerID": tok, "message": "m", "title": 7}, "title"),
            ("array data", {"customerID": tok, "message": "m", "data": [1, 2]}, "data"),
            ("string data", {"customerID": tok, "message": "m", "data": "x"}, "data"),
            ("numeric data", {"customerID": tok, "message": "m", "data": 3}, "data"),
            ("topic with space", {"customerID": tok, "message": "m", "topic": "bad topic"}, "topic"),
            ("topic with slash", {"customerID": tok, "message": "m", "topic": "a/b"}, "topic"),
            ("topic CRLF", {"customerID": tok, "message": "m", "topic": "a\r\nX-Evil: 1"}, "topic"),
            ("topic too long", {"customerID": tok, "message": "m", "topic": "A" * 33}, "topic"),
            ("topic empty", {"customerID": tok, "message": "m", "topic": ""}, "topic"),
            ("topic number", {"customerID": tok, "message": "m", "topic": 5}, "topic"),
        ]
        for name, body, field in cases:
            with self.subTest(name):
                r = self.assertNothingSent(lambda: self.send(body))
                self.assertValidation(r, field)
        with self.subTest("both required fields missing"):
            r = self.assertNothingSent(lambda: self.send({}))
            self.assertValidation(r, "customerID", "message")
        for name, raw in (("malformed JSON", b'{"customerID":'), ("array body", b"[1]"), ("empty body", b"")):
            with self.subTest(name):
                r = self.assertNothingSent(lambda: self.send(None, raw=raw))
                self.assertValidation(r, "body")

    # --- Who may be pushed to --------------------------------------------

    def test_bad_customer_ids_are_error(self):
        cust = Customer(SITE, "ids")
        good = cust.token()
        raw = bytearray(b64url_decode(good))
        raw[30] ^= 1
        user_token = admin("mint-user-id", "--user", str(cust.id)).stdout.strip()
        cases = [
            ("garbage", "not-a-token"),
            ("sql", "' OR 1=1 -- "),
            ("tampered", b64url(bytes(raw))),
            ("truncated", good[:-4]),
            ("user id of the same number", user_token),
        ]
        for name, token in cases:
            with self.subTest(name):
                r = self.assertNothingSent(lambda: self.send({"customerID": token, "message": "m"}))
                self.assertReply(r, 200, ERROR)
        # Control: the real token does send.
        reply, lines = self.send_and_capture(cust, {"customerID": good, "message": "m"})
        self.assertReply(reply, 200, SUCCESS)
        self.assertOnePush(cust, lines)

    def test_expired_customer_id(self):
        cust = Customer(SITE, "expired")
        token = cust.token(ttl="1s")
        # svc-admin sets exp = its clock + 1 s: the token has expired once
        # the workers' clock reaches this whole second.
        expired_by = int(time.time()) + 1

        def refused():
            before = len(sink_lines())
            reply = self.send({"customerID": token, "message": "late"})
            if reply.json == SUCCESS:  # still valid: it was pushed
                self.assertOnePush(cust, sink_lines()[before:])
                return None
            self.assertEqual(len(sink_lines()), before, "pushed although refused: %r" % (sink_lines()[before:],))
            return reply

        r = svc_stack.wait_for_change("a 1 s customer id", refused, expired_by)
        self.assertReply(r, 200, ERROR)
        self.assertEqual(cust.row()[0], cust.endpoint)

    def test_customer_of_another_site(self):
        theirs = Customer(OTHER, "theirs")
        token = theirs.token()
        r = self.assertNothingSent(lambda: self.send({"customerID": token, "message": "cross-site"}, site=SITE))
        self.assertReply(r, 200, ERROR)
        # The refused request left the row alone, and the same token works with
        # its own site, so the Error above comes from the site scope.
        self.assertEqual(theirs.row()[0], theirs.endpoint)
        reply, lines = self.send_and_capture(theirs, {"customerID": token, "message": "own site"}, site=OTHER)
        self.assertReply(reply, 200, SUCCESS)
        line = self.assertOnePush(theirs, lines)
        k = re.search(r"k=([A-Za-z0-9_-]+)", line["headers"]["authorization"]).group(1)
        self.assertEqual(k, OTHER_KEY)

    def test_customer_without_subscription(self):
        none = Customer(SITE, "nosub", subscribed=False)
        r = self.assertNothingSent(lambda: self.send({"customerID": none.token(), "message": "m"}))
        self.assertReply(r, 200, ERROR)
        partial = Customer(SITE, "partial")
        sql("UPDATE svc_customers SET auth = NULL WHERE id = %d" % partial.id)
        r = self.assertNothingSent(lambda: self.send({"customerID": partial.token(), "message": "m"}))
        self.assertReply(r, 200, ERROR)
        missing_id = int(sql_value("SELECT COALESCE(MAX(id), 0) FROM svc_customers")) + 1000
        ghost = admin("mint-customer-id", "--customer", str(missing_id)).stdout.strip()
        r = self.assertNothingSent(lambda: self.send({"customerID": ghost, "message": "m"}))
        self.assertReply(r, 200, ERROR)

    def test_site_without_vapid_keys(self):
        cust = Customer(NOKEYS, "nokeys")
        r = self.assertNothingSent(lambda: self.send({"customerID": cust.token(), "message": "m"}, site=NOKEYS))
        self.assertReply(r, 200, ERROR)

    def test_unusable_endpoints_send_nothing(self):
        bad = [
            ("file", "file:///etc/passwd"),
            ("gopher", "gopher://127.0.0.1:%d/x" % PUSH_PORT),
            ("ftp", "ftp://127.0.0.1:%d/x" % PUSH_PORT),
            ("crlf", SINK_ORIGIN + "/push/x\r\nX-Evil: 1"),
            ("space", SINK_ORIGIN + "/push/a b"),
            ("no host", "http:///push/x"),
        ]
        for name, endpoint in bad:
            with self.subTest(name):
                cust = Customer(SITE, "ep-" + name, endpoint=endpoint)
                r = self.assertNothingSent(lambda: self.send({"customerID": cust.token(), "message": "m"}))
                self.assertReply(r, 200, ERROR)
        bad_keys = Customer(SITE, "badkeys", keys={"ok": True, "p256dh": "AAAA", "auth": "BBBB", "private": ""})
        r = self.assertNothingSent(lambda: self.send({"customerID": bad_keys.token(), "message": "m"}))
        self.assertReply(r, 200, ERROR)

    # --- Hostile content -------------------------------------------------

    def test_hostile_strings_travel_as_data(self):
        cust = Customer(SITE, "hostile")
        title = "Hi\r\nX-Injected: 1\r\n\r\n<script>alert(1)</script>"
        message = "'; DROP TABLE svc_customers; -- \u00e9\u2713\U0001F600 \"quoted\" \\ back\nslash\u0000nul"
        data = {"k\r\nInjected-Header: x": "v\r\n\r\nPOST /evil HTTP/1.1", "html": "<img src=x onerror=alert(1)>",
                "sql": "' OR '1'='1", "nested": {"a": [1, 2.5, {"b": None}], "t": True, "f": False},
                "unicode": "\u202eevil\u200b", "empty": {}}
        reply, lines = self.send_and_capture(cust, {"customerID": cust.token(), "title": title, "message": message,
                                                    "data": data, "topic": "safe"})
        self.assertReply(reply, 200, SUCCESS)
        line = self.assertOnePush(cust, lines)
        _, payload = self.decrypted_json(cust, line)
        self.assertEqual(payload, {"title": title, "message": message, "data": data})
        expected_headers = {"host", "user-agent", "accept", "content-encoding", "content-type", "ttl", "urgency",
                            "topic", "authorization", "content-length"}
        self.assertLessEqual(set(line["headers"]), expected_headers, line["headers"])
        for v in line["headers"].values():
            self.assertNotIn("Injected", v)
            self.assertNotIn("<script>", v)
        self.assertEqual(line["path"], cust.path)
        self.assertGreaterEqual(int(sql_value("SELECT COUNT(*) FROM svc_customers")), 1)


if __name__ == "__main__":
    svc_stack.main()

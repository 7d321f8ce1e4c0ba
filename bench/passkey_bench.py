"""The "passkey-sign-in" arm: complete passkey sign-ins per second, each
POST /auth/passkey/login/options then POST /auth/passkey/login with an
assertion over that challenge, from software ES256 authenticators
(python3-cryptography), one credential per thread so each credential's
signature counter rises in order. Setup (not timed): a site with RP id
bench.localhost, a user, one registered passkey per thread. Prints one JSON
line {"ops_per_s", "ops", "refused"} (bench/arms.py reads it as a raw arm);
an op is a whole sign-in, two requests.

usage: passkey_bench.py --url http://127.0.0.1:PORT --admin SVC_ADMIN --config SVC_CONF --seconds N --threads T
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import struct
import subprocess
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

RP_ID = "bench.localhost"
ORIGIN = "https://bench.localhost"
PASSWORD = "Bench@Passkey2026"


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor_bytes(data):
    n = len(data)
    return (bytes([0x40 | n]) if n < 24 else b"\x58" + bytes([n]) if n < 256 else b"\x59" + struct.pack(">H", n)) + data


class Api:
    """One keep-alive connection to the stack's nginx."""

    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)

    def post(self, path, body, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.conn.request("POST", path, json.dumps(body), headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read() or b"null")


class Authenticator:
    """A software authenticator holding one ES256 credential."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.count = 0

    def client_data(self, kind, options):
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": ORIGIN,
                           "crossOrigin": False}).encode()

    def register(self, options):
        nums = self.key.public_key().public_numbers()
        cose = (b"\xa5\x01\x02\x03\x26\x20\x01\x21" + cbor_bytes(nums.x.to_bytes(32, "big")) + b"\x22" +
                cbor_bytes(nums.y.to_bytes(32, "big")))
        self.count = 1
        auth_data = (hashlib.sha256(RP_ID.encode()).digest() + b"\x45" + struct.pack(">I", self.count) +
                     b"\0" * 16 + struct.pack(">H", len(self.credential_id)) + self.credential_id + cose)
        attestation = b"\xa3\x63fmt\x64none\x67attStmt\xa0\x68authData" + cbor_bytes(auth_data)
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64(self.client_data("webauthn.create", options)),
                             "attestationObject": b64(attestation)}}

    def assert_(self, options):
        self.count += 1
        auth_data = hashlib.sha256(RP_ID.encode()).digest() + b"\x05" + struct.pack(">I", self.count)
        client_data = self.client_data("webauthn.get", options)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64(client_data), "authenticatorData": b64(auth_data),
                             "signature": b64(signature)}}


def admin(args, *argv, stdin=None):
    return subprocess.run([args.admin, "--config", args.config, *argv], input=stdin, capture_output=True, text=True,
                          check=True, timeout=60).stdout.strip()


def setup(args):
    """A site, a user and one registered authenticator per thread."""
    site = int(admin(args, "site", "create", "--name", "Bench passkeys", "--domain", RP_ID, "--api-key", "none",
                     "--rp-id", RP_ID, "--origins", ORIGIN).splitlines()[-1])
    email = "bench-passkey.%d.%s@example.com" % (os.getpid(), os.urandom(4).hex())
    admin(args, "user", "create", "--email", email, stdin=PASSWORD + "\n")
    api = Api(args.url)
    status, reply = api.post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
    assert status == 200, reply
    token = reply["token"]["access_token"]
    authenticators = []
    for _ in range(args.threads):
        a = Authenticator()
        status, start = api.post("/auth/passkey/register/options", {}, token)
        assert status == 200, start
        status, done = api.post("/auth/passkey/register", {"challenge_token": start["challenge_token"],
                                                           "credential": a.register(start["options"])}, token)
        assert status == 200, done
        authenticators.append(a)
    return site, authenticators


def sign_in_loop(args, site, authenticator, deadline, counts):
    api = Api(args.url)
    ok = refused = 0
    while time.monotonic() < deadline:
        status, start = api.post("/auth/passkey/login/options", {"appID": site})
        if status != 200:
            refused += 1
            continue
        status, _ = api.post("/auth/passkey/login", {"challenge_token": start["challenge_token"],
                                                     "credential": authenticator.assert_(start["options"])})
        if status == 200:
            ok += 1
        else:
            refused += 1
    counts.append((ok, refused))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--admin", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--threads", type=int, default=8)
    args = p.parse_args()
    site, authenticators = setup(args)
    counts = []
    t0 = time.monotonic()
    deadline = t0 + args.seconds
    threads = [threading.Thread(target=sign_in_loop, args=(args, site, a, deadline, counts)) for a in authenticators]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=args.seconds + 60)
    elapsed = time.monotonic() - t0
    ok = sum(c[0] for c in counts)
    refused = sum(c[1] for c in counts)
    print(json.dumps({"ops_per_s": ok / elapsed if refused == 0 else 0, "ops": ok, "refused": refused}))


if __name__ == "__main__":
    main()

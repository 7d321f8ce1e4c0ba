#!/usr/bin/python3
"""SMTP sink for the local stack and the tests (aiosmtpd; run with /usr/bin/python3).

    smtp_sink.py --host 127.0.0.1 --port P --dir DIR [--ready-file F]
                 [--tls-cert C --tls-key K [--tls-mode starttls|implicit]]
                 [--auth USER:PASSWORD] [--delay-ms N]

Every accepted message becomes DIR/<counter>-<uuid>.eml (counter zero-padded
to 6 digits, continuing after the highest one already in DIR), written to a
temporary name first and renamed, so a reader never sees half a file. The
file starts with the envelope, then the data exactly as received (after
SMTP dot-unstuffing, CRLF line endings):

    X-Sink-Mail-From: <envelope sender>
    X-Sink-Rcpt-To: a@x, b@y
    <message data>

Failure injection: DIR/../smtp-control.json, re-read on every RCPT and DATA:
    {"data_reply": [451, 554], "rcpt_reject": {"bad@example.com": 550}}
data_reply is a queue; each DATA consumes its first code (the file is
rewritten without it) and is answered with that code instead of storing the
message. rcpt_reject refuses that recipient (case-insensitive) with the code.
Each refused RCPT is appended to DIR/../smtp-refused.jsonl as one JSON line
{"mail_from": ..., "rcpt": ..., "code": ...}: what an MTA would bounce, so
a test can build the DSN that goes back to the envelope sender.

--delay-ms N answers each end of DATA N ms late (per connection, so
parallel sessions overlap): a relay that is slow per message, for the
sessions benchmark.

Once listening, writes the bound port number to the ready file (atomically)
or prints "ready <port>" on stdout. --port 0 picks a free port. SIGTERM and
SIGINT stop it cleanly (exit status 0).
"""

import asyncio
import json
import os
import re
import signal
import ssl
import sys
import uuid

from sink_common import ControlFile, announce_ready, argument_parser, atomic_write

try:
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
except ImportError as e:  # the caller must see this, not a silent pass
    sys.stderr.write(f"smtp_sink: cannot import aiosmtpd ({e}); use /usr/bin/python3\n")
    sys.exit(3)

REPLY_TEXT = {
    421: "421 4.3.0 Service not available, closing channel",
    450: "450 4.2.0 Mailbox unavailable, try again later",
    451: "451 4.3.0 Try again later",
    452: "452 4.3.1 Insufficient system storage",
    550: "550 5.1.1 Mailbox unavailable",
    551: "551 5.1.6 User not local",
    552: "552 5.3.4 Message too big",
    553: "553 5.1.3 Mailbox name not allowed",
    554: "554 5.7.1 Transaction failed",
}


def reply_for(code, address=None):
    code = int(code)
    text = REPLY_TEXT.get(code, f"{code} {code // 100}.0.0 Injected failure")
    if address:
        text += f" <{address}>"
    return text


class Control(ControlFile):
    """The failure-injection file; absent or unreadable means 'no failures'."""

    def rcpt_code(self, address):
        rejects = self.load().get("rcpt_reject") or {}
        lowered = {str(k).lower(): v for k, v in rejects.items()}
        return lowered.get(address.lower())

    def next_data_code(self):
        return self.take_first(self.load(), "data_reply")


class Handler:
    def __init__(self, directory, control, delay=0.0):
        self.dir = directory
        self.control = control
        self.delay = delay
        self.counter = self._highest_counter()

    def _highest_counter(self):
        highest = 0
        for name in os.listdir(self.dir):
            m = re.match(r"^(\d+)-.*\.eml$", name)
            if m:
                highest = max(highest, int(m.group(1)))
        return highest

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        code = self.control.rcpt_code(address)
        if code:
            self._note_refusal(envelope.mail_from, address, code)
            return reply_for(code, address)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    def _note_refusal(self, mail_from, rcpt, code):
        line = json.dumps({"mail_from": mail_from, "rcpt": rcpt, "code": int(code)}) + "\n"
        path = os.path.join(os.path.dirname(os.path.abspath(self.dir)), "smtp-refused.jsonl")
        with open(path, "a", encoding="utf-8") as f:  # one short append per line: never interleaved
            f.write(line)

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        code = self.control.next_data_code()
        if code:
            return reply_for(code)
        self.counter += 1
        name = f"{self.counter:06d}-{uuid.uuid4()}.eml"
        head = (
            f"X-Sink-Mail-From: {envelope.mail_from}\r\n"
            f"X-Sink-Rcpt-To: {', '.join(envelope.rcpt_tos)}\r\n"
        ).encode("utf-8", "surrogateescape")
        data = envelope.original_content or b""
        atomic_write(os.path.join(self.dir, name), head + data)
        return f"250 2.0.0 OK queued as {name}"


def tls_context(args):
    if not args.tls_cert:
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.tls_cert, args.tls_key)
    return ctx


def authenticator_for(spec):
    user, _, password = spec.partition(":")

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login == user.encode()
              and auth_data.password == password.encode())
        # handled=False: let aiosmtpd send "535 5.7.8" itself on failure.
        return AuthResult(success=ok, handled=False)

    return authenticate


async def serve(args):
    os.makedirs(args.dir, exist_ok=True)
    control = Control(os.path.join(os.path.dirname(os.path.abspath(args.dir)),
                                   "smtp-control.json"))
    handler = Handler(args.dir, control, args.delay_ms / 1000.0)
    ctx = tls_context(args)
    implicit = ctx is not None and args.tls_mode == "implicit"
    options = {}
    if ctx is not None and not implicit:
        options.update(tls_context=ctx, require_starttls=True)
    if args.auth:
        options.update(authenticator=authenticator_for(args.auth), auth_required=True,
                       auth_require_tls=ctx is not None)
    loop = asyncio.get_running_loop()

    def factory():
        return SMTP(handler, hostname="smtp-sink.local", enable_SMTPUTF8=True,
                    loop=loop, **options)

    server = await loop.create_server(factory, host=args.host, port=args.port,
                                      ssl=ctx if implicit else None, reuse_address=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    announce_ready(args.ready_file, server.sockets[0].getsockname()[1])
    await stop.wait()
    server.close()
    await server.wait_closed()


def main():
    p = argument_parser("SMTP sink storing messages as .eml files")
    p.add_argument("--dir", required=True)
    p.add_argument("--tls-cert")
    p.add_argument("--tls-key")
    p.add_argument("--tls-mode", choices=("starttls", "implicit"), default="starttls")
    p.add_argument("--auth", metavar="USER:PASSWORD")
    p.add_argument("--delay-ms", type=int, default=0)
    args = p.parse_args()
    if bool(args.tls_cert) != bool(args.tls_key):
        p.error("--tls-cert and --tls-key go together")
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()

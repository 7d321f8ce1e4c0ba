#!/usr/bin/python3
"""The SMTP floor for `make bench`: a minimal client that sends messages over
ONE reused SMTP connection (smtplib), as fast as the sink takes them.

    smtp_loop.py --host H --port P FILE.eml...

Each FILE is a message as scripts/sinks/smtp_sink.py stored it (the envelope
in the X-Sink-Mail-From / X-Sink-Rcpt-To lines, then the data), so the bench
replays exactly the bytes svc-sender sent. Prints one JSON line:
{"sent": N, "seconds": S, "per_s": R}; only the SMTP session is timed.
"""

import argparse
import json
import smtplib
import sys
import time


def load(path):
    raw = open(path, "rb").read()
    head1, rest = raw.split(b"\r\n", 1)
    head2, data = rest.split(b"\r\n", 1)
    mail_from = head1.split(b":", 1)[1].strip().decode()
    rcpt_to = [a.strip() for a in head2.split(b":", 1)[1].decode().split(",") if a.strip()]
    return mail_from, rcpt_to, data


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("files", nargs="+")
    args = p.parse_args()
    messages = [load(f) for f in args.files]
    started = time.monotonic()
    with smtplib.SMTP(args.host, args.port, timeout=30) as smtp:
        smtp.ehlo("bench.local")
        for mail_from, rcpt_to, data in messages:
            refused = smtp.sendmail(mail_from, rcpt_to, data)
            if refused:
                sys.exit(f"smtp_loop: refused {refused}")
    seconds = time.monotonic() - started
    print(json.dumps({"sent": len(messages), "seconds": round(seconds, 4),
                      "per_s": round(len(messages) / seconds, 2)}))


if __name__ == "__main__":
    main()

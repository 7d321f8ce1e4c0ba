"""The SMTP floor of the e-mail arms (bench/arms.py):
a minimal client that sends messages over ONE reused SMTP connection
(smtplib), as fast as the sink takes them. Stdlib only.

Each file is a message as scripts/sinks/smtp_sink.py stored it (the envelope
in the X-Sink-Mail-From / X-Sink-Rcpt-To lines, then the data), so the bench
replays exactly the bytes svc-sender sent. Only the SMTP session is timed.
"""

import smtplib
import time


def load(path):
    raw = open(path, "rb").read()
    head1, rest = raw.split(b"\r\n", 1)
    head2, data = rest.split(b"\r\n", 1)
    mail_from = head1.split(b":", 1)[1].strip().decode()
    rcpt_to = [a.strip() for a in head2.split(b":", 1)[1].decode().split(",") if a.strip()]
    return mail_from, rcpt_to, data


def smtp_replay(port, paths, host="127.0.0.1"):
    """{"sent", "seconds", "per_s", "valid"}: the messages in `paths` over one
    connection to the sink; invalid (sent 0) if it refused any or failed."""
    messages = [load(p) for p in paths]
    started = time.monotonic()
    try:
        with smtplib.SMTP(host, port, timeout=30) as smtp:
            smtp.ehlo("bench.local")
            for mail_from, rcpt_to, data in messages:
                if smtp.sendmail(mail_from, rcpt_to, data):
                    raise smtplib.SMTPException("recipients refused")
    except (OSError, smtplib.SMTPException) as e:
        return {"sent": 0, "seconds": 1, "per_s": 0, "valid": False, "error": repr(e)}
    seconds = time.monotonic() - started
    return {"sent": len(messages), "seconds": round(seconds, 4), "per_s": round(len(messages) / seconds, 2),
            "valid": bool(messages)}

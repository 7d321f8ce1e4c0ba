#!/usr/bin/python3
"""Mail delivery figures for issue 12, against a running stack
(scripts/stack.sh up, or the tests' build/itest-stack):

    SVC_STACK_DIR=build/itest-stack /usr/bin/python3 bench/mail_delivery.py [--mails 200] [--rounds 3]

1. sessions: svc-sender one-shot passes against an SMTP sink that answers
   each message 20 ms late (smtp_sink.py --delay-ms 20), [smtp] sessions = 4
   vs 1, same rows; ratio of mails per second (target >= 3.0).
2. plain sink: svc-sender (sessions = 4) vs bench/smtp_loop.py replaying the
   same messages over one smtplib connection (target >= 0.9).
3. suppression: svc-sender (sessions = 4, sink 20 ms late) with 10 % of
   the recipients on the suppression list ÷ with none; rows finished (Sent
   or Failed "suppressed") per second (target >= 1: a suppressed mail
   costs no SMTP round trip).
4. claim scale: the claim's two SELECTs (outbox_claim.cpp) over an outbox of
   1,000 and of 1,000,000 rows (all but 500 Sent), in a scratch database with
   the stack's schema: EXPLAIN rows and the time per execution (target: 1 M
   <= 2 x 1 k).

The stack's background sender is stopped while this runs and restarted
after. Prints one JSON object; docs/benchmarks.md records a run.
"""

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))

import svc_stack as S  # noqa: E402
import test_sender as TS  # noqa: E402
from smtp_loop import smtp_replay  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def config_with(port, sessions, batch=50):
    text = open(S.CONFIG).read()
    head, _, rest = text.partition("[smtp]\n")
    rest = re.sub(r"(?m)^(port|sessions|batch)\s*=.*\n", "", rest)
    path = os.path.join(tempfile.mkdtemp(prefix="svc-bench-"), "svc.conf")
    with open(path, "w") as f:
        f.write(head + "[smtp]\nport = %d\nsessions = %d\nbatch = %d\n" % (port, sessions, batch) + rest)
    return path


@contextlib.contextmanager
def smtp_sink(delay_ms):
    """(port, mail directory) of an SMTP sink of its own that answers each message `delay_ms` late."""
    d = tempfile.mkdtemp(prefix="svc-bench-sink-")
    ready, mail_dir = os.path.join(d, "ready"), os.path.join(d, "mail")
    proc = subprocess.Popen(["/usr/bin/python3", os.path.join(REPO, "scripts", "sinks", "smtp_sink.py"),
                             "--port", "0", "--dir", mail_dir, "--ready-file", ready,
                             "--delay-ms", str(delay_ms)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while not os.path.exists(ready) and time.time() < deadline:
            time.sleep(0.05)
        yield int(open(ready).read()), mail_dir
    finally:
        proc.terminate()
        proc.wait()


def sender_pass(conf, count):
    event = "bench-" + uuid.uuid4().hex[:10]
    S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status,"
          " next_attempt_at, created_at) SELECT 1, %s, CONCAT('rcpt-', seq, '@example.com'),"
          " 'Demo Shop <no-reply@demo.example>', 'Hello', '<p>Hello <b>there</b></p>', 'Pending',"
          " UTC_TIMESTAMP(), UTC_TIMESTAMP() FROM seq_1_to_%d" % (S.q(event), count))
    t0 = time.monotonic()
    subprocess.run([TS.SENDER, "--config", conf], capture_output=True, timeout=600)
    seconds = time.monotonic() - t0
    sent = sum(1 for r in TS.rows(event) if r["status"] == "Sent")
    done = sum(1 for r in TS.rows(event) if r["status"] != "Pending")
    S.sql("DELETE FROM svc_notification_log WHERE event = %s AND status = 'Pending'" % S.q(event))
    return {"sent": sent, "done": done, "queued": count, "seconds": seconds, "per_s": sent / seconds,
            "done_per_s": done / seconds}


def sessions_arm(mails, rounds):
    with smtp_sink(20) as (port, _):
        return {"sessions-%d" % n: [sender_pass(config_with(port, n), mails) for _ in range(rounds)] for n in (1, 4)}


def plain_arm(mails, rounds):
    with smtp_sink(0) as (port, mail_dir):
        conf = config_with(port, 4)
        out = {"sender-4": [], "smtp-loop": []}
        for _ in range(rounds):
            before = set(os.listdir(mail_dir)) if os.path.isdir(mail_dir) else set()
            out["sender-4"].append(sender_pass(conf, mails))
            out["smtp-loop"].append(smtp_replay(port, sorted(os.path.join(mail_dir, p) for p in os.listdir(mail_dir)
                                                             if p not in before)))
        return out


def suppressed_arm(mails, rounds):
    """Same rows with 10 % of the recipients suppressed (every tenth rcpt-N) and with none, interleaved."""
    suppress = ("INSERT IGNORE INTO svc_mail_suppressions (site_id, address, reason, detail)"
                " SELECT 1, CONCAT('rcpt-', seq, '@example.com'), 'manual', 'bench' FROM seq_10_to_%d_step_10" % mails)
    clear = "DELETE FROM svc_mail_suppressions WHERE site_id = 1 AND detail = 'bench'"
    with smtp_sink(20) as (port, _):
        conf = config_with(port, 4)
        out = {"none": [], "tenth": []}
        for _ in range(rounds):
            out["none"].append(sender_pass(conf, mails))
            S.sql(suppress)
            try:
                out["tenth"].append(sender_pass(conf, mails))
            finally:
                S.sql(clear)
        return out


# --- claim scale ---------------------------------------------------------------------

SITES_SQL = ("SELECT d.site_id, COALESCE(s.mail_per_hour, -1) FROM"
             " (SELECT site_id, MIN(next_attempt_at) AS oldest FROM svc_notification_log"
             "  WHERE status = 'Pending' AND priority = 1 AND next_attempt_at <= NOW()"
             "  GROUP BY site_id ORDER BY oldest, site_id LIMIT 50) d"
             " LEFT JOIN svc_sites s ON s.id = d.site_id ORDER BY d.oldest, d.site_id")
TAKE_SQL = ("SELECT id, site_id, event, recipient, cc, bcc, `from`, subject, body, attempts,"
            " UNIX_TIMESTAMP(created_at) FROM svc_notification_log WHERE status = 'Pending' AND priority = 1"
            " AND site_id = 3 AND next_attempt_at <= NOW() AND (claimed_until IS NULL OR claimed_until < NOW())"
            " ORDER BY next_attempt_at, id LIMIT 5 FOR UPDATE SKIP LOCKED")


def scratch_db(total, pending=500, sites=10):
    S.sql("DROP DATABASE IF EXISTS svc_bench_claim; CREATE DATABASE svc_bench_claim")
    S.sql("CREATE TABLE svc_notification_log LIKE svc.svc_notification_log;"
          " CREATE TABLE svc_sites LIKE svc.svc_sites", database="svc_bench_claim")
    S.sql("INSERT INTO svc_notification_log (site_id, event, recipient, `from`, subject, body, status, priority,"
          " next_attempt_at, created_at, sent_at)"
          " SELECT 1 + seq %% %d, 'bench', 'a@example.com', 'b@example.com', 's', 'b',"
          " IF(seq <= %d, 'Sent', 'Pending'), 1, UTC_TIMESTAMP() - INTERVAL 1 MINUTE, UTC_TIMESTAMP(),"
          " IF(seq <= %d, UTC_TIMESTAMP(), NULL) FROM seq_1_to_%d"
          % (sites, total - pending, total - pending, total), database="svc_bench_claim")
    S.sql("ANALYZE TABLE svc_notification_log", database="svc_bench_claim")


def time_statement(sql, repeat=15):
    """Server-side milliseconds per execution: the median of ANALYZE FORMAT=JSON's
    query_block r_total_time_ms over `repeat` runs (no client or process start in it)."""
    samples = []
    for _ in range(repeat):
        text = "\n".join(r[0] for r in S.sql("ANALYZE FORMAT=JSON " + sql, database="svc_bench_claim"))
        samples.append(float(re.search(r'"query_block":\s*\{[^{]*?"r_total_time_ms":\s*([0-9.]+)', text).group(1)))
    return statistics.median(samples)


def explain_rows(sql):
    rows = S.sql("EXPLAIN " + sql, database="svc_bench_claim")
    return [{"table": r[2], "type": r[3], "key": r[5], "rows": r[8], "extra": r[9]} for r in rows]


def analyze_rows(sql):
    """Rows the server actually read per table (ANALYZE FORMAT=JSON r_rows)."""
    text = "\n".join(r[0] for r in S.sql("ANALYZE FORMAT=JSON " + sql, database="svc_bench_claim"))
    return [float(x) for x in re.findall(r'"r_rows":\s*([0-9.]+)', text)]


def claim_arm():
    out = {}
    for total in (1000, 1000000):
        scratch_db(total)
        out[str(total)] = {
            "sites_explain": explain_rows(SITES_SQL), "take_explain": explain_rows(TAKE_SQL),
            "sites_r_rows": analyze_rows(SITES_SQL), "take_r_rows": analyze_rows(TAKE_SQL),
            "sites_ms": time_statement(SITES_SQL), "take_ms": time_statement(TAKE_SQL),
        }
    S.sql("DROP DATABASE IF EXISTS svc_bench_claim")
    return out


def median(samples, key="per_s"):
    return statistics.median(s[key] for s in samples)


def markdown(path):
    """The "Mail delivery" section of docs/benchmarks.md from a saved run (make bench appends it)."""
    r = json.load(open(path))
    s, pl, sup, claim = r["sessions"], r["plain"], r["suppressed"], r["claim"]
    ms = {size: c["sites_ms"] + c["take_ms"] for size, c in claim.items()}
    rows = [  # row, numerator, denominator, unit, ratio, target: at least (or at most, "≤")
        ("svc-sender, sink answering 20 ms late, `sessions = 4` ÷ `sessions = 1`", median(s["sessions-4"]),
         median(s["sessions-1"]), "%.1f", "mails/s", r["ratio_sessions_4_over_1"], "≥ 3.0"),
        ("svc-sender (`sessions = 4`, process wall time) ÷ smtp_loop.py (one smtplib connection), plain sink",
         median(pl["sender-4"]), median(pl["smtp-loop"]), "%.1f", "mails/s", r["ratio_sender4_over_smtp_loop"], "≥ 0.9"),
        ("svc-sender rows finished per second, 10 % of recipients suppressed ÷ none (sink 20 ms late)",
         median(sup["tenth"], "done_per_s"), median(sup["none"], "done_per_s"), "%.1f", "rows/s",
         r["ratio_suppressed_over_none"], "≥ 1"),
        ("claim SELECTs, outbox of 1,000,000 rows ÷ 1,000 rows (all but 500 Sent)", ms["1000000"], ms["1000"],
         "%.3f", "ms", r["ratio_claim_1m_over_1k"], "≤ 2"),
    ]
    out = ["", "## Mail delivery: parallel sessions, claim scale", "",
           "`bench/mail_delivery.py` against the bench stack (raw figures in bench/results-mail-delivery.json);",
           "medians of the rounds, ratios within this run.", "",
           "| row | figure | target | met |", "|---|---:|---:|---|"]
    for name, num, den, num_fmt, unit, ratio, target in rows:
        limit = float(target.split()[1])
        ok = ratio <= limit if target.startswith("≤") else ratio >= limit
        out.append("| %s | %s ÷ %s %s = **%.2f** | %s | %s |" % (name, num_fmt % num, num_fmt % den, unit, ratio, target,
                                                                "yes" if ok else "**no**"))
    for size in ("1000", "1000000"):
        c = claim[size]
        out += ["", "Rows the claim read with %s rows in the outbox (ANALYZE `r_rows`): site list %s, fetch %s." %
                (size, ", ".join("%g" % x for x in c["sites_r_rows"]), ", ".join("%g" % x for x in c["take_r_rows"]))]
    print("\n".join(out))


def run(mails, rounds):
    had_sender = TS._stop("svc-sender")
    try:
        result = {"suppressed": suppressed_arm(mails, rounds), "sessions": sessions_arm(mails, rounds),
                  "plain": plain_arm(mails * 5, rounds), "claim": claim_arm()}
    finally:
        if had_sender:
            TS.start_background_sender()
    sup, s, pl, c = result["suppressed"], result["sessions"], result["plain"], result["claim"]
    result["ratio_suppressed_over_none"] = median(sup["tenth"], "done_per_s") / median(sup["none"], "done_per_s")
    result["ratio_sessions_4_over_1"] = median(s["sessions-4"]) / median(s["sessions-1"])
    result["ratio_sender4_over_smtp_loop"] = median(pl["sender-4"]) / median(pl["smtp-loop"])
    big, small = c["1000000"], c["1000"]
    result["ratio_claim_1m_over_1k"] = (big["sites_ms"] + big["take_ms"]) / (small["sites_ms"] + small["take_ms"])
    return result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--markdown", metavar="RESULTS_JSON", help="print the benchmarks.md section of a saved run")
    p.add_argument("--mails", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    if args.markdown:
        return markdown(args.markdown)
    print(json.dumps(run(args.mails, args.rounds), indent=1))
    return None


if __name__ == "__main__":
    main()

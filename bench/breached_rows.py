"""The breached-password list's rows of `make bench` (issue 41), measured by bench/breached_bench.cpp with svc's own
code (libsvc_core.a): a lookup in a list of BENCH_BREACHED_ENTRIES (100 million) entries, cold and warm, against one
Argon2id verify of svc's hasher in the same process (target: under 2 % of it, both, and for a cold open: nothing of
the file cached, open() and its first lookup); and the import of a BENCH_BREACHED_LINES-line (10 million) SHA1:COUNT
file against a plain sequential read of the same file, both from a cold page cache, in alternating order over
IMPORT_ROUNDS rounds at least (target: at least 0.5 of its speed). The generated list and text are kept in
bench/out/breached/ for the next run (about 0.8 GB and 0.5 GB). Stdlib only.
"""

import os
import sys

from arms import last_json
from stack import log

ENTRIES = int(os.environ.get("BENCH_BREACHED_ENTRIES", "100000000"))
LINES = int(os.environ.get("BENCH_BREACHED_LINES", "10000000"))
# Single import rounds varied from 0.34 to 1.32 of the read on the shared VM:
# the median of five, each shown.
IMPORT_ROUNDS = 5


def measure_breached(helpers, out, rounds):
    """{"lookup": {...}, "import": {...}} of bench/breached_bench.cpp; {} when the helper is missing."""
    log("breached-password list (bench/breached_bench.cpp)")
    exe = helpers / "breached_bench"
    if not exe.exists():
        log("breached_bench was not built: no breached-list rows")
        return {}
    data = out / "breached"
    result = {}
    for mode, n, k in (("lookup", ENTRIES, rounds), ("import", LINES, max(rounds, IMPORT_ROUNDS))):
        result[mode] = last_json([str(exe), mode, str(data), str(n), str(k)])[0]
    lk, im = result["lookup"], result["import"]
    if "error" not in lk:
        log(f"  breached lookup in {lk['entries']:,} entries: warm {lk['warm_us']:.2f} us, cold {lk['cold_us']:.1f} us"
            f" (p90 {lk['cold_p90_us']:.1f}, max {lk['cold_max_us']:.1f}), cold open + first lookup "
            f"{lk['cold_open_us']:.1f} us (p90 {lk['cold_open_p90_us']:.1f}), Argon2id verify {lk['verify_ms']:.2f} ms")
    if "error" not in im:
        log(f"  breached import of {im['lines']:,} lines: {im['import_mb_s']:.1f} MB/s, plain read "
            f"{im['read_mb_s']:.1f} MB/s, ratio {im['ratio']:.2f} (rounds {im.get('ratios')}); CPU s: read "
            f"{im.get('read_cpu_s', 0):.3f}, import {im.get('import_cpu_s', 0):.3f}")
    return result


def markdown(b):
    """The "Breached-password list (this run)" section of docs/benchmarks.md."""
    lk, im = (b or {}).get("lookup"), (b or {}).get("import")
    if not lk and not im:
        return []
    lines = ["", "## Breached-password list (this run)", "",
             "bench/breached_bench.cpp, svc's own BreachedFile, BreachedWriter and import_breached from "
             "libsvc_core.a (docs/decisions.md \"Issue 41\"). Lookups include the SHA-1 of the password; cold = "
             "the list's entry pages dropped from the page cache (POSIX_FADV_DONTNEED while unmapped, checked "
             "with mincore), its page index in the cache (a worker's steady state); cold open = the whole file "
             "dropped, then open() for the password's key and its lookup, as a worker does after a restart or "
             "an import (header and index page read at once, then one entry page). The Argon2id verify is svc's Argon2PasswordHasher (m = 19 MiB, t = 2) in "
             "the same process and rounds. The import and the plain read (read(), 8 MiB buffer) both start "
             "from a cold page cache, in alternating order; the import's time includes writing, fsync and "
             "rename.", ""]
    if lk and "error" not in lk:
        lines += ["| lookup | value |", "|---|---:|",
                  f"| entries | {lk['entries']:,} |",
                  f"| file MB (page index MB) | {lk['file_bytes'] / 1e6:,.1f} ({lk['index_bytes'] / 1e6:,.2f}) |",
                  f"| Argon2id verify ms (median) | {lk['verify_ms']:.2f} |",
                  f"| warm lookup µs (mean) | {lk['warm_us']:.2f} |",
                  f"| cold lookup µs (median; p90; max of {lk['cold_n']}) | {lk['cold_us']:.1f}; "
                  f"{lk['cold_p90_us']:.1f}; {lk['cold_max_us']:.1f} |",
                  f"| cold open: open() + first lookup µs (median; p90; max of {lk['cold_open_n']}) | "
                  f"{lk['cold_open_us']:.1f}; {lk['cold_open_p90_us']:.1f}; {lk['cold_open_max_us']:.1f} |",
                  f"| pages still cached after a drop (max) | {lk['resident_after_drop'] * 100:.2f} % |",
                  f"| false hits (keys are no password's) | {lk['false_hits']} |"]
    elif lk:
        lines += [f"Lookup: {lk['error']}"]
    if im and "error" not in im:
        lines += ["", "| import | value |", "|---|---:|",
                  f"| lines (MB of text) | {im['lines']:,} ({im['text_mb']:,.1f}) |",
                  f"| plain sequential read MB/s (median) | {im['read_mb_s']:.1f} |",
                  f"| import MB/s (median) | {im['import_mb_s']:.1f} |",
                  f"| import ns per line (wall) | {im['import_ns_per_line']:.1f} |",
                  f"| import ÷ read (median of the rounds' ratios; each round) | {im['ratio']:.3f}; "
                  f"{', '.join(f'{x:.2f}' for x in im.get('ratios', []))} |",
                  f"| each round, MB/s: read; import | {', '.join(f'{x:.0f}' for x in im.get('read_mb_s_rounds', []))}; "
                  f"{', '.join(f'{x:.0f}' for x in im.get('import_mb_s_rounds', []))} |",
                  f"| CPU seconds (user + system, all threads): read; import | {im.get('read_cpu_s', 0):.3f}; "
                  f"{im.get('import_cpu_s', 0):.3f} |"]
    elif im:
        lines += ["", f"Import: {im['error']}"]
    return lines


if __name__ == "__main__":
    sys.exit("run by bench/bench.py")

"""JSON as the tests meet it: reply bodies that may not be JSON at all, and
JSON-lines logs (one object a line, other lines ignored). Standard library
only; shared by the stack tests and the standalone ones."""

import json


def parse_json(body):
    """body (bytes) parsed as JSON; None when it is empty or not JSON."""
    try:
        return json.loads(body.decode("utf-8")) if body else None
    except ValueError:
        return None


def log_events(path, event, since_offset=0):
    """The objects with "event" == event among the JSON lines of the log at
    path, reading from byte since_offset on."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        f.seek(since_offset)
        for line in f:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("event") == event:
                out.append(obj)
    return out

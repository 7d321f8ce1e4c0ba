"""What the SMTP and HTTP sinks share (standard library only): their common
options, writing a file so a reader never sees half of it, the control file
through which tests steer a sink, and announcing the bound port once
listening."""

import argparse
import json
import os
import uuid


def atomic_write(path, data):
    """Writes bytes to a temporary name beside path, then renames it over path."""
    tmp = os.path.join(os.path.dirname(path) or ".", f".tmp-{uuid.uuid4().hex}")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


class ControlFile:
    """A JSON object that steers a sink, re-read on every use; absent,
    unreadable or not an object means {} (no instructions)."""

    def __init__(self, path):
        self.path = path

    def load(self):
        try:
            with open(self.path, "rb") as f:
                value = json.load(f)
            return value if isinstance(value, dict) else {}
        except (OSError, ValueError):
            return {}

    def take_first(self, ctl, key):
        """Pops the first item of the list ctl[key] (ctl as load() returned
        it) and rewrites the file without it; None when the list is empty."""
        queue = ctl.get(key) or []
        if not queue:
            return None
        item = queue.pop(0)
        ctl[key] = queue
        atomic_write(self.path, json.dumps(ctl).encode())
        return item


def argument_parser(description):
    """A parser with the options every sink takes: --host, --port (0 picks a
    free one), --ready-file."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ready-file")
    return p


def announce_ready(ready_file, port):
    """The bound port: written to ready_file (atomically) or printed as "ready <port>"."""
    if ready_file:
        atomic_write(ready_file, f"{port}\n".encode())
    else:
        print(f"ready {port}", flush=True)

#!/usr/bin/env python3
"""Every webhook event type of the design (src/webhooks/events.cpp
kEventTypes, design "Webhooks") is queued somewhere in src/ (its name as a
string literal outside events.cpp), has a row in docs/webhooks.md's event
table, and is named by an integration test; and nothing queues a type that
is not in the list.

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import os
import re
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SRC = SOURCE_DIR / "src"
EVENT = re.compile(r'"((?:user|session|message)\.[a-z_]+)"')


def event_types():
    text = (SRC / "webhooks" / "events.cpp").read_text()
    body = text[text.index("kEventTypes"):]
    return EVENT.findall(body[:body.index("};")])


def literals(paths):
    """{event name: [files]} of the event-like string literals in `paths`."""
    found = {}
    for path in paths:
        for name in EVENT.findall(path.read_text(errors="replace")):
            found.setdefault(name, []).append(str(path.relative_to(SOURCE_DIR)))
    return found


class WebhookEvents(unittest.TestCase):
    def test_every_event_is_queued_somewhere_and_nothing_else_is(self):
        types = event_types()
        self.assertEqual(len(types), 21, types)
        sources = [p for p in SRC.rglob("*.cpp") if p != SRC / "webhooks" / "events.cpp"]
        used = literals(sources)
        self.assertEqual([t for t in types if t not in used], [], "event types nothing queues")
        self.assertEqual({n: f for n, f in used.items() if n not in types}, {}, "types not in kEventTypes")

    def test_every_event_has_a_row_in_the_docs(self):
        doc = (SOURCE_DIR / "docs" / "webhooks.md").read_text()
        rows = set(re.findall(r"(?m)^\| `([a-z_.]+)`(?: / `([a-z_.]+)`)? \|", doc))
        documented = {n for row in rows for n in row if n}
        self.assertEqual([t for t in event_types() if t not in documented], [])

    def test_every_event_is_named_by_an_integration_test(self):
        tests = literals((SOURCE_DIR / "tests" / "integration").glob("test_*.py"))
        self.assertEqual([t for t in event_types() if t not in tests], [], "event types no integration test names")


if __name__ == "__main__":
    runner.main()

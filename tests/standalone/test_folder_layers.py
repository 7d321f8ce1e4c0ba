#!/usr/bin/env python3
"""The folders of src/ form floors, and an #include only points down or
sideways on its own floor, never in a circle:

    bin -> app, admin -> fcgi, auth, messaging, push, sms -> http
        -> db, crypto, config, core, metrics

Each folder of src/ is a node; `#include "x/y.hpp"` in a file of folder f is
an edge f -> x. The test fails on a cycle (printed as the folders in it), on
an edge that climbs a floor (printed with the file and line), and on a
folder that has no floor yet (give it one below).

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import os
import re
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SRC = SOURCE_DIR / "src"

# Higher floors may include lower ones (and their own floor, without cycles).
FLOORS = {
    "bin": 5,
    "app": 4,
    "admin": 4,
    "fcgi": 3,
    "auth": 3,
    "messaging": 3,
    "push": 3,
    "sms": 3,
    "http": 2,
    "db": 1,
    "crypto": 1,
    "config": 1,
    "core": 1,
    "metrics": 1,  # shared-memory counters: db and fcgi count into it
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_edges(src: Path):
    """(from_folder, to_folder, file, line) for every cross-folder include."""
    folders = {p.name for p in src.iterdir() if p.is_dir()}
    for folder in sorted(folders):
        for path in sorted((src / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
                continue
            text = path.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                parts = m.group(1).split("/")
                target = parts[0] if len(parts) > 1 else folder
                if target in folders and target != folder:
                    line = text.count("\n", 0, m.start()) + 1
                    yield folder, target, path.relative_to(src.parent), line


def cycles(edges):
    """Strongly connected components of more than one node (Tarjan)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


class CycleFinderTest(unittest.TestCase):
    """The checker itself finds what it must (so a green run means something)."""

    def test_finds_a_two_folder_cycle(self):
        self.assertEqual(cycles([("http", "auth"), ("auth", "http"), ("auth", "db")]), [["auth", "http"]])

    def test_finds_a_long_cycle(self):
        self.assertEqual(cycles([("a", "b"), ("b", "c"), ("c", "a")]), [["a", "b", "c"]])

    def test_a_chain_is_no_cycle(self):
        self.assertEqual(cycles([("bin", "app"), ("app", "http"), ("http", "db")]), [])


class FolderLayersTest(unittest.TestCase):
    def setUp(self):
        self.edges = list(include_edges(SRC))

    def test_sees_the_tree(self):
        self.assertTrue(SRC.is_dir(), SRC)
        self.assertGreater(len(self.edges), 20, "expected the includes of src/ to be found")

    def test_every_folder_has_a_floor(self):
        unknown = sorted(p.name for p in SRC.iterdir() if p.is_dir() and p.name not in FLOORS)
        self.assertEqual(unknown, [], "give these folders a floor in FLOORS")

    def test_no_include_climbs_a_floor(self):
        climbs = [
            f"{file}:{line}: {a} (floor {FLOORS[a]}) includes {b} (floor {FLOORS[b]})"
            for a, b, file, line in self.edges
            if a in FLOORS and b in FLOORS and FLOORS[b] > FLOORS[a]
        ]
        self.assertEqual(climbs, [], "\n" + "\n".join(climbs))

    def test_no_folder_cycle(self):
        found = cycles([(a, b) for a, b, _, _ in self.edges])
        self.assertEqual(found, [], "folder cycles: " + "; ".join(" <-> ".join(c) for c in found))


if __name__ == "__main__":
    runner.main()

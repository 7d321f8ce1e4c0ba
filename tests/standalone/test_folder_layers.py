#!/usr/bin/env python3
"""The folders of src/ form floors, and an #include only points down or
sideways on its own floor, never in a circle:

    bin -> app, admin -> manage_api, manage -> oidc -> fcgi, auth, messaging, push, sms, webhooks -> http
        -> db, crypto, config, core, metrics

and inside auth/, whose capabilities have folders of their own:

    auth/account, auth/password, auth/email, auth/passkey, auth/lookup -> auth/mfa
        -> auth/tokens, auth/session -> auth (the shared files at its root)

Each folder of src/ is a node, and so is each folder of src/auth/ (the
files at auth/'s root are the node "auth"); `#include "x/y.hpp"` in a file of
node f is an edge f -> x (`"auth/m/y.hpp"`: f -> auth/m). The test fails on
a cycle (printed as the nodes in it), on an edge that climbs a floor
(printed with the file and line), and on a folder that has no floor yet
(give it one below).

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
    "bin": 7,
    "app": 6,
    "admin": 6,
    # Site management (issue 49): one service per capability (manage/), which
    # svc-admin and the management API's handlers (manage_api/) both call.
    "manage_api": 5,
    "manage": 5,
    # The OpenID Connect provider: above auth/, whose sign-ins and sessions it uses.
    "oidc": 4,
    # Upstream sign-in (issue 51): providers, ID tokens, linking, the account
    # routes; the hosted flow that goes on with OpenID Connect is oidc/upstream.cpp.
    "upstream": 4,
    "fcgi": 3,
    "auth": 3,
    "messaging": 3,
    "push": 3,
    "sms": 3,
    # Webhooks: auth/ and messaging/ queue events; the client uses push/'s SSRF guard.
    "webhooks": 3,
    "http": 2,
    "db": 1,
    "crypto": 1,
    "config": 1,
    "core": 1,
    "metrics": 1,  # shared-memory counters: db and fcgi count into it
}

# Floors inside auth/ (only its own nodes are compared with these). Sessions
# sit beside tokens: every sign-in opens one and the tokens carry its id.
AUTH_FLOORS = {
    "auth/account": 3,
    "auth/password": 3,
    "auth/email": 3,
    "auth/passkey": 3,
    "auth/lookup": 3,
    "auth/mfa": 2,
    "auth/tokens": 1,
    "auth/session": 1,
    "auth": 0,
}
# A folder of auth/ (when it exists) that the tests below must know a floor of.
NESTED = "auth"

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def node_of(parts):
    """The node of a path inside src/ given as its parts ("auth", "mfa", "x.hpp")."""
    if parts[0] == NESTED and len(parts) > 2:
        return f"{parts[0]}/{parts[1]}"
    return parts[0]


def include_edges(src: Path):
    """(from_node, to_node, file, line) for every include between nodes."""
    folders = {p.name for p in src.iterdir() if p.is_dir()}
    for folder in sorted(folders):
        for path in sorted((src / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc"):
                continue
            node = node_of(path.relative_to(src).parts)
            text = path.read_text(errors="replace")
            for m in INCLUDE.finditer(text):
                parts = m.group(1).split("/")
                target = node_of(parts) if len(parts) > 1 else node
                if parts[0] in folders and target != node:
                    line = text.count("\n", 0, m.start()) + 1
                    yield node, target, path.relative_to(src.parent), line


def floor(node):
    """(top floor, floor inside its folder) of a node, None if it has none."""
    top = FLOORS.get(node.split("/")[0])
    if top is None:
        return None
    return top, AUTH_FLOORS.get(node, 0) if node.startswith(NESTED) else 0


def climbs(edges):
    """The edges that point to a higher floor (or inside auth/, a higher one of its own)."""
    out = []
    for a, b, file, line in edges:
        fa, fb = floor(a), floor(b)
        if fa is None or fb is None:
            continue
        same_folder = a.split("/")[0] == b.split("/")[0]
        if (same_folder and fb[1] > fa[1]) or (not same_folder and fb[0] > fa[0]):
            out.append(f"{file}:{line}: {a} (floor {fa}) includes {b} (floor {fb})")
    return out


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

    def test_finds_a_climb_between_folders(self):
        found = climbs([("http", "auth/mfa", "src/http/x.cpp", 3), ("auth", "http", "src/auth/y.cpp", 1)])
        self.assertEqual(len(found), 1)
        self.assertIn("src/http/x.cpp:3", found[0])

    def test_finds_a_climb_inside_auth(self):
        edges = [
            ("auth", "auth/password", "src/auth/auth_common.cpp", 3),
            ("auth/tokens", "auth/mfa", "src/auth/tokens/tokens.cpp", 2),
            ("auth/passkey", "auth/mfa", "src/auth/passkey/service.cpp", 4),
            ("auth/password", "auth/email", "src/auth/password/sign_up_service.cpp", 5),
            ("oidc", "auth/session", "src/oidc/authorize.cpp", 6),
        ]
        found = climbs(edges)
        self.assertEqual([f.split(":")[0] for f in found], ["src/auth/auth_common.cpp", "src/auth/tokens/tokens.cpp"])

    def test_auth_nodes_follow_their_folder(self):
        self.assertEqual(node_of(("auth", "mfa", "bearer.hpp")), "auth/mfa")
        self.assertEqual(node_of(("auth", "handlers.hpp")), "auth")
        self.assertEqual(node_of(("http", "sub", "x.hpp")), "http")


class FolderLayersTest(unittest.TestCase):
    def setUp(self):
        self.edges = list(include_edges(SRC))

    def test_sees_the_tree(self):
        self.assertTrue(SRC.is_dir(), SRC)
        self.assertGreater(len(self.edges), 20, "expected the includes of src/ to be found")

    def test_every_folder_has_a_floor(self):
        unknown = sorted(p.name for p in SRC.iterdir() if p.is_dir() and p.name not in FLOORS)
        self.assertEqual(unknown, [], "give these folders a floor in FLOORS")
        nested = sorted(
            f"{NESTED}/{p.name}" for p in (SRC / NESTED).iterdir() if p.is_dir() and f"{NESTED}/{p.name}" not in AUTH_FLOORS
        )
        self.assertEqual(nested, [], "give these folders a floor in AUTH_FLOORS")

    def test_no_include_climbs_a_floor(self):
        found = climbs(self.edges)
        self.assertEqual(found, [], "\n" + "\n".join(found))

    def test_no_folder_cycle(self):
        found = cycles([(a, b) for a, b, _, _ in self.edges])
        self.assertEqual(found, [], "folder cycles: " + "; ".join(" <-> ".join(c) for c in found))


if __name__ == "__main__":
    runner.main()

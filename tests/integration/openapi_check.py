"""Checks replies against docs/openapi.yaml, so the document cannot drift
from the code: svc_stack.request() calls check() on every reply it receives.

A reply of an API route (a path the document lists) must have a status the
operation documents and a JSON body valid against that status's schema; a
method the path does not serve must be the documented 405. Paths the document
does not list (unknown paths, the static /account/ pages) are not checked.

A mismatch raises AssertionError naming the route, status and body, which
fails the test that made the request. Requests made on other threads raise
there, where unittest does not see it, so every mismatch is also recorded and
an atexit hook turns a run that had any into a failing exit status.

Needs python3-yaml and python3-jsonschema (scripts/install-deps.sh); works
with jsonschema 4.10 (RefResolver) and with later ones (referencing).
"""

import atexit
import json
import re
import os
import sys
import threading

import jsonschema
import yaml

DOC_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "openapi.yaml")
_BASE = "urn:svc-openapi"
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")

_lock = threading.Lock()
_state = {}
FAILURES = []


def _load():
    """The parsed document and a function that builds a validator for a JSON
    pointer into it (loaded once per process)."""
    with _lock:
        if not _state:
            with open(DOC_PATH) as f:
                doc = yaml.safe_load(f)
            _state["doc"] = doc
            _state["validator"] = _validator_factory(doc)
            _state["cache"] = {}
        return _state


def _validator_factory(doc):
    cls = jsonschema.Draft202012Validator
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
        registry = Registry().with_resource(_BASE, Resource.from_contents(doc, default_specification=DRAFT202012))
        return lambda pointer: cls({"$ref": _BASE + "#" + pointer}, registry=registry)
    except ImportError:  # jsonschema < 4.18 (Debian bookworm's 4.10)
        resolver = jsonschema.RefResolver(base_uri=_BASE, referrer=doc)
        return lambda pointer: cls({"$ref": _BASE + "#" + pointer}, resolver=resolver)


def _escape(token):
    return token.replace("~", "~0").replace("/", "~1")


def _resolve(doc, node, pointer):
    """Follows a local $ref of an OpenAPI object (a response); returns (node, pointer)."""
    while isinstance(node, dict) and "$ref" in node:
        pointer = node["$ref"][1:]
        node = doc
        for part in pointer.strip("/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, pointer


def _template_of(doc, path):
    """The documented path template ("/oidc/{site}/token") that `path` is
    an instance of, each {name} one non-empty segment; None when none."""
    for template in doc["paths"]:
        if "{" not in template:
            continue
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    return None


def _schema_pointer(doc, path, method, status):
    """The pointer of the body schema for (path, method, status); None when
    the path is not in the document; raises LookupError for an undocumented
    method or status."""
    item = doc["paths"].get(path)
    if item is None:
        template = _template_of(doc, path)
        if template is None:
            return None
        path, item = template, doc["paths"][template]
    op = item.get(method.lower())
    if op is None:
        # A method the path does not serve: the application's 405, which any
        # operation of the path documents.
        if status != 405:
            raise LookupError("method not documented for the path, and the reply is not 405")
        op_name = next(m for m in _METHODS if m in item)
        method, op = op_name, item[op_name]
    responses = op.get("responses", {})
    key = str(status) if str(status) in responses else ("default" if "default" in responses else None)
    if key is None:
        raise LookupError("status %d is not documented (documented: %s)" % (status, ", ".join(sorted(responses))))
    pointer = "/paths/%s/%s/responses/%s" % (_escape(path), method.lower(), key)
    response, pointer = _resolve(doc, responses[key], pointer)
    if not response.get("content"):
        return ()  # a redirect: no body at all
    content = response.get("content", {}).get("application/json")
    if content is None and response.get("content"):
        return tuple(response["content"])  # a page (text/html): only its media type is checked
    if content is None or "schema" not in content:
        raise LookupError("status %d has no application/json schema" % status)
    return pointer + "/content/application~1json/schema"


def _fail(route, status, raw, problem):
    body = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    message = "reply does not match docs/openapi.yaml: %s -> %d %s\n  problem: %s" % (route, status, body[:500], problem)
    with _lock:
        FAILURES.append(message)
    raise AssertionError(message)


def check(method, path, status, headers, raw):
    """Raises AssertionError when the reply (status, JSON body) to `method
    path` is not what docs/openapi.yaml says; returns silently for paths the
    document does not list."""
    state = _load()
    path = path.split("?", 1)[0].split("#", 1)[0]
    route = "%s %s" % (method.upper(), path)
    try:
        pointer = _schema_pointer(state["doc"], path, method, status)
    except LookupError as e:
        _fail(route, status, raw, str(e))
    if pointer is None:
        return
    if method.upper() == "HEAD":
        return  # no body to check
    if pointer == ():
        if raw:
            _fail(route, status, raw, "the document gives this status no body")
        return
    if isinstance(pointer, tuple):
        if not headers.get("content-type", "").split(";")[0].strip() in pointer:
            _fail(route, status, raw, "Content-Type is %r, not one of %s" % (headers.get("content-type"), pointer))
        return
    if not headers.get("content-type", "").startswith("application/json"):
        _fail(route, status, raw, "Content-Type is %r, not application/json" % headers.get("content-type"))
    try:
        body = json.loads(raw)
    except ValueError as e:
        _fail(route, status, raw, "body is not JSON (%s)" % e)
    validator = state["cache"].get(pointer)
    if validator is None:
        validator = state["cache"][pointer] = state["validator"](pointer)
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        where = "/".join(str(p) for p in best.absolute_path) or "(body)"
        _fail(route, status, raw, "at %s: %s (schema %s)" % (where, best.message, pointer))


@atexit.register
def _fail_run_with_recorded_mismatches():
    if FAILURES:
        sys.stderr.write("\n%d repl%s did not match docs/openapi.yaml:\n%s\n" % (
            len(FAILURES), "y" if len(FAILURES) == 1 else "ies", "\n".join(FAILURES)))
        sys.stderr.flush()
        os._exit(1)

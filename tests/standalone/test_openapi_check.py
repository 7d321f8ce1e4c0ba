"""The reply check of the integration suite (tests/integration/openapi_check.py)
catches what it is there for: a reply whose status or body the document does
not give fails, with the route, status and body in the message; documented
replies pass. No stack needed (replies are made up here).
"""

import json
import unittest

import openapi_check
import runner

JSON = {"content-type": "application/json"}


def check(method, path, status, body, headers=JSON):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    openapi_check.check(method, path, status, headers, raw)


class OpenApiCheckTest(unittest.TestCase):
    def tearDown(self):
        # The failures below are on purpose: keep the atexit hook from failing the run.
        openapi_check.FAILURES.clear()

    def assertRejected(self, *args, says=()):
        with self.assertRaises(AssertionError) as ctx:
            check(*args)
        for text in says:
            self.assertIn(text, str(ctx.exception))
        return str(ctx.exception)

    def test_documented_replies_pass(self):
        check("POST", "/auth/login", 401, {"status": "Failed", "message": "Invalid credentials"})
        check("POST", "/auth/login", 400, {"status": "Failed", "message": "Validation error",
                                           "errors": [{"field": "email", "message": "email is required"}]})
        check("POST", "/auth/sign-up", 400, {"status": "Failed", "message": "Password does not meet security requirements",
                                             "requirements": {"minLength": True, "hasUpperCase": True,
                                                              "hasLowerCase": True, "hasNumber": True,
                                                              "hasSpecialChar": False}})
        check("POST", "/auth/getFolderLimits?x=1", 200, {"status": "Success", "data": [{"linked": 1}]})
        check("POST", "/message/notification", 401, {"status": "Error", "message": "Unauthorized"})
        check("POST", "/message/sendPush", 200, {"status": "Error"})
        check("GET", "/auth/login", 405, {"status": "Failed", "message": "Method not allowed"})
        check("GET", "/health", 200, {"status": "Success"})

    def test_templated_paths_are_checked_per_instance(self):
        # /oidc/{site}/token (issue 39): each site id is an instance.
        check("POST", "/oidc/7/token", 400, {"error": "invalid_grant", "error_description": "x"})
        self.assertRejected("POST", "/oidc/7/token", 400, {"status": "Failed"}, says=("POST /oidc/7/token -> 400",))
        self.assertRejected("POST", "/oidc/7/token", 418, {"error": "x"}, says=("not documented",))
        check("GET", "/oidc/7/x/token", 404, {"status": "Failed", "message": "Not found"})  # no template fits
        # A redirect has no body.
        check("GET", "/oidc/7/authorize", 302, b"")
        self.assertRejected("GET", "/oidc/7/authorize", 302, {"error": "x"}, says=("no body",))

    def test_paths_outside_the_document_are_not_checked(self):
        check("GET", "/auth/log-in", 404, {"status": "Failed", "message": "Not found"})
        check("GET", "/account/reset", 200, b"<!doctype html>", {"content-type": "text/html"})

    def test_a_wrong_body_fails_naming_route_status_and_body(self):
        message = self.assertRejected("POST", "/auth/login", 401, {"status": "Failed", "message": "Wrong password"},
                                      says=("POST /auth/login -> 401", "Wrong password"))
        self.assertIn("message", message)
        self.assertRejected("POST", "/auth/login", 200, {"status": "Success", "token": {"access_token": "x"}})
        self.assertRejected("POST", "/message/notification", 401, {"status": "Failed", "message": "Unauthorized"})
        self.assertRejected("POST", "/auth/login", 400, {"status": "Failed", "message": "Validation error",
                                                         "errors": [], "extra": 1})

    def test_an_undocumented_status_fails(self):
        self.assertRejected("POST", "/auth/sign-out", 400, {"status": "Failed", "message": "Validation error",
                                                            "errors": [{"field": "x", "message": "y"}]},
                            says=("POST /auth/sign-out -> 400", "not documented"))
        self.assertRejected("DELETE", "/auth/login", 404, {"status": "Failed", "message": "Not found"})

    def test_a_body_that_is_not_json_fails(self):
        self.assertRejected("POST", "/auth/login", 502, b"<html>bad gateway</html>", {"content-type": "text/html"},
                            says=("not application/json",))
        self.assertRejected("POST", "/auth/login", 500, b"{oops", says=("not JSON",))

    def test_recorded_for_requests_made_on_other_threads(self):
        self.assertRejected("POST", "/auth/login", 200, {"status": "Success"})
        self.assertEqual(len(openapi_check.FAILURES), 1)


if __name__ == "__main__":
    runner.main()

"""A site's upstream providers ("Sign in with …") through the site
management API (issues 49 and 51): an admin lists, adds and removes them;
a viewer, another site's admin and an admin without a second factor are
refused, nothing changed; the audit has each change without the secret;
svc-admin `site provider add|list|remove` goes through the same service
(actor `operator`). The provider added here is svc's own OpenID Connect
provider on another site of the stack, found by discovery.
"""

import svc_stack
from site_admins import FORBIDDEN, SECOND_FACTOR, UNAUTHORIZED, Admin, audit_rows, create_site
from svc_stack import ApiTest, admin, sql_value

BASE = "http://localhost:%d" % svc_stack.HTTP_PORT
SECRET = "provider-secret-never-shown"


class SiteAdminProvidersTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()", SECRET.lower())

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Providers")
        cls.upstream_site = create_site("Upstream issuer")
        cls.owner = Admin(cls.site, "owner")
        cls.viewer = Admin(cls.site, "viewer")
        cls.no_factor = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.upstream_site, "owner")

    def body(self, name):
        return {"name": name, "type": "oidc", "issuer": "%s/oidc/%d" % (BASE, self.upstream_site),
                "client_id": "client-of-" + name, "client_secret": SECRET, "trust_email": True}

    def names(self):
        reply = self.viewer.call("GET", "/providers")
        self.assertReply(reply, 200)
        return [p["name"] for p in reply.json["providers"]]

    def test_admin_adds_lists_and_removes_a_provider(self):
        added = self.owner.call("POST", "/providers", self.body("corp"))
        self.assertReply(added, 200)
        provider = added.json["provider"]
        self.assertEqual((provider["name"], provider["type"], provider["issuer"], provider["trust_email"]),
                         ("corp", "oidc", "%s/oidc/%d" % (BASE, self.upstream_site), True))
        self.assertTrue(provider["callback"].endswith("/oidc/%d/upstream/corp/callback" % self.site), provider)
        self.assertNoLeak(added)
        self.assertIn("corp", self.names())
        self.assertExact(self.owner.call("POST", "/providers", self.body("corp")), 409,
                         {"status": "Failed", "message": "The site has a provider of that name"})
        self.assertEqual(audit_rows(self.site, "providers.add")[-1][:2], (str(self.owner.id), "provider corp"))
        self.assertNotIn(SECRET, str(audit_rows(self.site, "providers.add")))
        self.assertReply(self.owner.call("DELETE", "/providers/corp"), 200, {"status": "Success"})
        self.assertNotIn("corp", self.names())
        self.assertExact(self.owner.call("DELETE", "/providers/corp"), 404,
                         {"status": "Failed", "message": "Provider not found"})
        self.assertEqual(audit_rows(self.site, "providers.remove")[-1][:2], (str(self.owner.id), "provider corp"))

    def test_refused_callers_change_nothing(self):
        self.assertReply(self.owner.call("POST", "/providers", self.body("kept")), 200)
        for path, method, body in (("/providers", "POST", self.body("other")), ("/providers/kept", "DELETE", None)):
            with self.subTest(method):
                self.assertExact(self.viewer.call(method, path, body), 403, FORBIDDEN)
                self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
                self.assertExact(self.no_factor.call(method, path, body), 403, SECOND_FACTOR)
                self.assertExact(self.owner.call(method, path, body, token="x.y.z"), 401, UNAUTHORIZED)
        self.assertExact(self.stranger.call("GET", "/providers", site=self.site), 403, FORBIDDEN)
        self.assertEqual(sorted(self.names()), ["kept"])
        # Another site's provider of the same name is not this site's.
        self.assertExact(self.stranger.call("DELETE", "/providers/kept"), 404,
                         {"status": "Failed", "message": "Provider not found"})
        self.assertEqual(sorted(self.names()), ["kept"])

    def test_bad_specs_are_400_naming_the_field(self):
        for body, field in (({**self.body("x"), "name": "Not A Name"}, "name"),
                            ({**self.body("x"), "client_id": ""}, "client_id"),
                            ({**self.body("x"), "client_secret": ""}, "client_secret"),
                            ({**self.body("x"), "type": "saml"}, "type"),
                            ({**self.body("x"), "issuer": "http://127.0.0.1:9/none"}, "issuer"),
                            ({**self.body("x"), "colour": "red"}, "colour")):
            with self.subTest(field):
                self.assertOnlyFields(self.owner.call("POST", "/providers", body), field)
        self.assertNotIn("x", self.names())

    def test_cli_goes_through_the_same_service(self):
        site = create_site("Providers CLI")
        path = svc_stack.STACK_DIR + "/provider-secret.txt"
        with open(path, "w") as f:
            f.write(SECRET + "\n")
        out = admin("site", "provider", "add", "--site", str(site), "--name", "cli", "--type", "oidc",
                    "--issuer", "%s/oidc/%d" % (BASE, self.upstream_site), "--client-id", "c",
                    "--client-secret-file", path).stdout
        self.assertIn("callback: ", out)
        self.assertEqual(audit_rows(site, "providers.add")[-1][:2], ("operator", "provider cli"))
        bad = admin("site", "provider", "add", "--site", str(site), "--name", "Bad Name", "--client-id", "c",
                    "--client-secret-file", path, check=False)
        self.assertEqual(bad.returncode, 2, bad)
        self.assertIn("--name", bad.stderr)
        admin("site", "provider", "remove", "--site", str(site), "--name", "cli")
        self.assertEqual(audit_rows(site, "providers.remove")[-1][:2], ("operator", "provider cli"))
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_upstream_providers WHERE site_id = %d" % site), "0")


if __name__ == "__main__":
    svc_stack.main()

"""The Templates capability of the site management API (issue 49, design
"Site administrators and the site management API"), through nginx, real
workers and MariaDB, and the same through svc-admin.

- Every route: an admin (or owner) does it, a viewer may read and preview
  but not write or test-send, another site's admin is refused, an admin
  without a second factor is refused, and another site's template id
  through this site's path is "Template not found".
- Each save is a version: the list pages newest first, one version reads
  with its content, a rollback saves an old one again as a new version.
- An edit based on an old version is 409 "Template changed by someone
  else" and overwrites nothing.
- Content the parser refuses (here: a script element, an event handler, a
  javascript: link; an empty subject) is 400 with field errors, nothing
  changed.
- The preview is the mail as svc-sender sends it: merged subject, HTML and
  text parts, and the placeholders; a test send arrives in the SMTP sink.
- Every change writes its svc_admin_audit row (the admin's id, or
  "operator" from svc-admin).
"""

import json
import os
import tempfile

import svc_stack
from site_admins import Admin, audit_rows, create_site
from svc_stack import ApiTest, admin, sql, sql_value

FORBIDDEN = {"status": "Failed", "message": "Forbidden"}
SECOND_FACTOR = {"status": "Failed", "message": "Second factor required for site administration"}
NOT_FOUND = {"status": "Failed", "message": "Template not found"}
CHANGED = {"status": "Failed", "message": "Template changed by someone else"}


def new_template(event, subject="Hello [name]", content="<p>Dear [name], order [order].</p>"):
    return {"event": event, "subject": subject, "content": content}


class SiteAdminTemplatesTest(ApiTest):
    LEAK_WORDS = ("sql", "mariadb", "exception", "what()")

    @classmethod
    def setUpClass(cls):
        cls.site = create_site("Templates A")
        cls.other_site = create_site("Templates B")
        for site in (cls.site, cls.other_site):
            admin("site", "set", "--site", str(site), "--email-from", "Shop <shop@managed.example>")
        cls.owner = Admin(cls.site, "owner")
        cls.admin = Admin(cls.site, "admin")
        cls.viewer = Admin(cls.site, "viewer")
        cls.no_factor = Admin(cls.site, "admin", second_factor=False)
        cls.stranger = Admin(cls.other_site, "owner")
        cls.counter = 0

    def event(self):
        SiteAdminTemplatesTest.counter += 1
        return "tpl-%d-%d" % (os.getpid(), SiteAdminTemplatesTest.counter)

    def create(self, who=None, **fields):
        body = new_template(self.event())
        body.update(fields)
        reply = (who or self.admin).call("POST", "/templates", body)
        self.assertReply(reply, 200)
        return reply.json["template"]

    def row(self, tid):
        return sql("SELECT event, enabled, subject, content FROM svc_notifications WHERE id = %d" % tid)

    def refused(self, method, path, body=None, write=True):
        """A viewer (for writes), another site's owner and an admin without a
        second factor are refused; the other site's owner using this
        template's id through their own site's path finds nothing."""
        if write:
            self.assertExact(self.viewer.call(method, path, body), 403, FORBIDDEN)
        self.assertExact(self.stranger.call(method, path, body, site=self.site), 403, FORBIDDEN)
        self.assertExact(self.no_factor.call(method, path, body), 403, SECOND_FACTOR)
        if path.startswith("/templates/"):
            self.assertExact(self.stranger.call(method, path, body), 404, NOT_FOUND)

    def test_create_show_list(self):
        body = new_template(self.event())
        self.refused("POST", "/templates", body)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_notifications WHERE event = '%s'" % body["event"]), "0")
        made = self.owner.call("POST", "/templates", dict(body, locale="de-AT", priority="bulk", bcc="a@example.com; b@example.com"))
        self.assertReply(made, 200)
        t = made.json["template"]
        self.assertEqual((t["event"], t["locale"], t["enabled"], t["priority"], t["bcc"], t["version"]),
                         (body["event"], "de-at", True, "bulk", "a@example.com, b@example.com", 1))
        self.assertEqual(audit_rows(self.site, "templates.create")[-1],
                         (str(self.owner.id), "template %d" % t["id"], "event %s, locale de-at, version 1" % body["event"]))
        again = self.admin.call("POST", "/templates", dict(body, locale="de-AT"))
        self.assertExact(again, 409, {"status": "Failed", "message": "Template already exists"})

        path = "/templates/%d" % t["id"]
        self.refused("GET", path, write=False)
        shown = self.viewer.call("GET", path)
        self.assertReply(shown, 200)
        self.assertEqual(shown.json["template"]["content"], body["content"])
        listed = self.viewer.call("GET", "/templates", query={"limit": 100})
        self.assertReply(listed, 200)
        self.assertIn(t["id"], [x["id"] for x in listed.json["templates"]])
        self.assertNotIn("content", listed.json["templates"][0])
        self.refused("GET", "/templates", write=False)
        self.assertNotIn(t["id"], [x["id"] for x in self.stranger.call("GET", "/templates").json["templates"]])
        # Pages of one.
        self.create()
        first = self.viewer.call("GET", "/templates", query={"limit": 1})
        second = self.viewer.call("GET", "/templates", query={"limit": 1, "cursor": first.json["next_cursor"]})
        self.assertReply(second, 200)
        self.assertNotEqual(first.json["templates"][0]["id"], second.json["templates"][0]["id"])
        bad = self.viewer.call("GET", "/templates", query={"limit": 1, "cursor": first.json["next_cursor"] + "x"})
        self.assertValidation(bad, "cursor")

    def test_edit_versions_rollback_and_the_concurrent_edit(self):
        t = self.create()
        path = "/templates/%d" % t["id"]
        self.refused("PATCH", path, {"subject": "X", "version": 1})
        first = self.admin.call("PATCH", path, {"subject": "First [name]", "version": 1})
        self.assertReply(first, 200)
        self.assertEqual(first.json["template"]["version"], 2)
        # Another admin edits version 1 too: refused, nothing overwritten.
        late = self.owner.call("PATCH", path, {"subject": "Late [name]", "enabled": False, "version": 1})
        self.assertExact(late, 409, CHANGED)
        self.assertEqual(self.row(t["id"])[0][:3], [t["event"], "1", "First [name]"])
        self.assertValidation(self.admin.call("PATCH", path, {"subject": "No version"}), "version")
        self.assertEqual(audit_rows(self.site, "templates.update")[-1][:2], (str(self.admin.id), "template %d" % t["id"]))

        self.refused("GET", path + "/versions", write=False)
        versions = self.viewer.call("GET", path + "/versions", query={"limit": 1})
        self.assertReply(versions, 200)
        self.assertEqual([(v["version"], v["action"], v["actor"]) for v in versions.json["versions"]],
                         [(2, "update", str(self.admin.id))])
        older = self.viewer.call("GET", path + "/versions", query={"limit": 1, "cursor": versions.json["next_cursor"]})
        self.assertEqual([(v["version"], v["action"]) for v in older.json["versions"]], [(1, "create")])
        self.assertIsNone(older.json["next_cursor"])
        self.refused("GET", path + "/versions/1", write=False)
        one = self.viewer.call("GET", path + "/versions/1")
        self.assertReply(one, 200)
        self.assertEqual((one.json["version"]["subject"], one.json["version"]["content"]), (t["subject"], t["content"]))
        self.assertExact(self.viewer.call("GET", path + "/versions/9"), 404, {"status": "Failed", "message": "Version not found"})

        self.refused("POST", path + "/rollback", {"version": 1})
        back = self.admin.call("POST", path + "/rollback", {"version": 1})
        self.assertReply(back, 200)
        self.assertEqual((back.json["template"]["version"], back.json["template"]["subject"]), (3, t["subject"]))
        self.assertEqual(self.row(t["id"])[0][2], t["subject"])
        self.assertEqual(audit_rows(self.site, "templates.rollback")[-1],
                         (str(self.admin.id), "template %d" % t["id"], "event %s, version 3" % t["event"]))

    def test_content_that_does_not_parse_changes_nothing(self):
        t = self.create()
        path = "/templates/%d" % t["id"]
        for content in ("<p>hi</p><script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                        "<a href=\"jav&#x61;script:alert(1)\">x</a>", " \n"):
            self.assertValidation(self.admin.call("PATCH", path, {"content": content, "version": 1}), "content")
            self.assertValidation(self.admin.call("POST", "/templates", new_template(self.event(), content=content)),
                                  "content")
        self.assertValidation(self.admin.call("PATCH", path, {"subject": "two\nlines", "version": 1}), "subject")
        self.assertValidation(self.admin.call("PATCH", path, {"priority": "urgent", "version": 1}), "priority")
        self.assertEqual(self.row(t["id"]), [[t["event"], "1", t["subject"], t["content"]]])
        self.assertEqual(sql_value("SELECT MAX(version) FROM svc_template_versions WHERE template_id = %d" % t["id"]), "1")

    def test_preview_is_the_mail_as_sent(self):
        t = self.create(content="<p>Dear [name],</p><p>order <b>[order]</b> &amp; more</p><a href=\"[link]\">see</a>")
        path = "/templates/%d/preview" % t["id"]
        data = {"data": {"name": "Ada <Lovelace>", "order": 42, "link": "https://shop.example/o/42"}}
        self.refused("POST", path, data, write=False)
        reply = self.viewer.call("POST", path, data)
        self.assertReply(reply, 200)
        p = reply.json["preview"]
        self.assertEqual(p["subject"], "Hello Ada <Lovelace>")
        self.assertEqual(p["html"], "<p>Dear Ada &lt;Lovelace&gt;,</p><p>order <b>42</b> &amp; more</p>"
                                    "<a href=\"https://shop.example/o/42\">see</a>")
        self.assertEqual(p["text"], "Dear Ada <Lovelace>,\n\norder 42 & more\nsee\nhttps://shop.example/o/42")
        self.assertEqual(p["placeholders"], ["name", "order", "link"])
        # An unsaved draft previews without being saved.
        draft = self.viewer.call("POST", path, {"data": {"x": "1"}, "content": "<p>[x] draft</p>"})
        self.assertEqual(draft.json["preview"]["html"], "<p>1 draft</p>")
        self.assertEqual(self.row(t["id"])[0][3], t["content"])
        # Sample data that makes a script address is never returned.
        bad = self.viewer.call("POST", path, {"data": {"link": "javascript:alert(1)"}})
        self.assertValidation(bad, "data")
        self.assertValidation(self.viewer.call("POST", path, {"content": "<script>x</script>"}), "content")

    def test_test_send_arrives_with_merged_fields(self):
        svc_stack.require_sender(self)
        t = self.create(subject="Test [order]", bcc="copy@example.com")
        path = "/templates/%d/test-send" % t["id"]
        body = {"data": {"name": "Grace", "order": "T-%d" % t["id"]}}
        self.refused("POST", path, body)
        seen = svc_stack.mail_files()
        reply = self.admin.call("POST", path, body)
        self.assertReply(reply, 200)
        self.assertEqual(reply.json["to"], self.admin.email)
        msg = svc_stack.wait_for_mail(lambda m: m.get("Subject") == "Test T-%d" % t["id"], after=seen)
        self.assertEqual(str(msg.get("To")), self.admin.email)
        self.assertIn("Dear Grace, order T-%d." % t["id"], msg.get_body(("html",)).get_content())
        self.assertEqual(str(msg.get("X-Sink-Rcpt-To", "")).strip().lower(), self.admin.email.lower())
        self.assertEqual(audit_rows(self.site, "templates.test_send")[-1][:2], (str(self.admin.id), "template %d" % t["id"]))

    def test_delete(self):
        t = self.create()
        path = "/templates/%d" % t["id"]
        self.refused("DELETE", path)
        self.assertEqual(len(self.row(t["id"])), 1)
        self.assertReply(self.admin.call("DELETE", path), 200)
        self.assertEqual(self.row(t["id"]), [])
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_template_versions WHERE template_id = %d" % t["id"]), "0")
        self.assertExact(self.admin.call("GET", path), 404, NOT_FOUND)
        self.assertEqual(audit_rows(self.site, "templates.delete")[-1],
                         (str(self.admin.id), "template %d" % t["id"], "event %s, version 1" % t["event"]))

    def test_cli_does_the_same_with_operator_in_the_audit(self):
        site = str(self.site)
        event = self.event()
        with tempfile.TemporaryDirectory() as d:
            subject, content = os.path.join(d, "s"), os.path.join(d, "c")
            with open(subject, "w") as f:
                f.write("CLI [order]\n")
            with open(content, "w") as f:
                f.write("<p>Hi [name]</p>")
            made = admin("template", "set", "--site", site, "--event", event, "--subject-file", subject,
                         "--content-file", content).stdout
            self.assertIn("created", made)
            tid = int(sql_value("SELECT id FROM svc_notifications WHERE site_id = %s AND event = '%s'" % (site, event)))
            self.assertEqual(audit_rows(self.site, "templates.create")[-1][:2], ("operator", "template %d" % tid))
            with open(content, "w") as f:
                f.write("<p>Bye [name]</p>")
            admin("template", "set", "--site", site, "--event", event, "--subject-file", subject, "--content-file", content)
            with open(content, "w") as f:
                f.write("<p onclick=\"x()\">Bye</p>")
            bad = admin("template", "set", "--site", site, "--event", event, "--subject-file", subject,
                        "--content-file", content, check=False)
            self.assertEqual(bad.returncode, 1, bad.stderr)
            self.assertIn("holds an event handler attribute (onclick)", bad.stderr)
        shown = admin("template", "show", "--site", site, "--event", event).stdout
        self.assertIn("version:   2\n", shown)
        self.assertIn("<p>Bye [name]</p>", shown)
        versions = admin("template", "versions", "--site", site, "--id", str(tid)).stdout
        self.assertRegex(versions, r"\n2 +  \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  operator  update ")
        preview = admin("template", "preview", "--site", site, "--event", event, "--data",
                        json.dumps({"name": "Ada", "order": 7})).stdout
        self.assertIn("subject: CLI 7\nfields:  order, name\nhtml:\n<p>Bye Ada</p>\ntext:\nBye Ada\n", preview)
        back = admin("template", "rollback", "--site", site, "--event", event, "--to-version", "1").stdout
        self.assertIn("version 3 is version 1 again", back)
        self.assertEqual(self.row(tid)[0][3], "<p>Hi [name]</p>")
        self.assertEqual(audit_rows(self.site, "templates.rollback")[-1][:2], ("operator", "template %d" % tid))
        # The operator's test send goes to --to only.
        svc_stack.require_sender(self)
        to = svc_stack.unique_email("cli-test")
        seen = svc_stack.mail_files()
        admin("template", "test-send", "--site", site, "--id", str(tid), "--to", to, "--data", '{"order": "C-%d"}' % tid)
        msg = svc_stack.wait_for_mail(lambda m: m.get("Subject") == "CLI C-%d" % tid, after=seen)
        self.assertEqual(str(msg.get("To")), to)
        self.assertEqual(audit_rows(self.site, "templates.test_send")[-1][:2], ("operator", "template %d" % tid))
        # Another site's template through this site: not found, exit 2.
        foreign = self.create(who=self.stranger)
        bad = admin("template", "show", "--site", site, "--id", str(foreign["id"]), check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("Template not found", bad.stderr)
        admin("template", "delete", "--site", site, "--id", str(tid))
        self.assertEqual(self.row(tid), [])
        self.assertEqual(audit_rows(self.site, "templates.delete")[-1][:2], ("operator", "template %d" % tid))


if __name__ == "__main__":
    svc_stack.main()

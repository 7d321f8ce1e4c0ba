"""The console's Templates section (web/console/templates.js; issue 50) in
Chromium (console_templates_browser.js, puppeteer-core, axe-core) through
nginx, at 1280 and 390 px.

An owner (TOTP, as in test_console.py) opens a template, types sample data
and edits the HTML: the preview (svc's own rendering, POST .../preview with
the unsaved text) follows and the new placeholder gets a sample field.
Markup in the sample data is shown as text in a sandbox="" iframe and never
runs (no dialog opens); a script in the content is refused by the API with
the error under the HTML field. The owner saves (a new version), sends a
test to their own address (it arrives in the SMTP sink with the fields
merged); another administrator saves meanwhile, so the owner's next save
is refused with the unsaved text kept and said next to the form; the owner
compares versions 1 and the newest and rolls back to 1. The owner's
sign-in ends mid-edit: the save asks to sign in again over the page and
goes on after it; a preview sent before that sign-in (held on its way by
the driver) gets its 401 after it and is sent again, with no second
dialog. The owner creates
a template (an event with a space is refused under its field), a locale
variant of it (starting from its text; the default locale, taken, is said
under the locale field) and deletes the variant once its event is typed
exactly (a wrong one is said under the field). A viewer previews and sees
no write button, no "New template" nor "Add a locale variant". axe-core finds no serious or critical violation;
no page overflows at 390 px; every field has a label.
"""

import json
import os

import svc_stack
from svc_stack import ApiTest, sql_value
from site_admins import PASSWORD, Admin, audit_rows
from test_console import ORIGIN, console_site, run_console_browser, with_totp

BROWSER_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "console_templates_browser.js")
ORIGINAL = "<p>Dear [name], order received.</p>"
EDITED = "<p>Dear [name], your order [order] shipped.</p>"


class ConsoleTemplatesTest(ApiTest):
    def test_an_owner_edits_previews_sends_and_rolls_back_a_template(self):
        site = console_site("Console templates", "console-tpl.example")
        owner, owner_id, owner_secret = with_totp(site, "tpl-owner", "owner")
        viewer, _, viewer_secret = with_totp(site, "tpl-viewer", "viewer")
        other = Admin(site, "admin")
        made = other.call("POST", "/templates", {"event": "order-shipped", "subject": "Hello [name]",
                                                 "content": ORIGINAL})
        self.assertEqual(made.status, 200, made)
        tid = made.json["template"]["id"]
        other.call("POST", "/templates", {"event": "order-shipped", "locale": "de", "subject": "Hallo [name]",
                                          "content": "<p>Hallo [name]</p>"})
        seen_mail = svc_stack.mail_files()
        args = {"owner": owner, "ownerSecret": owner_secret, "viewer": viewer, "viewerSecret": viewer_secret,
                "password": PASSWORD, "templateId": tid, "content": EDITED}

        def save_meanwhile():
            """Another administrator saves the template meanwhile."""
            current = other.call("GET", "/templates/%d" % tid).json["template"]
            theirs = other.call("PATCH", "/templates/%d" % tid,
                                {"version": current["version"], "subject": "Theirs [name]"})
            self.assertEqual(theirs.status, 200, theirs)
            return "saved"

        def end_sessions():
            """The owner's sign-in ends mid-edit."""
            ended = Admin(site, "owner").call("DELETE", "/users/%d/sessions" % owner_id)
            self.assertEqual(ended.status, 200, ended)
            return "ended"

        seen = run_console_browser(self, BROWSER_SCRIPT, site, args, "concurrent-save", save_meanwhile,
                                   more=[("end-sessions", end_sessions)])
        states = seen["states"]

        self.assertIn("Templates", states["signedIn"]["nav"])
        rows = states["list"]["rows"]
        self.assertEqual(len(rows), 2, rows)
        self.assertTrue(any("order-shipped" in r and "default locale" in r and "enabled" in r for r in rows), rows)
        self.assertTrue(any("locale de" in r for r in rows), rows)

        opened = states["opened"]
        self.assertEqual(opened["h1"], ["order-shipped"])
        self.assertEqual(opened["placeholders"], ["[name]"])
        self.assertEqual(opened["sandbox"], "")
        self.assertIn("order received.", opened["previewText"])
        self.assertIn("Dear Grace, order received.", states["sampled"]["previewText"])
        self.assertEqual(states["sampled"]["previewSubject"], "Hello Grace")
        edited = states["edited"]
        self.assertEqual(edited["placeholders"], ["[name]", "[order]"])
        self.assertIn("Dear Grace, your order A-17 shipped.", edited["previewText"])
        self.assertIn("your order A-17 shipped", edited["srcdoc"])

        # Markup in the sample data: escaped in the HTML part, never run.
        markup = states["markupSample"]
        self.assertIn("&lt;script&gt;alert(2)&lt;/script&gt;", markup["srcdoc"])
        self.assertNotIn("<script>", markup["srcdoc"])
        self.assertEqual(markup["sandbox"], "")
        self.assertFalse(markup["frameDocument"])  # an opaque origin: the page cannot reach in, nor it out
        self.assertEqual(seen["dialogs"], [])
        # A script in the content: refused, the error under the HTML field.
        self.assertTrue(any("script" in e.lower() for e in states["scriptContent"]["errors"]),
                        states["scriptContent"])
        self.assertNotIn("alert(3)", json.dumps(states["scriptContent"]["srcdoc"]))

        self.assertTrue(any("Saved as version 2." in s for s in states["saved"]["status"]), states["saved"])
        saved = other.call("GET", "/templates/%d/versions/2" % tid).json["version"]
        self.assertEqual((saved["content"], saved["actor"]), (EDITED, str(owner_id)))
        self.assertTrue(any("on its way to %s" % owner in s for s in states["testSent"]["status"]))
        msg = svc_stack.wait_for_mail(lambda m: m.get("Subject") == "Hello Grace", after=seen_mail)
        self.assertEqual(str(msg.get("To")), owner)
        self.assertIn("Dear Grace, your order A-17 shipped.", msg.get_body(("html",)).get_content())
        self.assertEqual(audit_rows(site, "templates.test_send")[-1][:2], (str(owner_id), "template %d" % tid))

        conflict = states["conflict"]
        self.assertTrue(any("Someone else saved this template" in s for s in conflict["status"]), conflict)
        self.assertEqual(conflict["subject"], "Mine [name]")
        self.assertEqual(conflict["content"], EDITED)
        theirs = other.call("GET", "/templates/%d/versions/3" % tid).json["version"]
        self.assertEqual((theirs["subject"], theirs["actor"]), ("Theirs [name]", str(other.id)))

        diff = states["diff"]
        self.assertIn("- " + ORIGINAL, diff["diff"])
        self.assertIn("+ " + EDITED, diff["diff"])
        self.assertIn("- Subject: Hello [name]", diff["diff"])
        self.assertIn("+ Subject: Theirs [name]", diff["diff"])
        self.assertEqual(seen["rollbackFocus"], "Cancel")
        self.assertTrue(any("Version 1 is the newest again, as version 4." in s
                            for s in states["rolledBack"]["status"]), states["rolledBack"])
        rolled = other.call("GET", "/templates/%d/versions/4" % tid).json["version"]
        self.assertEqual((rolled["content"], rolled["subject"], rolled["action"]), (ORIGINAL, "Hello [name]", "rollback"))
        self.assertEqual(audit_rows(site, "templates.rollback")[-1][0], str(owner_id))

        # The sign-in ended mid-edit: asked again over the page, the text kept and saved.
        reauth = states["reauth"]
        self.assertTrue(reauth["dialogOpen"])
        self.assertEqual(reauth["subject"], "Expired [name]")
        after = states["afterReauth"]
        self.assertFalse(after["dialogOpen"])
        self.assertEqual(after["subject"], "Expired [name]")
        self.assertTrue(any("Saved as version 5." in s for s in after["status"]), after["status"])
        self.assertEqual(sql_value("SELECT subject FROM svc_notifications WHERE id = %d" % tid), "Expired [name]")
        # The preview sent before the sign-in again (held on its way): its
        # 401 is answered by sending it again with the new sign-in, no
        # second dialog.
        self.assertEqual(seen["previewReplies"], [401, 200])
        self.assertFalse(states["afterHeldPreview"]["dialogOpen"])
        self.assertTrue(states["afterHeldPreview"]["previewSubject"].startswith("Expired"))

        # A template created, a locale variant of it, the variant deleted.
        self.assertTrue(states["createBad"]["hash"].startswith("#templates/new"), states["createBad"])
        self.assertTrue(any("event" in e.lower() for e in states["createBad"]["errors"]), states["createBad"])
        created = states["created"]
        new_id = int(created["hash"].rsplit("/", 1)[1])
        self.assertEqual(created["h1"], ["welcome-back"])
        self.assertIn("default locale", created["where"])
        made = other.call("GET", "/templates/%d" % new_id).json["template"]
        self.assertEqual((made["event"], made["locale"], made["subject"], made["version"]),
                         ("welcome-back", "", "Welcome back [name]", 1))
        form = states["variantForm"]
        self.assertEqual((form["newEvent"], form["newSubject"]), ("welcome-back", "Welcome back [name]"))
        self.assertEqual(form["h1"], ["New locale variant of welcome-back"])
        self.assertTrue(any("locale already" in e for e in states["variantTaken"]["errors"]), states["variantTaken"])
        variant = states["variant"]
        variant_id = int(variant["hash"].rsplit("/", 1)[1])
        self.assertNotEqual(variant_id, new_id)
        self.assertIn("locale fr", variant["where"])
        self.assertEqual([r[:2] for r in audit_rows(site, "templates.create") if r[0] == str(owner_id)],
                         [(str(owner_id), "template %d" % new_id), (str(owner_id), "template %d" % variant_id)])
        self.assertTrue(any("Type the event exactly" in e for e in states["deleteWrong"]["errors"]),
                        states["deleteWrong"])
        deleted = states["deleted"]
        self.assertEqual(deleted["hash"], "#templates")
        self.assertTrue(any("welcome-back (locale fr) is deleted." in s for s in deleted["status"]), deleted)
        self.assertFalse(any("welcome-back" in r and "locale fr" in r for r in deleted["rows"]), deleted["rows"])
        self.assertTrue(any("welcome-back" in r and "default locale" in r for r in deleted["rows"]), deleted["rows"])
        self.assertEqual(other.call("GET", "/templates/%d" % variant_id).status, 404)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_template_versions WHERE template_id = %d"
                                   % variant_id), "0")
        self.assertEqual(audit_rows(site, "templates.delete")[-1][:2], (str(owner_id), "template %d" % variant_id))

        # A viewer previews; no button changes anything.
        for name in ("viewerList", "viewerTemplate", "viewerTemplate390"):
            buttons = states[name]["viewButtons"]
            self.assertFalse([b for b in buttons if b in ("Save", "Roll back", "Delete") or b.startswith("Send a test")],
                             (name, buttons))
            self.assertEqual(states[name]["links"], [], name)
        self.assertIn("order received.", states["viewerTemplate"]["previewText"])
        self.assertEqual(other.call("PATCH", "/templates/%d" % tid, {"version": 4, "subject": "x"},
                                    token=Admin(site, "viewer").token).status, 403)

        for name, state in list(seen["widths"].items()) + [("viewerTemplate390", states["viewerTemplate390"])]:
            self.assertFalse(state["overflow"], name)
            self.assertTrue(state["labels"], name)
            self.assertEqual(state["storage"], 0, name)
        for page, violations in seen["axe"].items():
            self.assertEqual(violations, [], page)
        self.assertGreaterEqual(len(seen["axe"]), 10)
        self.assertEqual([e for e in seen["consoleErrors"] if not e.startswith("Failed to load resource")], [])
        self.assertTrue(all(r.split(" ", 1)[1].startswith((ORIGIN + "/", "about:srcdoc")) for r in seen["requests"]),
                        seen["requests"])
        for path in seen["screenshots"]:
            self.assertGreater(os.path.getsize(path), 1000, path)


if __name__ == "__main__":
    svc_stack.main()

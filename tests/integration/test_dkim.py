"""DKIM signing per site (issue 12), checked by an independent verifier:
python3-dkim verifies every signed mail in the sink against the TXT record
that `svc-admin dkim-keys` printed, as a receiver would after a DNS lookup.

Each test makes its own site with its own key (RSA and Ed25519), queues rows
through SQL with the contents that break naive canonicalisation (non-ASCII
subject and body, lines longer than 998 bytes, lines starting with dots,
trailing blanks), runs svc-sender once and verifies what the sink received.
"""

import re
import uuid

import dkim

import svc_stack as S
import test_sender as TS

RECORD = re.compile(r'^(\S+)\._domainkey\.(\S+)\. IN TXT((?: "[^"]*")+)$')

BODIES = [
    ("Grüße aus Köln — ünïcödé ✓", "<p>Sehr geehrte Frau Müller, Ihre Bestellung über 42 € ist unterwegs.</p>"),
    ("Long lines", "<p>" + ("abcdefghij " * 300) + "</p><pre>" + ("x" * 2500) + "</pre>"),
    ("Leading dots", "<pre>.\n..\n.hidden\n. dot space\n</pre><p>.</p>"),
    ("Blanks   and\ttabs", "<p>trailing blanks   </p>\n\n\n<p>  indented\t\ttabs  </p>\n\n"),
]


def new_site(domain):
    out = S.admin("site", "create", "--user-pool", "default", "--name", "dkim-" + domain, "--domain", domain,
                  "--email-from", "Shop <shop@%s>" % domain).stdout
    return int(out.strip().splitlines()[-1])


def make_key(site, selector, algorithm=None):
    args = ["dkim-keys", "--site", str(site), "--selector", selector]
    if algorithm:
        args += ["--algorithm", algorithm]
    out = S.admin(*args).stdout.strip()
    m = RECORD.match(out)
    assert m, out
    txt = "".join(re.findall(r'"([^"]*)"', m.group(3)))
    return m.group(1), m.group(2), txt


def message_bytes(raw):
    """The message as the receiver got it: the sink's two envelope lines dropped."""
    lines = raw.split(b"\r\n")
    while lines and lines[0].startswith(b"X-Sink-"):
        lines.pop(0)
    return b"\r\n".join(lines)


class DkimTest(S.ApiTest):

    @classmethod
    def setUpClass(cls):
        cls.had_background_sender = TS._stop("svc-sender")

    @classmethod
    def tearDownClass(cls):
        if cls.had_background_sender:
            TS.start_background_sender()

    def signed_mails(self, algorithm):
        domain = "dkim-%s.example" % uuid.uuid4().hex[:8]
        site = new_site(domain)
        selector, record_domain, txt = make_key(site, "s" + uuid.uuid4().hex[:6], algorithm)
        self.assertEqual(record_domain, domain)
        self.assertIn("k=%s;" % ("ed25519" if algorithm == "ed25519-sha256" else "rsa"), txt)
        shown = S.admin("site", "show", "--site", str(site)).stdout
        self.assertIn("dkim:            %s._domainkey.%s (%s)" % (selector, domain, algorithm or "rsa-sha256"),
                      shown)
        event = "dkim-" + uuid.uuid4().hex[:10]
        ids = []
        for subject, body in BODIES:
            ids += TS.insert_rows(event, site=site, subject=subject, body=body,
                                  from_="Shop <shop@%s>" % domain)[-1:]
        r = TS.run_sender()
        self.assertEqual(r.returncode, 0, r.stderr)
        got = TS.mails_by_id()
        name = "%s._domainkey.%s." % (selector, domain)

        def dns(qname, timeout=5):
            qname = qname.decode() if isinstance(qname, bytes) else qname
            return txt.encode() if qname == name else None

        mails = []
        for log_id in ids:
            self.assertEqual(len(got.get(log_id, [])), 1, log_id)
            mails.append(message_bytes(got[log_id][0][1]))
        return mails, dns, domain

    def check_algorithm(self, algorithm):
        mails, dns, domain = self.signed_mails(algorithm)
        for data in mails:
            sig = re.search(rb"^DKIM-Signature:.*?(?=\r\n\S)", data, re.M | re.S).group(0)
            self.assertIn(b"c=relaxed/relaxed", sig)
            self.assertIn(b"d=" + domain.encode(), sig)
            self.assertIn(b"a=" + (algorithm or "rsa-sha256").encode(), sig)
            h = re.sub(rb"\s", b"", re.search(rb"(?<![a-z])h=([^;]+)", sig).group(1))
            for header in (b"from", b"to", b"subject", b"date", b"message-id", b"mime-version", b"content-type"):
                self.assertIn(header, h.lower().split(b":"))
            self.assertTrue(dkim.verify(data, dnsfunc=dns), data[:600])
        # A receiver that gets a changed body must reject the signature.
        data = mails[0]
        head, _, body = data.partition(b"\r\n\r\n")
        tampered = head + b"\r\n\r\n" + body.replace(b"Bestellung", b"Bestellunx", 1)
        self.assertNotEqual(tampered, data)
        self.assertFalse(dkim.verify(tampered, dnsfunc=dns))
        # ... and a changed signed header too.
        self.assertFalse(dkim.verify(data.replace(b"Subject: ", b"Subject: Re: ", 1), dnsfunc=dns))

    def test_rsa_signatures_verify_against_the_printed_record(self):
        self.check_algorithm(None)  # the default: rsa-sha256

    def test_ed25519_signatures_verify_against_the_printed_record(self):
        self.check_algorithm("ed25519-sha256")

    def test_existing_key_is_kept_without_force(self):
        site = new_site("dkim-keep-%s.example" % uuid.uuid4().hex[:6])
        first = make_key(site, "one")
        again = S.admin("dkim-keys", "--site", str(site), "--selector", "two")
        self.assertIn("already has a DKIM key", again.stderr)
        self.assertEqual(RECORD.match(again.stdout.strip()).group(1), "one")
        self.assertIn(first[2][:40], again.stdout.replace('" "', ""))
        forced = S.admin("dkim-keys", "--site", str(site), "--selector", "two", "--force").stdout
        self.assertEqual(RECORD.match(forced.strip()).group(1), "two")

    def test_bad_arguments_are_refused(self):
        site = new_site("dkim-bad-%s.example" % uuid.uuid4().hex[:6])
        for args, words in ((["--selector", "a.b"], "--selector"), (["--selector", "s", "--algorithm", "dsa"],
                                                                      "--algorithm")):
            r = S.admin("dkim-keys", "--site", str(site), *args, check=False)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(words, r.stderr)

    def test_unsigned_site_mail_has_no_signature(self):
        event = "nodkim-" + uuid.uuid4().hex[:8]
        ids = TS.insert_rows(event, site=1)
        TS.run_sender()
        raw = TS.mails_by_id()[ids[0]][0][1]
        self.assertNotIn(b"DKIM-Signature", raw)


if __name__ == "__main__":
    S.main()

// The pure parts of deliverability: VERP tags and unsubscribe tokens
// (messaging/mail_tags), locale shapes and fallbacks (messaging/locale),
// reading DSNs, ARF complaints and auto-replies (messaging/bounce_report),
// the List-Unsubscribe headers of build_mime and the sender's drop of
// suppressed recipients (messaging/outgoing_mail), one copy per recipient
// (messaging/envelopes).
#include <boost/test/unit_test.hpp>
#include <string>

#include "crypto/encoding.hpp"
#include "messaging/bounce_report.hpp"
#include "messaging/builtin_templates.hpp"
#include "messaging/envelopes.hpp"
#include "messaging/locale.hpp"
#include "messaging/mail_tags.hpp"
#include "messaging/mime.hpp"
#include "messaging/outgoing_mail.hpp"

namespace m = svc::messaging;

BOOST_AUTO_TEST_SUITE(deliverability_test)

namespace {

const std::string kKey(32, 'k');
const std::string kOtherKey(32, 'o');

std::string dsn(const std::string& to, const std::string& status_part) {
  return "From: MAILER-DAEMON@mx.example\r\nTo: " + to +
         "\r\nSubject: Undelivered\r\nMIME-Version: 1.0\r\n"
         "Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n"
         "--B\r\nContent-Type: text/plain\r\n\r\nSorry.\r\n"
         "--B\r\nContent-Type: message/delivery-status\r\n\r\n" +
         status_part + "\r\n--B\r\nContent-Type: text/rfc822-headers\r\n\r\nSubject: Hello\r\n\r\n--B--\r\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(verp_tag_names_the_row_and_one_recipient_and_refuses_forgeries) {
  const std::string b = "bounce@b.example";
  const std::vector<std::string> both = {"bob@example.org", "Ada@Example.org"};
  const std::string a = m::verp_address(b, 42, "ada@example.org", kKey);
  BOOST_TEST(a.rfind("bounce+42-", 0) == 0);
  BOOST_TEST(a.size() == std::string("bounce+42-").size() + 20 + std::string("@b.example").size());
  BOOST_TEST(a == m::verp_address(b, 42, "ADA@example.ORG", kKey));
  BOOST_TEST(a != m::verp_address(b, 42, "bob@example.org", kKey));
  const auto found = m::find_verp_candidates("To: <" + a + ">\r\n", b, 16);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0].log_id == 42);
  // It names Ada among the row's recipients, and nobody on a row without her:
  // a co-recipient's tag cannot speak for her (issue 36).
  BOOST_TEST(m::tagged_recipient(found[0], both, kKey).value_or("") == "Ada@Example.org");
  BOOST_TEST(!m::tagged_recipient(found[0], {"bob@example.org"}, kKey));
  // Upper case on the way back (some MTAs) still verifies.
  std::string upper = a;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto up = m::find_verp_candidates(upper, b, 16);
  BOOST_REQUIRE(up.size() == 1u);
  BOOST_TEST(m::tagged_recipient(up[0], both, kKey).value_or("") == "Ada@Example.org");
  // Another id with the same MAC, another key: refused; another domain or
  // no tag: nothing found.
  std::string other_id = a;
  other_id.replace(7, 2, "43");
  const auto forged = m::find_verp_candidates(other_id, b, 16);
  BOOST_REQUIRE(forged.size() == 1u);
  BOOST_TEST(!m::tagged_recipient(forged[0], both, kKey));
  BOOST_TEST(!m::tagged_recipient(found[0], both, kOtherKey));
  BOOST_TEST(m::find_verp_candidates(a, "bounce@c.example", 16).empty());
  BOOST_TEST(m::find_verp_candidates(b, b, 16).empty());
  // In order, at most `limit`.
  const auto mixed = m::find_verp_candidates(other_id + " " + a + " " + a, b, 2);
  BOOST_REQUIRE(mixed.size() == 2u);
  BOOST_TEST(mixed[0].log_id == 43);
  BOOST_TEST(mixed[1].log_id == 42);
}

BOOST_AUTO_TEST_CASE(row_only_tags_from_before_issue_36_name_only_a_single_recipient) {
  const std::string mac =
      svc::crypto::hex_encode(svc::crypto::hmac_sha256(kKey, std::string("svc-verp\x1f") + "42")).substr(0, 20);
  const auto found = m::find_verp_candidates("bounce+42-" + mac + "@b.example", "bounce@b.example", 16);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(m::tagged_recipient(found[0], {"ada@example.org"}, kKey).value_or("") == "ada@example.org");
  BOOST_TEST(!m::tagged_recipient(found[0], {"ada@example.org", "bob@example.org"}, kKey));
  BOOST_TEST(!m::tagged_recipient(found[0], {"ada@example.org"}, kOtherKey));
}

BOOST_AUTO_TEST_CASE(unsubscribe_token_names_site_and_address_and_cannot_be_altered) {
  const std::string t = m::unsubscribe_token(7, "Ada@Example.org", kKey);
  auto opened = m::open_unsubscribe_token(t, kKey);
  BOOST_REQUIRE(opened);
  BOOST_TEST(opened->site_id == 7);
  BOOST_TEST(opened->address == "ada@example.org");
  BOOST_TEST(!m::open_unsubscribe_token(t, kOtherKey));
  BOOST_TEST(!m::open_unsubscribe_token(m::unsubscribe_token(8, "ada@example.org", kOtherKey), kKey));
  std::string altered = t;
  altered[0] = altered[0] == 'M' ? 'N' : 'M';
  BOOST_TEST(!m::open_unsubscribe_token(altered, kKey));
  BOOST_TEST(!m::open_unsubscribe_token("", kKey));
  BOOST_TEST(!m::open_unsubscribe_token("abc", kKey));
  BOOST_TEST(m::unsubscribe_link("https://s.example/mail/unsubscribe", 7, "ada@example.org", kKey) ==
             "https://s.example/mail/unsubscribe?t=" + m::unsubscribe_token(7, "ada@example.org", kKey));
}

BOOST_AUTO_TEST_CASE(locale_shapes_and_fallbacks) {
  for (const char* good : {"de", "de-AT", "DE_at", "zh-Hant-TW", "gsw", "sr-Latn-RS"})
    BOOST_TEST(m::is_locale_shape(good));
  for (const char* bad : {"", "d", "deutsch", "de-", "-de", "de--at", "de-ÄT", "1de", "de at", "de-abcdefghi"}) {
    BOOST_TEST(!m::is_locale_shape(bad), bad);
  }
  BOOST_TEST(m::normalize_locale("DE_at") == "de-at");
  BOOST_TEST(m::locale_fallbacks("de-AT") == (std::vector<std::string>{"de-at", "de", ""}));
  BOOST_TEST(m::locale_fallbacks("") == (std::vector<std::string>{""}));
}

BOOST_AUTO_TEST_CASE(reads_hard_and_soft_dsn_recipients) {
  const auto r = m::parse_bounce(dsn("bounce+1-x@b.example",
                                     "Reporting-MTA: dns; mx.example\r\n\r\n"
                                     "Final-Recipient: rfc822; Ada@Example.org\r\nAction: failed\r\n"
                                     "Status: 5.1.1 (user unknown)\r\n\r\n"
                                     "Original-Recipient: rfc822;<bob@example.org>\r\nAction: delayed\r\n"
                                     "Status: 4.2.2\r\n"));
  BOOST_TEST(static_cast<int>(r.kind) == static_cast<int>(m::BounceReport::Kind::Dsn));
  BOOST_REQUIRE(r.recipients.size() == 2u);
  BOOST_TEST(r.recipients[0].address == "ada@example.org");
  BOOST_TEST(r.recipients[0].status == "5.1.1");
  BOOST_TEST(r.recipients[0].hard());
  BOOST_TEST(r.recipients[1].address == "bob@example.org");
  BOOST_TEST(!r.recipients[1].hard());
}

BOOST_AUTO_TEST_CASE(reads_complaints_auto_replies_and_refuses_garbage) {
  const std::string arf =
      "From: fbl@mailbox.example\r\nContent-Type: multipart/report; report-type=feedback-report;\r\n"
      " boundary=\"F\"\r\n\r\n--F\r\nContent-Type: text/plain\r\n\r\nReport\r\n"
      "--F\r\nContent-Type: message/feedback-report\r\n\r\nFeedback-Type: Abuse\r\nVersion: 1\r\n"
      "--F--\r\n";
  const auto c = m::parse_bounce(arf);
  BOOST_TEST(static_cast<int>(c.kind) == static_cast<int>(m::BounceReport::Kind::Complaint));
  BOOST_TEST(c.feedback_type == "abuse");
  const auto a = m::parse_bounce("From: a@example.org\r\nAuto-Submitted: auto-replied\r\n\r\nAway.\r\n");
  BOOST_TEST(static_cast<int>(a.kind) == static_cast<int>(m::BounceReport::Kind::AutoReply));
  const auto p = m::parse_bounce("From: a@example.org\r\nAuto-Submitted: no\r\n\r\nThanks!\r\n");
  BOOST_TEST(static_cast<int>(p.kind) == static_cast<int>(m::BounceReport::Kind::Other));
  BOOST_CHECK_THROW(m::parse_bounce(""), m::BounceParseError);
  BOOST_CHECK_THROW(m::parse_bounce("From: x\r\nContent-Type: multipart/report; report-type=delivery-status\r\n\r\nx"),
                    m::BounceParseError);
  // A multipart that never closes (found by bounce_fuzz): ends, and finds no status part.
  BOOST_CHECK_THROW(m::parse_bounce("From: x\r\nContent-Type: multipart/report; report-type=feedback-report;"
                                    " boundary=F\r\n\r\n--F\r\nContent-Type: text/plain\r\n\r\nReport\r\n--F\r\n"
                                    "Content-Type: message/feedbackt/plmain\r\n\r\nRe\xff"),
                    m::BounceParseError);
  // A report whose status part is missing.
  BOOST_CHECK_THROW(m::parse_bounce("From: x\r\nContent-Type: multipart/report; report-type=delivery-status;"
                                    " boundary=B\r\n\r\n--B\r\nContent-Type: text/plain\r\n\r\nSorry\r\n--B--\r\n"),
                    m::BounceParseError);
}

BOOST_AUTO_TEST_CASE(each_recipient_gets_a_copy_with_its_own_verp_sender_and_unsubscribe_link) {
  svc::db::OutboxMessage row;
  row.id = 9;
  row.mail.site_id = 3;
  row.mail.recipient = "ada@example.org, Bob@example.org";
  row.mail.cc = "cy@example.org";
  row.mail.from = "Shop <shop@example.com>";
  row.priority = 2;
  const m::MailMarks marks{"bounce@b.example", "https://s.example/mail/unsubscribe", kKey};
  const auto copies = m::copies_per_recipient(m::outgoing_mail_for(row), row, marks);
  BOOST_REQUIRE(copies.size() == 3u);
  const std::vector<std::string> expected = {"ada@example.org", "Bob@example.org", "cy@example.org"};
  for (std::size_t i = 0; i < copies.size(); ++i) {
    BOOST_TEST_CONTEXT("copy for " << expected[i]) {
      BOOST_TEST(m::envelope_recipients(copies[i]) == std::vector<std::string>{expected[i]});
      BOOST_TEST(copies[i].envelope_from == m::verp_address("bounce@b.example", 9, expected[i], kKey));
      const std::string text = m::build_mime(copies[i]);
      BOOST_TEST(text.find("List-Unsubscribe: <https://s.example/mail/unsubscribe?t=" +
                           m::unsubscribe_token(3, expected[i], kKey) + ">\r\n") != std::string::npos);
      BOOST_TEST(text.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n") != std::string::npos);
      BOOST_TEST(text.find("To: ada@example.org, Bob@example.org\r\n") != std::string::npos);
    }
  }
  row.priority = 1;
  for (const auto& normal : m::copies_per_recipient(m::outgoing_mail_for(row), row, marks)) {
    BOOST_TEST(m::build_mime(normal).find("List-Unsubscribe") == std::string::npos);
  }
  const auto unmarked = m::copies_per_recipient(m::outgoing_mail_for(row), row, {"", "", ""});
  BOOST_TEST(unmarked.size() == 3u);
  BOOST_TEST(unmarked[0].envelope_from.empty());
}

namespace {

// Answers each send with the next status of `script` (then Sent).
struct ScriptedMailer : m::Mailer {
  std::vector<m::SendStatus> script;
  std::vector<std::string> sent_to;
  m::SendResult send(const m::OutgoingMail& mail) override {
    const std::size_t n = sent_to.size();
    sent_to.push_back(m::envelope_recipients(mail).front());
    const m::SendStatus s = n < script.size() ? script[n] : m::SendStatus::Sent;
    if (s == m::SendStatus::Sent) return {s, "250 ok"};
    return {s, "550 5.1.1 gone", {{sent_to.back(), "5.1.1"}}};
  }
  void close() override {}
};

std::vector<m::OutgoingMail> three_copies(const std::string& third = "cy@example.org") {
  svc::db::OutboxMessage row;
  row.id = 5;
  row.mail.recipient = "ada@example.org, bob@example.org, " + third;
  row.mail.from = "shop@example.com";
  return m::copies_per_recipient(m::outgoing_mail_for(row), row, {"bounce@b.example", "", kKey});
}

}  // namespace

BOOST_AUTO_TEST_CASE(send_copies_sums_up_the_outcome_of_the_row) {
  using S = m::SendStatus;
  ScriptedMailer all;
  BOOST_TEST(static_cast<int>(m::send_copies(all, three_copies()).status) == static_cast<int>(S::Sent));
  BOOST_TEST(all.sent_to.size() == 3u);

  ScriptedMailer refused;
  refused.script = {S::Sent, S::PermanentFailure, S::Sent};
  const auto r = m::send_copies(refused, three_copies());
  BOOST_TEST(static_cast<int>(r.status) == static_cast<int>(S::PermanentFailure));
  BOOST_TEST(r.detail == "bob@example.org: 550 5.1.1 gone (delivered to 2 of 3)");
  BOOST_REQUIRE(r.dead_recipients.size() == 1u);
  BOOST_TEST(r.dead_recipients[0].address == "bob@example.org");

  // A temporary failure: the rest wait for the retry.
  ScriptedMailer later;
  later.script = {S::TemporaryFailure};
  BOOST_TEST(static_cast<int>(m::send_copies(later, three_copies()).status) == static_cast<int>(S::TemporaryFailure));
  BOOST_TEST(later.sent_to.size() == 1u);

  // One address that cannot be sent to: no copy goes out.
  ScriptedMailer none;
  const auto bad = m::send_copies(none, three_copies("not an address"));
  BOOST_TEST(static_cast<int>(bad.status) == static_cast<int>(S::PermanentFailure));
  BOOST_TEST(bad.detail.find("invalid recipient address") != std::string::npos);
  BOOST_TEST(none.sent_to.empty());
}

BOOST_AUTO_TEST_CASE(drop_suppressed_removes_only_blocked_addresses) {
  m::OutgoingMail mail;
  mail.to = {"Ada@Example.org", "bob@example.org"};
  mail.cc = {"cy@example.org"};
  mail.bcc = {"dee@example.org"};
  BOOST_TEST(m::drop_suppressed(mail, {}) == "");
  BOOST_TEST(m::drop_suppressed(mail, {{"ada@example.org", "bounce"}, {"dee@example.org", "complaint"}}) == "bounce");
  BOOST_TEST(mail.to == (std::vector<std::string>{"bob@example.org"}));
  BOOST_TEST(mail.cc.size() == 1u);
  BOOST_TEST(mail.bcc.empty());
}

BOOST_AUTO_TEST_CASE(built_in_account_mail_speaks_english_and_german) {
  BOOST_TEST(std::string(m::builtin_template("password-reset", "de")->subject) == "Passwort zur\u00fccksetzen");
  BOOST_TEST(std::string(m::builtin_template("password-reset", "de-AT")->subject) == "Passwort zur\u00fccksetzen");
  BOOST_TEST(std::string(m::builtin_template("password-reset", "")->subject) == "Reset your password");
  BOOST_TEST(std::string(m::builtin_template("password-reset", "fr")->subject) == "Reset your password");
  // Every built-in template comes in German too, with the same placeholders.
  for (const auto& en : m::builtin_templates()) {
    if (std::string(en.language) != "en") continue;
    const auto de = m::builtin_template(en.event, "de");
    BOOST_TEST(std::string(de->language) == "de", en.event);
    BOOST_TEST(std::string(de->content) != en.content, en.event);
    const std::string english = en.content;
    for (std::size_t at = english.find('['); at != std::string::npos; at = english.find('[', at + 1)) {
      const std::string field = english.substr(at, english.find(']', at) - at + 1);
      BOOST_TEST(std::string(de->content).find(field) != std::string::npos, en.event << " " << field);
    }
  }
  BOOST_TEST(std::string(m::builtin_template("password-reset", "de")->content).find("[link]") != std::string::npos);
  BOOST_TEST(!m::builtin_template("welcome-email", "de"));
}

BOOST_AUTO_TEST_SUITE_END()

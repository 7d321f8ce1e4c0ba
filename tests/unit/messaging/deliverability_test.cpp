// The pure parts of deliverability: VERP tags and unsubscribe tokens
// (messaging/mail_tags), locale shapes and fallbacks (messaging/locale),
// reading DSNs, ARF complaints and auto-replies (messaging/bounce_report),
// the List-Unsubscribe headers of build_mime and the sender's drop of
// suppressed recipients (messaging/outgoing_mail).
#include <boost/test/unit_test.hpp>
#include <string>

#include "messaging/bounce_report.hpp"
#include "messaging/builtin_templates.hpp"
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

BOOST_AUTO_TEST_CASE(verp_address_round_trips_and_refuses_forgeries) {
  const std::string a = m::verp_address("bounce@b.example", 42, kKey);
  BOOST_TEST(a.rfind("bounce+42-", 0) == 0);
  BOOST_TEST(a.size() == std::string("bounce+42-").size() + 20 + std::string("@b.example").size());
  auto found = m::find_verp_tag("To: <" + a + ">\r\n", "bounce@b.example", kKey);
  BOOST_TEST(found.log_id.value_or(0) == 42);
  BOOST_TEST(!found.forged);
  // Upper case on the way back (some MTAs) still verifies.
  std::string upper = a;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  BOOST_TEST(m::find_verp_tag(upper, "bounce@b.example", kKey).log_id.value_or(0) == 42);
  // Another id with the same MAC, another key, another domain: refused.
  std::string other_id = a;
  other_id.replace(7, 2, "43");
  auto forged = m::find_verp_tag(other_id, "bounce@b.example", kKey);
  BOOST_TEST(!forged.log_id);
  BOOST_TEST(forged.forged);
  BOOST_TEST(!m::find_verp_tag(a, "bounce@b.example", kOtherKey).log_id);
  BOOST_TEST(!m::find_verp_tag(a, "bounce@c.example", kKey).log_id);
  BOOST_TEST(!m::find_verp_tag("bounce@b.example", "bounce@b.example", kKey).log_id);
  // The first valid one wins over a forged one before it.
  auto mixed = m::find_verp_tag(other_id + " " + a, "bounce@b.example", kKey);
  BOOST_TEST(mixed.log_id.value_or(0) == 42);
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

BOOST_AUTO_TEST_CASE(bulk_rows_get_list_unsubscribe_and_every_row_its_verp_sender) {
  svc::db::OutboxMessage row;
  row.id = 9;
  row.mail.site_id = 3;
  row.mail.recipient = "ada@example.org";
  row.mail.from = "Shop <shop@example.com>";
  row.priority = 2;
  m::OutgoingMail mail = m::outgoing_mail_for(row);
  m::add_marks(mail, row, {"bounce@b.example", "https://s.example/mail/unsubscribe", kKey});
  BOOST_TEST(mail.envelope_from == m::verp_address("bounce@b.example", 9, kKey));
  const std::string text = m::build_mime(mail);
  BOOST_TEST(text.find("List-Unsubscribe: <https://s.example/mail/unsubscribe?t=" +
                       m::unsubscribe_token(3, "ada@example.org", kKey) + ">\r\n") != std::string::npos);
  BOOST_TEST(text.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n") != std::string::npos);
  row.priority = 1;
  m::OutgoingMail normal = m::outgoing_mail_for(row);
  m::add_marks(normal, row, {"bounce@b.example", "https://s.example/mail/unsubscribe", kKey});
  BOOST_TEST(m::build_mime(normal).find("List-Unsubscribe") == std::string::npos);
  m::OutgoingMail unmarked = m::outgoing_mail_for(row);
  m::add_marks(unmarked, row, {"", "", ""});
  BOOST_TEST(unmarked.envelope_from.empty());
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

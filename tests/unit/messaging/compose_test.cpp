// messaging::compose, the one builder of outbox entries (notifications and
// password-reset mail): sender fallback, subject line rules, HTML body,
// address lists and the record link.
#include "messaging/compose.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

namespace m = svc::messaging;

BOOST_AUTO_TEST_SUITE(compose_test)

namespace {

svc::db::Site site() {
  svc::db::Site s;
  s.id = 7;
  s.email_from = "Site <site@example.com>";
  return s;
}

svc::db::Template tmpl(std::string subject, std::string content) {
  svc::db::Template t;
  t.id = 11;
  t.site_id = 7;
  t.event = "order";
  t.subject = std::move(subject);
  t.content = std::move(content);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fills_every_column_from_site_template_values_and_recipients) {
  m::Recipients r;
  r.to = {"a@example.com", "b@example.com"};
  r.cc = {"c@example.com"};
  r.bcc = {"d@example.com", "e@example.com"};
  auto e = m::compose(site(), tmpl("Order [id] for [name]", "<p>[name] [missing]</p>"),
                      {{"id", "42"}, {"name", "<Ann>"}}, r, "req-1", {"demo_orders", 5});
  BOOST_CHECK_EQUAL(e.mail.site_id, 7);
  BOOST_CHECK_EQUAL(e.notification_id, 11);
  BOOST_CHECK_EQUAL(e.mail.event, "order");
  BOOST_CHECK_EQUAL(e.mail.recipient, "a@example.com,b@example.com");
  BOOST_CHECK_EQUAL(e.mail.from, "Site <site@example.com>");
  BOOST_CHECK_EQUAL(e.mail.cc, "c@example.com");
  BOOST_CHECK_EQUAL(e.mail.bcc, "d@example.com,e@example.com");
  BOOST_CHECK_EQUAL(e.mail.subject, "Order 42 for <Ann>");
  BOOST_CHECK_EQUAL(e.mail.body, "<p>&lt;Ann&gt; [missing]</p>");
  BOOST_CHECK_EQUAL(e.table_name, "demo_orders");
  BOOST_CHECK_EQUAL(e.record_id, 5);
  BOOST_CHECK_EQUAL(e.request_id, "req-1");
}

BOOST_AUTO_TEST_CASE(no_link_and_empty_lists_stay_empty) {
  auto e = m::compose(site(), tmpl("S", "B"), {}, {}, "req-2");
  BOOST_CHECK_EQUAL(e.mail.recipient, "");
  BOOST_CHECK_EQUAL(e.mail.cc, "");
  BOOST_CHECK_EQUAL(e.mail.bcc, "");
  BOOST_CHECK_EQUAL(e.table_name, "");
  BOOST_CHECK_EQUAL(e.record_id, 0);
}

BOOST_AUTO_TEST_CASE(the_template_sender_wins_and_loses_its_controls) {
  auto t = tmpl("S", "B");
  t.from = "Orders\r\nBcc: x@evil.example <orders@example.com>";
  BOOST_CHECK_EQUAL(m::compose(site(), t, {}, {}, "").mail.from, "OrdersBcc: x@evil.example <orders@example.com>");
  auto s = site();
  s.email_from = "Site\n <site@example.com>";
  BOOST_CHECK_EQUAL(m::compose(s, tmpl("S", "B"), {}, {}, "").mail.from, "Site <site@example.com>");
}

BOOST_AUTO_TEST_CASE(subject_is_one_line_of_at_most_998_utf8_bytes) {
  auto e = m::compose(site(), tmpl("Hi [v]\r\n", "B"), {{"v", "a\r\nBcc: x@evil.example"}}, {}, "");
  BOOST_CHECK_EQUAL(e.mail.subject, "Hi aBcc: x@evil.example");
  // 997 ASCII bytes then a 2-byte character: the cut drops the whole character.
  std::string long_value(997, 'x');
  e = m::compose(site(), tmpl("[v]\xC3\xA9tail", "B"), {{"v", long_value}}, {}, "");
  BOOST_CHECK_EQUAL(e.mail.subject, long_value);
  e = m::compose(site(), tmpl("[v]", "B"), {{"v", std::string(2000, 'y')}}, {}, "");
  BOOST_CHECK_EQUAL(e.mail.subject, std::string(998, 'y'));
}

BOOST_AUTO_TEST_SUITE_END()

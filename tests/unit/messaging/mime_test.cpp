#include "messaging/mime.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

namespace m = svc::messaging;

namespace {

// A deliberately small, independent reader of what build_mime writes.
struct Parsed {
  std::vector<std::pair<std::string, std::string>> headers;  // unfolded, in order
  std::string body;

  int count(const std::string& name) const {
    int n = 0;
    for (const auto& h : headers) n += h.first == name ? 1 : 0;
    return n;
  }
  std::string get(const std::string& name) const {
    for (const auto& h : headers) {
      if (h.first == name) return h.second;
    }
    return "<missing>";
  }
};

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Parsed parse(const std::string& message) {
  Parsed p;
  const std::size_t split = message.find("\r\n\r\n");
  BOOST_REQUIRE(split != std::string::npos);
  const std::string head = message.substr(0, split + 2);
  p.body = message.substr(split + 4);
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t eol = head.find("\r\n", pos);
    const std::string line = head.substr(pos, eol - pos);
    pos = eol + 2;
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
      BOOST_REQUIRE(!p.headers.empty());
      p.headers.back().second += line;  // unfolding: drop the CRLF only
      continue;
    }
    const std::size_t colon = line.find(':');
    BOOST_REQUIRE_MESSAGE(colon != std::string::npos, "header line without colon: " << line);
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    p.headers.emplace_back(lowered(line.substr(0, colon)), value);
  }
  return p;
}

std::string base64_decode(const std::string& in) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned bits = 0;
  int nbits = 0;
  for (char c : in) {
    if (c == '=') break;
    const std::size_t v = kAlphabet.find(c);
    BOOST_REQUIRE(v != std::string::npos);
    bits = (bits << 6) | static_cast<unsigned>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out += static_cast<char>((bits >> nbits) & 0xff);
    }
  }
  return out;
}

// RFC 2047: decode =?UTF-8?B?...?= words; blanks between two words vanish.
std::string decode_words(const std::string& value) {
  std::string out, pending_blank;
  bool last_was_word = false;
  std::size_t i = 0;
  while (i < value.size()) {
    if (value.compare(i, 10, "=?UTF-8?B?") == 0) {
      const std::size_t end = value.find("?=", i + 10);
      BOOST_REQUIRE(end != std::string::npos);
      if (!last_was_word) out += pending_blank;
      pending_blank.clear();
      out += base64_decode(value.substr(i + 10, end - i - 10));
      i = end + 2;
      last_was_word = true;
    } else if (value[i] == ' ' || value[i] == '\t') {
      pending_blank += value[i++];
    } else {
      out += pending_blank;
      pending_blank.clear();
      out += value[i++];
      last_was_word = false;
    }
  }
  return out + pending_blank;
}

std::string qp_decode(const std::string& in) {
  std::string out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '=') {
      out += in[i];
    } else if (in.compare(i, 3, "=\r\n") == 0) {
      i += 2;
    } else {
      out += static_cast<char>(std::stoi(in.substr(i + 1, 2), nullptr, 16));
      i += 2;
    }
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t eol = s.find("\r\n", pos);
    if (eol == std::string::npos) eol = s.size();
    lines.push_back(s.substr(pos, eol - pos));
    pos = eol + 2;
  }
  return lines;
}

void check_line_endings_and_lengths(const std::string& message, std::size_t max_len) {
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] == '\n') BOOST_REQUIRE(i > 0 && message[i - 1] == '\r');
    if (message[i] == '\r') BOOST_REQUIRE(i + 1 < message.size() && message[i + 1] == '\n');
  }
  BOOST_TEST(message.size() >= 2);
  BOOST_TEST(message.compare(message.size() - 2, 2, "\r\n") == 0);
  for (const auto& line : lines_of(message)) {
    BOOST_TEST_CONTEXT("line: " << line.substr(0, 60)) { BOOST_TEST(line.size() <= max_len); }
  }
}

// The multipart pieces: (part headers, decoded body) in order.
std::vector<std::pair<Parsed, std::string>> parts_of(const Parsed& p) {
  const std::string ct = p.get("content-type");
  const std::string key = "boundary=\"";
  const std::size_t at = ct.find(key);
  BOOST_REQUIRE(at != std::string::npos);
  const std::string boundary = ct.substr(at + key.size(), ct.find('"', at + key.size()) - at - key.size());
  const std::string delimiter = "--" + boundary + "\r\n";
  const std::string close = "--" + boundary + "--\r\n";
  // The close delimiter ends the message; each part starts with a delimiter line.
  BOOST_REQUIRE(p.body.size() >= close.size());
  BOOST_TEST(p.body.compare(p.body.size() - close.size(), close.size(), close) == 0);
  std::vector<std::pair<Parsed, std::string>> parts;
  std::size_t pos = p.body.find(delimiter);
  while (pos != std::string::npos) {
    const std::size_t start = pos + delimiter.size();
    std::size_t next = p.body.find("\r\n--" + boundary, start);
    BOOST_REQUIRE(next != std::string::npos);
    const std::string raw = p.body.substr(start, next - start);
    Parsed part = parse(raw + "\r\n");
    std::string content = part.body;
    if (content.size() >= 2) content.resize(content.size() - 2);  // the CRLF before "--"
    parts.emplace_back(part, qp_decode(part.body.substr(0, part.body.size() - 2)));
    pos = p.body.find(delimiter, next + 2);
  }
  return parts;
}

m::OutgoingMail sample() {
  m::OutgoingMail mail;
  mail.message_id = "<log-123.abc@svc.example>";
  mail.from = "shop@example.com";
  mail.from_name = "Example Shop";
  mail.to = {"ann@example.org"};
  mail.cc = {"boss@example.org"};
  mail.bcc = {"audit@example.net"};
  mail.subject = "Your order 42";
  mail.html = "<p>Hello Ann,</p>\n<p>your order is confirmed.</p>";
  mail.text = "Hello Ann,\nyour order is confirmed.";
  mail.date_unix = 1700000000;
  return mail;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mime_test)

BOOST_AUTO_TEST_CASE(headers_present_exactly_once_and_no_bcc) {
  const std::string msg = m::build_mime(sample());
  check_line_endings_and_lengths(msg, 78);
  const Parsed p = parse(msg);
  for (const char* name : {"date", "from", "to", "cc", "subject", "message-id", "mime-version", "content-type"}) {
    BOOST_TEST_CONTEXT("header " << name) { BOOST_TEST(p.count(name) == 1); }
  }
  BOOST_TEST(p.count("bcc") == 0);
  BOOST_TEST(msg.find("audit@example.net") == std::string::npos);
  BOOST_TEST(p.get("date") == "Tue, 14 Nov 2023 22:13:20 +0000");
  BOOST_TEST(p.get("from") == "Example Shop <shop@example.com>");
  BOOST_TEST(p.get("to") == "ann@example.org");
  BOOST_TEST(p.get("cc") == "boss@example.org");
  BOOST_TEST(p.get("subject") == "Your order 42");
  BOOST_TEST(p.get("message-id") == "<log-123.abc@svc.example>");
  BOOST_TEST(p.get("mime-version") == "1.0");
  BOOST_TEST(p.get("content-type").rfind("multipart/alternative; boundary=\"", 0) == 0);
  BOOST_TEST(m::build_mime(sample()) == msg);  // deterministic
}

BOOST_AUTO_TEST_CASE(multipart_alternative_text_then_html) {
  const Parsed p = parse(m::build_mime(sample()));
  const auto parts = parts_of(p);
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[0].first.get("content-type") == "text/plain; charset=UTF-8");
  BOOST_TEST(parts[0].first.get("content-transfer-encoding") == "quoted-printable");
  BOOST_TEST(parts[0].second == "Hello Ann,\r\nyour order is confirmed.");
  BOOST_TEST(parts[1].first.get("content-type") == "text/html; charset=UTF-8");
  BOOST_TEST(parts[1].second == "<p>Hello Ann,</p>\r\n<p>your order is confirmed.</p>");
}

BOOST_AUTO_TEST_CASE(non_ascii_subject_and_name_are_encoded_words) {
  auto mail = sample();
  mail.subject = "Grüße ✓";
  mail.from_name = "Jörg Müller";
  const std::string msg = m::build_mime(mail);
  const Parsed p = parse(msg);
  for (unsigned char c : msg.substr(0, msg.find("\r\n\r\n"))) BOOST_REQUIRE(c < 0x80);
  BOOST_TEST(p.get("subject").rfind("=?UTF-8?B?", 0) == 0);
  BOOST_TEST(decode_words(p.get("subject")) == "Grüße ✓");
  BOOST_TEST(decode_words(p.get("from")) == "Jörg Müller <shop@example.com>");
}

BOOST_AUTO_TEST_CASE(long_subjects_fold_and_round_trip) {
  std::string utf8_subject;
  for (int i = 0; i < 80; ++i) utf8_subject += "Grüße ✓ ";
  std::string ascii_subject;
  for (int i = 0; i < 60; ++i) ascii_subject += "word" + std::to_string(i) + " ";
  const std::string one_huge_word(2000, 'x');
  const std::vector<std::string> subjects = {utf8_subject, ascii_subject, one_huge_word,
                                             "a  double  spaced" + std::string(70, ' ') + "end",
                                             "looks =?like?= a word"};
  for (const auto& subject : subjects) {
    BOOST_TEST_CONTEXT("subject " << subject.substr(0, 30)) {
      auto mail = sample();
      mail.subject = subject;
      const std::string msg = m::build_mime(mail);
      check_line_endings_and_lengths(msg, 998);
      const Parsed p = parse(msg);
      BOOST_TEST(p.count("subject") == 1);
      BOOST_TEST(decode_words(p.get("subject")) == subject);
      for (const auto& line : lines_of(msg.substr(0, msg.find("\r\n\r\n")))) {
        BOOST_TEST(line.find_first_not_of(" \t") != std::string::npos);  // no blank folds
        if (line.find("=?UTF-8?B?") != std::string::npos) BOOST_TEST(line.size() <= 76u);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(long_body_lines_are_wrapped_and_round_trip) {
  auto mail = sample();
  mail.html = "<p>" + std::string(5000, 'y') + "</p>\n.leading dot\nFrom here\ntrailing  \n" + "a=b \xe2\x9c\x93\t\n" +
              std::string(300, '=');
  mail.text = std::string(3000, 'z') + "\r\nsecond line";
  const std::string msg = m::build_mime(mail);
  check_line_endings_and_lengths(msg, 76);  // quoted-printable keeps body lines short
  const auto parts = parts_of(parse(msg));
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[0].second == mail.text);
  std::string html_crlf;
  for (char c : mail.html) html_crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  BOOST_TEST(parts[1].second == html_crlf);
}

BOOST_AUTO_TEST_CASE(header_injection_is_removed) {
  auto mail = sample();
  mail.subject = "Hi\r\nBcc: evil@x.com";
  mail.from_name = "Shop\r\nX-Evil: 1";
  mail.to = {"ann@example.org\r\nBcc: evil2@x.com"};
  mail.message_id = "<id@x>\r\nX-Evil: 2";
  const std::string msg = m::build_mime(mail);
  const Parsed p = parse(msg);
  BOOST_TEST(p.count("bcc") == 0);
  BOOST_TEST(p.count("x-evil") == 0);
  BOOST_TEST(p.get("subject") == "HiBcc: evil@x.com");
  BOOST_TEST(p.get("to") == "ann@example.orgBcc: evil2@x.com");
}

BOOST_AUTO_TEST_CASE(recipients_headers_and_empty_to) {
  auto mail = sample();
  mail.to.clear();
  mail.cc.clear();
  Parsed p = parse(m::build_mime(mail));
  BOOST_TEST(p.get("to") == "undisclosed-recipients:;");
  BOOST_TEST(p.count("cc") == 0);

  mail.to.clear();
  for (int i = 0; i < 20; ++i) mail.to.push_back("user" + std::to_string(i) + "@example.org");
  const std::string msg = m::build_mime(mail);
  check_line_endings_and_lengths(msg, 78);
  p = parse(msg);
  std::string expected;
  for (const auto& a : mail.to) expected += (expected.empty() ? "" : ", ") + a;
  BOOST_TEST(p.get("to") == expected);

  mail.from_name = "Shop, Inc. \"Best\"";
  BOOST_TEST(parse(m::build_mime(mail)).get("from") == "\"Shop, Inc. \\\"Best\\\"\" <shop@example.com>");
  mail.from_name.clear();
  BOOST_TEST(parse(m::build_mime(mail)).get("from") == "shop@example.com");
}

BOOST_AUTO_TEST_CASE(text_alternative_and_single_part) {
  auto mail = sample();
  mail.text.clear();
  auto parts = parts_of(parse(m::build_mime(mail)));
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[0].second == "Hello Ann,\r\n\r\nyour order is confirmed.");  // html_to_text

  mail = sample();
  mail.html.clear();
  const Parsed p = parse(m::build_mime(mail));
  BOOST_TEST(p.get("content-type") == "text/plain; charset=UTF-8");
  BOOST_TEST(p.get("content-transfer-encoding") == "quoted-printable");
  BOOST_TEST(qp_decode(p.body) == "Hello Ann,\r\nyour order is confirmed.\r\n");
}

BOOST_AUTO_TEST_CASE(envelope_recipients_deduplicated) {
  m::OutgoingMail mail;
  mail.to = {"Ann@Example.org", " bob@example.org "};
  mail.cc = {"ann@example.org", "carol@example.org", ""};
  mail.bcc = {"BOB@EXAMPLE.ORG", "audit@example.net", "x@y.com\r\n"};
  const std::vector<std::string> expected = {"Ann@Example.org", "bob@example.org", "carol@example.org",
                                             "audit@example.net", "x@y.com"};
  BOOST_TEST(m::envelope_recipients(mail) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

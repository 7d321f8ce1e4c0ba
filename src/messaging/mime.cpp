#include "messaging/mime.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <set>
#include <string_view>

#include "core/text.hpp"
#include "crypto/encoding.hpp"
#include "messaging/html_text.hpp"

namespace svc::messaging {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr std::size_t kFoldAt = 78;  // RFC 5322 "SHOULD"; 998 is the hard limit
// Raw bytes per encoded-word: 39 bytes -> 52 base64 chars -> a 64-char word, so
// "Subject: " plus one word stays under RFC 2047's 76.
constexpr std::size_t kWordBytes = 39;
// An ASCII header word longer than this is sent as encoded-words instead, so
// no line can reach 998 however the value looks.
constexpr std::size_t kLongestPlainWord = 900;

bool is_plain_ascii(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return s.find("=?") == std::string_view::npos;
}

// RFC 2047 B encoded-words, never splitting a UTF-8 sequence across words.
std::vector<std::string> encoded_words(std::string_view utf8) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < utf8.size()) {
    std::size_t n = std::min(kWordBytes, utf8.size() - i);
    if (i + n < utf8.size()) {
      // Back off while the next byte is a continuation byte (10xxxxxx).
      while (n > 1 && (static_cast<unsigned char>(utf8[i + n]) & 0xc0) == 0x80) --n;
    }
    words.push_back("=?UTF-8?B?" + crypto::base64_encode(utf8.substr(i, n)) + "?=");
    i += n;
  }
  return words;
}

std::vector<std::string> split_on_spaces(std::string_view s) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (true) {
    const std::size_t sp = s.find(' ', start);
    words.emplace_back(s.substr(start, sp == std::string_view::npos ? sp : sp - start));
    if (sp == std::string_view::npos) return words;
    start = sp + 1;
  }
}

// "Name: tok1<sep>tok2..." folded before a token when the line would pass
// kFoldAt. `sep` is ", " or " "; its trailing space becomes the fold's space.
void add_header(std::string& out, std::string_view name, const std::vector<std::string>& tokens,
                std::string_view sep = " ") {
  std::string line = std::string(name) + ":";
  std::size_t line_len = line.size();
  out += line;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::string_view glue = k == 0 ? std::string_view(" ") : sep;
    // Never fold before an empty token (a doubled space): that would leave a
    // whitespace-only line, which RFC 5322 forbids.
    // The separator's non-blank part (",") after this token stays on this line.
    const std::size_t tail = k + 1 < tokens.size() ? sep.size() - 1 : 0;
    if (k > 0 && !tokens[k].empty() && line_len + glue.size() + tokens[k].size() + tail > kFoldAt) {
      out += glue.substr(0, glue.size() - 1);  // "," stays on the line; " " goes
      out += kCrlf;
      out += ' ';
      line_len = 1;
    } else {
      out += glue;
      line_len += glue.size();
    }
    out += tokens[k];
    line_len += tokens[k].size();
  }
  out += kCrlf;
}

// An unstructured value (the subject): plain words if it is short-worded
// printable ASCII, encoded-words otherwise.
std::vector<std::string> unstructured_tokens(std::string_view value) {
  if (is_plain_ascii(value)) {
    std::vector<std::string> words = split_on_spaces(value);
    bool short_words = true;
    for (const auto& w : words) short_words = short_words && w.size() <= kLongestPlainWord;
    if (short_words) return words;
  }
  return encoded_words(value);
}

// A display name as a phrase: atoms, a quoted-string, or encoded-words.
std::vector<std::string> phrase_tokens(std::string_view name) {
  if (!is_plain_ascii(name) || name.size() > kLongestPlainWord) return encoded_words(name);
  static constexpr std::string_view kSpecials = "()<>[]:;@\\,.\"";
  if (name.find_first_of(kSpecials) == std::string_view::npos) return split_on_spaces(name);
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  quoted += '"';
  return {quoted};
}

std::vector<std::string> clean_addresses(const std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (const auto& raw : list) {
    const std::string a = core::strip_controls(raw);
    if (const std::string_view trimmed = core::trim_blanks(a); !trimmed.empty()) out.emplace_back(trimmed);
  }
  return out;
}

std::string rfc5322_date(long long unix_seconds) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d +0000", kDays[tm.tm_wday % 7], tm.tm_mday,
                kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

// Quoted-printable (RFC 2045 6.7) of UTF-8 text; any line ending becomes CRLF,
// encoded lines stay within 76 characters.
std::string quoted_printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t line_len = 0;
  auto put = [&](std::string_view token) {
    if (line_len + token.size() > 75) {
      out += "=\r\n";
      line_len = 0;
    }
    out += token;
    line_len += token.size();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += kCrlf;
      line_len = 0;
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    const bool at_line_end = i + 1 == text.size() || text[i + 1] == '\r' || text[i + 1] == '\n';
    const bool literal = (u >= 33 && u <= 126 && c != '=') || ((c == ' ' || c == '\t') && !at_line_end);
    if (literal) {
      put(std::string_view(&c, 1));
    } else {
      const char enc[3] = {'=', kHex[u >> 4], kHex[u & 15]};
      put(std::string_view(enc, 3));
    }
  }
  return out;
}

std::uint64_t fnv1a(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 1469598103934665603ull;
  for (auto part : parts) {
    for (char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  }
  return h;
}

void add_part(std::string& out, std::string_view boundary, std::string_view type, std::string_view body) {
  out += "--";
  out += boundary;
  out += kCrlf;
  out += "Content-Type: ";
  out += type;
  out += "; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n";
  out += quoted_printable(body);
  out += kCrlf;
}

}  // namespace

std::string text_part(const OutgoingMail& mail) { return mail.text.empty() ? html_to_text(mail.html) : mail.text; }

std::string build_mime(const OutgoingMail& mail) {
  std::string out;
  add_header(out, "Date", {rfc5322_date(mail.date_unix)});

  std::vector<std::string> from = phrase_tokens(core::strip_controls(mail.from_name));
  if (from.size() == 1 && from.front().empty()) from.clear();
  from.push_back("<" + core::strip_controls(mail.from) + ">");
  if (from.size() == 1) from.front() = core::strip_controls(mail.from);
  add_header(out, "From", from);

  const std::vector<std::string> to = clean_addresses(mail.to);
  if (to.empty()) {
    add_header(out, "To", {"undisclosed-recipients:;"});
  } else {
    add_header(out, "To", to, ", ");
  }
  if (const auto cc = clean_addresses(mail.cc); !cc.empty()) add_header(out, "Cc", cc, ", ");
  add_header(out, "Subject", unstructured_tokens(core::strip_controls(mail.subject)));

  if (std::string id = core::strip_controls(mail.message_id); !id.empty()) {
    if (id.front() != '<') id = "<" + id + ">";
    add_header(out, "Message-ID", {id});
  }
  if (std::string url = core::strip_controls(mail.list_unsubscribe); !url.empty()) {
    add_header(out, "List-Unsubscribe", {"<" + url + ">"});
    out += "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n";
  }
  out += "MIME-Version: 1.0\r\n";

  const std::string text = text_part(mail);
  if (mail.html.empty()) {
    out +=
        "Content-Type: text/plain; charset=UTF-8\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\n";
    out += quoted_printable(text);
    out += kCrlf;
    return out;
  }

  // "=_" can never occur in quoted-printable output (it writes '=' as =3D and
  // soft breaks as "=\r\n"), so this boundary cannot collide with a body.
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a({mail.message_id, mail.subject, mail.html, mail.text})));
  const std::string boundary = std::string("=_svc_alt_") + hex;

  out += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n";
  out += "This is a multi-part message in MIME format.\r\n\r\n";
  add_part(out, boundary, "text/plain", text);
  add_part(out, boundary, "text/html", mail.html);
  out += "--" + boundary + "--\r\n";
  return out;
}

std::vector<std::string> envelope_recipients(const OutgoingMail& mail) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  const auto lists =
      mail.envelope_to.empty() ? std::vector{&mail.to, &mail.cc, &mail.bcc} : std::vector{&mail.envelope_to};
  for (const auto* list : lists) {
    for (auto& address : clean_addresses(*list)) {
      if (seen.insert(core::ascii_lower(address)).second) out.push_back(std::move(address));
    }
  }
  return out;
}

}  // namespace svc::messaging

#include "messaging/html_text.hpp"

#include <algorithm>
#include <cstdint>

#include "core/text.hpp"
#include "messaging/html_entities.hpp"

namespace svc::messaging {
namespace {

using core::ascii_lower;
using core::is_blank;

bool istarts_with(std::string_view s, std::size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k) {
    if (ascii_lower(s[at + k]) != prefix[k]) return false;
  }
  return true;
}

std::size_t ifind(std::string_view s, std::string_view needle, std::size_t from) {
  for (std::size_t at = from; at + needle.size() <= s.size(); ++at) {
    if (istarts_with(s, at, needle)) return at;
  }
  return std::string_view::npos;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// A named reference "&name;" (messaging/html_entities.hpp) at html[at] ==
// '&' into out; returns the length consumed, or 0 when it is none we know.
// The name's case counts (&Eacute; is not &eacute;); the few that
// decode_entity's own table decodes whatever their case (&AMP;) never get
// here.
std::size_t decode_named(std::string_view html, std::size_t at, std::string& out) {
  constexpr std::size_t kLongestName = 8;  // "thetasym"
  std::size_t k = at + 1;
  while (k < html.size() && k - at - 1 <= kLongestName &&
         ((html[k] >= 'a' && html[k] <= 'z') || (html[k] >= 'A' && html[k] <= 'Z') ||
          (html[k] >= '0' && html[k] <= '9'))) {
    ++k;
  }
  if (k == at + 1 || k >= html.size() || html[k] != ';') return 0;
  const auto cp = named_entity(html.substr(at + 1, k - at - 1));
  if (!cp) return 0;
  append_utf8(out, *cp);
  return k + 1 - at;
}

// Decodes the entity starting at html[at] == '&' into out; returns the length
// consumed, or 0 when it is not one we know (the '&' is then kept as text).
std::size_t decode_entity(std::string_view html, std::size_t at, std::string& out) {
  static constexpr std::pair<std::string_view, std::string_view> kNamed[] = {
      {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&nbsp;", " "}, {"&#39;", "'"},
  };
  for (const auto& [name, text] : kNamed) {
    if (istarts_with(html, at, name)) {
      out += text;
      return name.size();
    }
  }
  if (const std::size_t named = decode_named(html, at, out)) return named;
  if (at + 3 < html.size() && html[at + 1] == '#') {
    const bool hex = ascii_lower(html[at + 2]) == 'x';
    std::size_t k = at + (hex ? 3 : 2);
    std::uint32_t cp = 0;
    std::size_t digits = 0;
    for (; k < html.size() && digits < 8; ++k, ++digits) {
      const char c = ascii_lower(html[k]);
      std::uint32_t d;
      if (c >= '0' && c <= '9') {
        d = static_cast<std::uint32_t>(c - '0');
      } else if (hex && c >= 'a' && c <= 'f') {
        d = static_cast<std::uint32_t>(c - 'a' + 10);
      } else {
        break;
      }
      cp = cp * (hex ? 16u : 10u) + d;
    }
    if (digits > 0 && k < html.size() && html[k] == ';') {
      append_utf8(out, cp);
      return k + 1 - at;
    }
  }
  return 0;
}

bool breaks_line(std::string_view name, bool closing) {
  if (name == "br") return true;
  if (name == "p" || name == "div") return true;  // both ends: "a<p>b" is two lines
  if (!closing) return false;
  static constexpr std::string_view kBlocks[] = {"li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table"};
  return std::find(std::begin(kBlocks), std::end(kBlocks), name) != std::end(kBlocks);
}

std::string anchor_href(std::string_view tag) {
  std::size_t at = ifind(tag, "href", 0);
  if (at == std::string_view::npos) return "";
  std::size_t k = at + 4;
  while (k < tag.size() && is_blank(tag[k])) ++k;
  if (k >= tag.size() || tag[k] != '=') return "";
  ++k;
  while (k < tag.size() && is_blank(tag[k])) ++k;
  if (k >= tag.size()) return "";
  std::size_t end;
  if (tag[k] == '"' || tag[k] == '\'') {
    char q = tag[k++];
    end = tag.find(q, k);
  } else {
    end = tag.find_first_of(" \t\r\n>", k);
  }
  std::string_view raw = tag.substr(k, end == std::string_view::npos ? std::string_view::npos : end - k);
  std::string href;
  for (std::size_t i = 0; i < raw.size();) {
    std::size_t used = raw[i] == '&' ? decode_entity(raw, i, href) : 0;
    if (used > 0) {
      i += used;
    } else {
      href += raw[i++];
    }
  }
  return href;
}

// At most one blank line in a row; no blank lines or spaces at either end.
std::string tidy_lines(const std::string& raw) {
  std::string text;
  text.reserve(raw.size());
  int newlines = 0;
  for (char ch : raw) {
    if (ch == '\n') {
      if (text.empty() || ++newlines > 2) continue;
    } else {
      newlines = 0;
    }
    text += ch;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first);
}

// One forward pass over the HTML. Blanks are held back as one pending space
// and written only before the next character on the same line; the href of
// an open <a> waits for the link's end.
class Converter {
 public:
  explicit Converter(std::string_view html) : html_(html) {}

  std::string run() {
    while (at_ < html_.size()) {
      const char c = html_[at_];
      if (c == '<') {
        if (!markup()) break;  // an unterminated tag: drop the rest
      } else if (is_blank(c)) {
        pending_space_ = true;
        ++at_;
      } else {
        character(c);
      }
    }
    return tidy_lines(out_);
  }

 private:
  // A comment or a tag at html_[at_] == '<'; false when no '>' follows.
  bool markup() {
    if (html_.substr(at_, 4) == "<!--") {
      const std::size_t end = html_.find("-->", at_ + 4);
      at_ = end == std::string_view::npos ? html_.size() : end + 3;
      return true;
    }
    const std::size_t gt = html_.find('>', at_);
    if (gt == std::string_view::npos) return false;
    std::size_t k = at_ + 1;
    const bool closing = k < gt && html_[k] == '/';
    if (closing) ++k;
    std::string name;
    while (k < gt && ((html_[k] >= 'a' && html_[k] <= 'z') || (html_[k] >= 'A' && html_[k] <= 'Z') ||
                      (html_[k] >= '0' && html_[k] <= '9'))) {
      name += ascii_lower(html_[k++]);
    }
    if (name == "a") anchor(closing, html_.substr(at_, gt - at_));
    at_ = gt + 1;
    if (!closing && (name == "script" || name == "style" || name == "head")) {
      skip_contents(name);
    } else if (breaks_line(name, closing)) {
      newline();
    } else if (name == "td" || name == "th") {
      pending_space_ = true;
    }
    return true;
  }

  // Text-only readers need the target of a link (a reset link above all),
  // on a line of its own: in "Text (URL)" many linkifiers take the ")" into
  // the URL and the token breaks. A link whose text is its URL is moved to
  // a line of its own; a URL already written is not repeated.
  void anchor(bool closing, std::string_view tag) {
    if (!closing) {
      pending_href_ = anchor_href(tag);
      anchor_start_ = out_.size();
      return;
    }
    if (pending_href_.empty()) return;
    std::string text = out_.substr(anchor_start_);
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n')) text.erase(0, 1);
    if (text == pending_href_) out_.resize(anchor_start_);
    if (text == pending_href_ || out_.find(pending_href_) == std::string::npos) {
      newline();
      out_ += pending_href_;
      newline();
    }
    pending_href_.clear();
  }

  // Skips to just past the element's end tag (or to the end of the input).
  void skip_contents(const std::string& name) {
    const std::size_t end = ifind(html_, "</" + name, at_);
    const std::size_t end_gt = end == std::string_view::npos ? end : html_.find('>', end);
    at_ = end_gt == std::string_view::npos ? html_.size() : end_gt + 1;
  }

  void character(char c) {
    if (pending_space_ && !out_.empty() && out_.back() != '\n') out_ += ' ';
    pending_space_ = false;
    const std::size_t used = c == '&' ? decode_entity(html_, at_, out_) : 0;
    if (used > 0) {
      at_ += used;
    } else {
      out_ += c;
      ++at_;
    }
  }

  void newline() {
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    out_ += '\n';
    pending_space_ = false;
  }

  std::string_view html_;
  std::size_t at_ = 0;
  std::string out_;
  std::string pending_href_;      // of the open <a>, written after its text
  std::size_t anchor_start_ = 0;  // where the open <a>'s text begins in out_
  bool pending_space_ = false;
};

}  // namespace

std::string html_to_text(std::string_view html) { return Converter(html).run(); }

}  // namespace svc::messaging

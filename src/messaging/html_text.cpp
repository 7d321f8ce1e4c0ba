#include "messaging/html_text.hpp"

#include <algorithm>
#include <cstdint>

namespace svc::messaging {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool istarts_with(std::string_view s, std::size_t at, std::string_view prefix) {
  if (s.size() - at < prefix.size()) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k) {
    if (lower(s[at + k]) != prefix[k]) return false;
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

// Decodes the entity starting at html[at] == '&' into out; returns the length
// consumed, or 0 when it is not one we know (the '&' is then kept as text).
std::size_t decode_entity(std::string_view html, std::size_t at, std::string& out) {
  static constexpr std::pair<std::string_view, std::string_view> kNamed[] = {
      {"&amp;", "&"}, {"&lt;", "<"},  {"&gt;", ">"},  {"&quot;", "\""},
      {"&apos;", "'"}, {"&nbsp;", " "}, {"&#39;", "'"},
  };
  for (const auto& [name, text] : kNamed) {
    if (istarts_with(html, at, name)) {
      out += text;
      return name.size();
    }
  }
  if (at + 3 < html.size() && html[at + 1] == '#') {
    const bool hex = lower(html[at + 2]) == 'x';
    std::size_t k = at + (hex ? 3 : 2);
    std::uint32_t cp = 0;
    std::size_t digits = 0;
    for (; k < html.size() && digits < 8; ++k, ++digits) {
      const char c = lower(html[k]);
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
  static constexpr std::string_view kBlocks[] = {"li", "tr", "h1", "h2", "h3", "h4",
                                                 "h5", "h6", "ul", "ol", "table"};
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

}  // namespace

std::string html_to_text(std::string_view html) {
  std::string out;
  std::string pending_href;  // of the open <a>, written after its text
  bool pending_space = false;
  auto newline = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
    pending_space = false;
  };

  std::size_t i = 0;
  while (i < html.size()) {
    const char c = html[i];
    if (c == '<') {
      if (html.substr(i, 4) == "<!--") {
        const std::size_t end = html.find("-->", i + 4);
        i = end == std::string_view::npos ? html.size() : end + 3;
        continue;
      }
      const std::size_t gt = html.find('>', i);
      if (gt == std::string_view::npos) break;  // an unterminated tag: drop the rest
      std::size_t k = i + 1;
      const bool closing = k < gt && html[k] == '/';
      if (closing) ++k;
      std::string name;
      while (k < gt && ((html[k] >= 'a' && html[k] <= 'z') || (html[k] >= 'A' && html[k] <= 'Z') ||
                        (html[k] >= '0' && html[k] <= '9'))) {
        name += lower(html[k++]);
      }
      if (name == "a" && !closing) pending_href = anchor_href(html.substr(i, gt - i));
      if (name == "a" && closing && !pending_href.empty()) {
        // Text-only readers need the target of a link (a reset link above all).
        if (out.find(pending_href) == std::string::npos) out += " (" + pending_href + ")";
        pending_href.clear();
      }
      i = gt + 1;
      if (!closing && (name == "script" || name == "style" || name == "head")) {
        const std::size_t end = ifind(html, "</" + name, i);
        const std::size_t end_gt = end == std::string_view::npos ? end : html.find('>', end);
        i = end_gt == std::string_view::npos ? html.size() : end_gt + 1;
        continue;
      }
      if (breaks_line(name, closing)) {
        newline();
      } else if (name == "td" || name == "th") {
        pending_space = true;
      }
      continue;
    }
    if (is_blank(c)) {
      pending_space = true;
      ++i;
      continue;
    }
    if (pending_space && !out.empty() && out.back() != '\n') out += ' ';
    pending_space = false;
    if (c == '&') {
      const std::size_t used = decode_entity(html, i, out);
      if (used > 0) {
        i += used;
        continue;
      }
    }
    out += c;
    ++i;
  }

  // At most one blank line in a row; no blank lines or spaces at either end.
  std::string text;
  text.reserve(out.size());
  int newlines = 0;
  for (char ch : out) {
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

}  // namespace svc::messaging

#include "core/text.hpp"

#include <algorithm>
#include <cstdio>

namespace svc::core {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one.
size_t sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char c1 = byte(i + 1);
  if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
  if (c == 0xED && c1 >= 0xA0) return 0;  // surrogate
  if (c == 0xF0 && c1 < 0x90) return 0;   // overlong
  if (c == 0xF4 && c1 >= 0x90) return 0;  // above U+10FFFF
  return n;
}

// What strip_controls removes: C0 controls and DEL.
bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

}  // namespace

std::string utf8_clean(std::string_view s, size_t max_bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(std::min(s.size(), max_bytes));
  for (size_t i = 0; i < s.size();) {
    size_t n = sequence_length(s, i);
    std::string_view piece = n ? s.substr(i, n) : kReplacement;
    if (out.size() + piece.size() > max_bytes) break;
    out += piece;
    i += n ? n : 1;
  }
  return out;
}

std::optional<long long> parse_id(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  long long n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::string strip_controls(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (!is_control(c)) out += c;
  }
  return out;
}

bool has_controls(std::string_view s) { return std::any_of(s.begin(), s.end(), is_control); }

bool has_name_controls(std::string_view s) {
  if (has_controls(s)) return true;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const auto a = static_cast<unsigned char>(s[i]);
    const auto b = static_cast<unsigned char>(s[i + 1]);
    if (a == 0xC2 && b >= 0x80 && b <= 0x9F) return true;  // C1: U+0080..U+009F
    if (a == 0xE2 && b == 0x80 && i + 2 < s.size()) {
      const auto c = static_cast<unsigned char>(s[i + 2]);
      if (c == 0xA8 || c == 0xA9) return true;  // U+2028, U+2029
    }
  }
  return false;
}

std::string mask_controls(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (is_control(c)) c = '?';
  }
  return out;
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f'; }

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string url_host(std::string_view url) {
  const std::string l = ascii_lower(url);
  const size_t start = l.rfind("https://", 0) == 0 ? 8 : l.rfind("http://", 0) == 0 ? 7 : std::string::npos;
  if (start == std::string::npos) return "";
  const size_t end = l.find_first_of("/?#", start);
  const std::string authority = l.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (authority.empty() || authority.find('@') != std::string::npos) return "";
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    return close == std::string::npos ? "" : authority.substr(0, close + 1);
  }
  return authority.substr(0, authority.find(':'));
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0f];
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::vector<std::string_view> split_words(std::string_view list) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(' ', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace svc::core

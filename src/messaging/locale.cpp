#include "messaging/locale.hpp"

#include <cctype>

#include "core/text.hpp"

namespace svc::messaging {

bool is_locale_shape(std::string_view tag) {
  if (tag.empty() || tag.size() > 35) return false;
  std::size_t start = 0;
  bool first = true;
  while (start <= tag.size()) {
    std::size_t end = tag.find_first_of("-_", start);
    if (end == std::string_view::npos) end = tag.size();
    const std::string_view sub = tag.substr(start, end - start);
    if (sub.empty() || sub.size() > 8) return false;
    for (char c : sub) {
      const auto u = static_cast<unsigned char>(c);
      if (first ? !std::isalpha(u) : !std::isalnum(u)) return false;
      if (u >= 0x80) return false;
    }
    if (first && (sub.size() < 2 || sub.size() > 3)) return false;
    first = false;
    start = end + 1;
  }
  return true;
}

std::string normalize_locale(std::string_view tag) {
  std::string out = core::ascii_lower(tag);
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  return out;
}

std::vector<std::string> locale_fallbacks(std::string_view tag) {
  std::vector<std::string> out;
  std::string t = normalize_locale(tag);
  while (!t.empty()) {
    out.push_back(t);
    const auto dash = t.rfind('-');
    t = dash == std::string::npos ? "" : t.substr(0, dash);
  }
  out.push_back("");
  return out;
}

}  // namespace svc::messaging

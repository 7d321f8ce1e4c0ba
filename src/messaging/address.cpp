#include "messaging/address.hpp"

#include "core/text.hpp"

namespace svc::messaging {

std::vector<std::string> split_addresses(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find_first_of(",;", start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    item = core::trim_blanks(item);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

Mailbox parse_mailbox(std::string_view text) {
  const std::string clean = core::strip_controls(text);
  std::string_view s = core::trim_blanks(clean);
  const auto open = s.rfind('<');
  if (s.empty() || s.back() != '>' || open == std::string_view::npos) return {"", std::string(s)};
  Mailbox m;
  m.address = std::string(core::trim_blanks(s.substr(open + 1, s.size() - open - 2)));
  std::string_view name = core::trim_blanks(s.substr(0, open));
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = name.substr(1, name.size() - 2);
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (name[i] == '\\' && i + 1 < name.size()) ++i;
      m.name.push_back(name[i]);
    }
  } else {
    m.name = std::string(name);
  }
  return m;
}

}  // namespace svc::messaging

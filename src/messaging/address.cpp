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

}  // namespace svc::messaging

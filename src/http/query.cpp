#include "http/query.hpp"

namespace svc::http {

std::vector<std::string_view> query_values(std::string_view query, std::string_view name) {
  std::vector<std::string_view> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    out.push_back(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
  }
  return out;
}

}  // namespace svc::http

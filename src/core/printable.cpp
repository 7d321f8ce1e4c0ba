#include "core/printable.hpp"

#include "core/text.hpp"

namespace svc::core {

std::string printable(std::string_view s, std::size_t max_bytes) {
  std::string clean = utf8_clean(strip_controls(s));
  if (clean.size() <= max_bytes) return clean;
  return utf8_clean(clean, max_bytes) + "...";
}

}  // namespace svc::core

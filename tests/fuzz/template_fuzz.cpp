// The template merger. Input: "name=value" lines (the merge values), an empty
// line, then the template. Checks the contracts of messaging/template.hpp
// that hold for any input: a one-line merge holds no control character, and
// without values every placeholder stays exactly as written.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/text.hpp"
#include "messaging/template.hpp"

namespace {

svc::messaging::MergeValues parse_values(std::string_view& rest) {
  svc::messaging::MergeValues values;
  while (!rest.empty()) {
    const size_t lf = rest.find('\n');
    const std::string_view line = rest.substr(0, lf);
    rest = lf == std::string_view::npos ? std::string_view() : rest.substr(lf + 1);
    if (line.empty()) break;
    const size_t eq = line.find('=');
    values[std::string(line.substr(0, eq))] = eq == std::string_view::npos ? "" : std::string(line.substr(eq + 1));
  }
  return values;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const svc::messaging::MergeValues values = parse_values(rest);
  const std::string_view tmpl = rest;

  (void)svc::messaging::merge_html(tmpl, values);
  for (unsigned char c : svc::messaging::merge_plain_line(tmpl, values)) {
    if (c < 0x20 || c == 0x7f) std::abort();  // a value or the template started a new header line
  }
  if (svc::messaging::merge_html(tmpl, {}) != tmpl) std::abort();
  if (svc::messaging::merge_plain_line(tmpl, {}) != svc::core::strip_controls(tmpl)) std::abort();
  return 0;
}

#include "messaging/template.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace svc::messaging {
namespace {

bool is_field_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// The one merge loop. Scanning never looks at text that came from a value, so
// substitution is single-pass by construction.
// on_unfilled(name) for each placeholder without a value.
template <typename AppendValue, typename OnUnfilled>
std::string merge(std::string_view tmpl, const MergeValues& values, AppendValue append_value, OnUnfilled on_unfilled) {
  std::string out;
  out.reserve(tmpl.size());
  std::size_t i = 0;
  while (i < tmpl.size()) {
    const std::size_t open = tmpl.find('[', i);
    if (open == std::string_view::npos) {
      out.append(tmpl.substr(i));
      break;
    }
    out.append(tmpl.substr(i, open - i));
    std::size_t end = open + 1;
    while (end < tmpl.size() && is_field_char(tmpl[end])) ++end;
    if (end == open + 1 || end >= tmpl.size() || tmpl[end] != ']') {
      out += '[';  // not a placeholder; "[[name]" still finds "[name]" next
      i = open + 1;
      continue;
    }
    const std::string name(tmpl.substr(open + 1, end - open - 1));
    if (auto it = values.find(name); it != values.end()) {
      append_value(out, it->second);
    } else {
      on_unfilled(name);
      out.append(tmpl.substr(open, end - open + 1));
    }
    i = end + 1;
  }
  return out;
}

template <typename AppendValue>
std::string merge(std::string_view tmpl, const MergeValues& values, AppendValue append_value) {
  return merge(tmpl, values, append_value, [](const std::string&) {});
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
}

std::vector<std::string> placeholders(std::string_view tmpl) {
  std::vector<std::string> names;
  merge(
      tmpl, {}, [](std::string&, std::string_view) {},
      [&](const std::string& name) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      });
  return names;
}

std::string merge_html(std::string_view tmpl, const MergeValues& values) {
  return merge(tmpl, values, append_html_escaped);
}

std::string merge_plain_line(std::string_view tmpl, const MergeValues& values) {
  return core::strip_controls(
      merge(tmpl, values, [](std::string& out, std::string_view value) { out += core::strip_controls(value); }));
}

}  // namespace svc::messaging

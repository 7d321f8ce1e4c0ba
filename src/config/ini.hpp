#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace svc::config {

// A parsed INI file: "section.key" -> value. Syntax: `[section]` headers,
// `key = value` lines, `#` or `;` comments at the start of a line, values
// trimmed; a value may be wrapped in double quotes to keep leading or trailing
// spaces. Keys before any section header are an error.
using IniValues = std::map<std::string, std::string>;

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ConfigError naming the file and line for a malformed line or a key
// given twice.
IniValues parse_ini(const std::string& text, const std::string& origin);
IniValues load_ini_file(const std::string& path);

}  // namespace svc::config

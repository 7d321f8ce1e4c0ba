#include "config/ini.hpp"

#include <fstream>
#include <sstream>

#include "core/text.hpp"

namespace svc::config {
namespace {

std::string trim(std::string_view s) { return std::string(core::trim_blanks(s)); }

}  // namespace

IniValues parse_ini(const std::string& text, const std::string& origin) {
  IniValues values;
  std::istringstream in(text);
  std::string line;
  std::string section;
  int number = 0;
  auto fail = [&](const std::string& why) { throw ConfigError(origin + ":" + std::to_string(number) + ": " + why); };
  while (std::getline(in, line)) {
    ++number;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') fail("section header without ']'");
      section = trim(t.substr(1, t.size() - 2));
      if (section.empty()) fail("empty section name");
      continue;
    }
    size_t eq = t.find('=');
    if (eq == std::string::npos) fail("expected 'key = value'");
    if (section.empty()) fail("key outside of a [section]");
    std::string key = trim(t.substr(0, eq));
    std::string value = trim(t.substr(eq + 1));
    if (key.empty()) fail("empty key");
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    std::string full = section + "." + key;
    if (!values.emplace(full, value).second) fail("[" + section + "] " + key + " is set twice");
  }
  return values;
}

IniValues load_ini_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    throw ConfigError("cannot read configuration file " + path +
                      " (name another with --config FILE or the SVC_CONFIG environment variable)");
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_ini(ss.str(), path);
}

}  // namespace svc::config

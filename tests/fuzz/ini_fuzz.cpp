// The INI reader, then configuration validation on what it read. Any input
// either parses or throws ConfigError (never another exception, never a
// crash); the reader's errors name the file and line, validation's name a
// configuration key.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "config/ini.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  svc::config::IniValues values;
  try {
    values = svc::config::parse_ini(text, "fuzz.conf");
  } catch (const svc::config::ConfigError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.conf:")) std::abort();
    return 0;
  }
  try {
    (void)svc::config::parse_config(values, "fuzz.conf");
  } catch (const svc::config::ConfigError& e) {
    if (std::string_view(e.what()).find("configuration key") == std::string_view::npos) std::abort();
  }
  return 0;
}

#include "admin/sql_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

// SVC_SQL_DIR: the source tree's migrations folder, set by CMake for this file only.

namespace svc::admin {

std::string default_sql_dir() {
  if (const char* env = std::getenv("SVC_SQL_DIR"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "svc" / "sql";
    if (std::filesystem::is_directory(installed, ec)) return installed.string();
  }
  return SVC_SQL_DIR;
}

}  // namespace svc::admin

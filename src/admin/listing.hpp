#pragma once
// How svc-admin's list commands print: one tab-separated header line and one
// line a row, or a single line saying there is nothing.

#include <cstdio>
#include <string>

#include "core/clock.hpp"

namespace svc::admin {

// The one form svc-admin prints a time in for a person: "2026-11-29
// 10:00:00Z" (UTC), "-" for none (0).
inline std::string readable_time(long long unix_seconds) {
  return unix_seconds > 0 ? core::format_utc(unix_seconds, "%Y-%m-%d %H:%M:%SZ") : "-";
}

// Prints `empty` (a whole line, without its line break) when rows is empty,
// else `header` and then print_row(row) for each row (print_row writes the
// row's line, line break included). Returns 0, the command's exit status.
template <class Rows, class PrintRow>
int print_listing(const Rows& rows, const std::string& empty, const char* header, PrintRow print_row) {
  if (rows.empty()) {
    std::printf("%s\n", empty.c_str());
    return 0;
  }
  std::printf("%s\n", header);
  for (const auto& row : rows) print_row(row);
  return 0;
}

}  // namespace svc::admin

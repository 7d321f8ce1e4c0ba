#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace svc::core {

// One structured log line: a JSON object written to stderr as a single line
// (journald stores each line as one entry). Usage:
//   LogLine("info", "request").str("request_id", id).num("status", 200).emit();
// Never put passwords, tokens, codes or keys into a log line.
class LogLine {
 public:
  LogLine(std::string_view level, std::string_view event);
  LogLine& str(std::string_view key, std::string_view value);
  LogLine& num(std::string_view key, long long value);
  LogLine& real(std::string_view key, double value);
  LogLine& flag(std::string_view key, bool value);
  // Writes the line atomically (one write(2) call) to stderr, or, while
  // lines are held (hold_log_lines) and this is an "info" line, adds it to
  // the held lines.
  void emit();

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
  bool info_ = false;
  bool emitted_ = false;
};

// While on, "info" lines of this process are held and written together,
// several complete lines in one write(2) of at most 4 KiB (atomic on a pipe,
// and journald splits at newlines): when the next would not fit, when a line
// of another level comes (it goes out with them, in order), when a line comes
// 100 ms or more after the oldest held one, and at flush_log_lines(). A worker holds its
// per-request lines and flushes whenever it is about to wait for a
// connection, so an idle service shows every line at once and a busy one
// saves a system call per request. A crash loses the lines still held (at
// most 4 KiB, the last 100 ms).
void hold_log_lines(bool on);
void flush_log_lines();

// The process role that appears in every line ("master", "worker", "sender", "admin").
void set_log_process(std::string_view role);

}  // namespace svc::core

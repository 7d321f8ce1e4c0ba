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
  // Writes the line atomically (one write(2) call) to stderr.
  void emit();

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
  bool emitted_ = false;
};

// The process role that appears in every line ("master", "worker", "sender", "admin").
void set_log_process(std::string_view role);

}  // namespace svc::core

#include "core/log.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <mutex>

#include "core/text.hpp"

namespace svc::core {
namespace {

char g_process[16] = "svc";

// getpid() is a system call on every line otherwise (glibc no longer caches
// it). The cache is cleared in the child of every fork, so a worker never
// logs its master's pid.
pid_t g_pid = 0;

pid_t log_pid() {
  static const bool registered = pthread_atfork(nullptr, nullptr, [] { g_pid = 0; }) == 0;
  if (g_pid == 0 || !registered) g_pid = getpid();
  return g_pid;
}

// Lines held by hold_log_lines, oldest first, and when the oldest came;
// g_held_lock guards both (svc-sender's delivery threads log while held).
constexpr std::size_t kHeldMax = 4096;
constexpr auto kHeldFor = std::chrono::milliseconds(100);
std::atomic<bool> g_hold{false};
std::mutex g_held_lock;
std::string g_held;
std::chrono::steady_clock::time_point g_held_since;

void write_all(const std::string& text) {
  ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

std::string iso_time_now() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

// REQUIRES: g_held_lock held.
void flush_held() {
  if (g_held.empty()) return;
  write_all(g_held);
  g_held.clear();
}

}  // namespace

void set_log_process(std::string_view role) {
  size_t n = std::min(role.size(), sizeof g_process - 1);
  role.copy(g_process, n);
  g_process[n] = '\0';
}

void hold_log_lines(bool on) {
  static const bool flush_at_exit = std::atexit(flush_log_lines) == 0;
  (void)flush_at_exit;
  if (!on) flush_log_lines();
  g_hold = on;
}

void flush_log_lines() {
  std::lock_guard<std::mutex> held(g_held_lock);
  flush_held();
}

LogLine::LogLine(std::string_view level, std::string_view event) : writer_(buffer_), info_(level == "info") {
  writer_.StartObject();
  str("ts", iso_time_now());
  str("level", level);
  str("proc", g_process);
  num("pid", log_pid());
  str("event", event);
}

LogLine& LogLine::str(std::string_view key, std::string_view value) {
  // Values may come from requests: keep every line valid JSON.
  std::string clean = utf8_clean(value, 4096);
  writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  writer_.String(clean.data(), static_cast<rapidjson::SizeType>(clean.size()));
  return *this;
}

LogLine& LogLine::num(std::string_view key, long long value) {
  writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  writer_.Int64(value);
  return *this;
}

LogLine& LogLine::real(std::string_view key, double value) {
  writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  writer_.Double(value);
  return *this;
}

LogLine& LogLine::flag(std::string_view key, bool value) {
  writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  writer_.Bool(value);
  return *this;
}

void LogLine::emit() {
  if (emitted_) return;
  emitted_ = true;
  writer_.EndObject();
  std::string line(buffer_.GetString(), buffer_.GetSize());
  line.push_back('\n');
  // A single write keeps lines from concurrent processes from interleaving.
  if (!g_hold) {
    write_all(line);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> held(g_held_lock);
  if (g_held.size() + line.size() > kHeldMax) flush_held();
  if (g_held.empty()) g_held_since = now;
  if (line.size() > kHeldMax) {
    write_all(line);
    return;
  }
  g_held += line;
  if (!info_ || now - g_held_since >= kHeldFor) flush_held();
}

}  // namespace svc::core

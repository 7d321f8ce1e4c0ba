#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

namespace svc::http {

// Builds a compact JSON document with a fluent interface:
//   JsonWriter w; w.open().kv("status", "Success").close(); w.str();
class JsonWriter {
 public:
  JsonWriter() : writer_(buffer_) {}
  JsonWriter& open() {
    writer_.StartObject();
    return *this;
  }
  JsonWriter& open(std::string_view key) {
    k(key);
    writer_.StartObject();
    return *this;
  }
  JsonWriter& close() {
    writer_.EndObject();
    return *this;
  }
  JsonWriter& open_array(std::string_view key) {
    k(key);
    writer_.StartArray();
    return *this;
  }
  JsonWriter& open_array() {
    writer_.StartArray();
    return *this;
  }
  JsonWriter& close_array() {
    writer_.EndArray();
    return *this;
  }
  JsonWriter& kv(std::string_view key, std::string_view value) {
    k(key);
    return s(value);
  }
  JsonWriter& kv(std::string_view key, const char* value) { return kv(key, std::string_view(value)); }
  JsonWriter& kv(std::string_view key, long long value) {
    k(key);
    writer_.Int64(value);
    return *this;
  }
  JsonWriter& kv(std::string_view key, int value) {
    k(key);
    writer_.Int(value);
    return *this;
  }
  JsonWriter& kv(std::string_view key, bool value) {
    k(key);
    writer_.Bool(value);
    return *this;
  }
  JsonWriter& kv_null(std::string_view key) {
    k(key);
    writer_.Null();
    return *this;
  }
  // Writes an already-serialised JSON value under key (must be valid JSON).
  JsonWriter& kv_raw(std::string_view key, std::string_view json) {
    k(key);
    writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
    return *this;
  }
  JsonWriter& s(std::string_view value) {
    writer_.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
    return *this;
  }
  // Writes a key whose value the next call writes (an object a helper opens).
  JsonWriter& key(std::string_view name) {
    k(name);
    return *this;
  }
  std::string str() const { return std::string(buffer_.GetString(), buffer_.GetSize()); }

 private:
  void k(std::string_view key) { writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size())); }
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
};

}  // namespace svc::http

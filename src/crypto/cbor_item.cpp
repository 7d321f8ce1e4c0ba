#include "crypto/cbor_item.hpp"

#include <limits>

namespace svc::crypto::cbor {

namespace {

constexpr int kMaxDepth = 16;

// The size of the one CBOR item at `at` in `bytes` (0 when it is not
// well-formed), walked before libcbor sees it: libcbor 0.8 allocates an
// array or map of the length its header declares before reading a single
// element, so a 5-byte header could ask for gigabytes. Here every declared
// count must fit in the bytes that are left (each element takes one byte or
// more). Only what CTAP2's canonical CBOR uses passes: definite lengths, no
// tags, and of the simple values false, true, null and floats.
std::size_t item_size(std::string_view bytes, std::size_t at, int depth) {
  if (at >= bytes.size() || depth > kMaxDepth) return 0;
  const auto head = static_cast<unsigned char>(bytes[at]);
  const int major = head >> 5;
  const int info = head & 0x1f;
  std::size_t pos = at + 1;
  std::uint64_t arg = static_cast<std::uint64_t>(info);
  if (info >= 24 && info <= 27) {
    const std::size_t n = std::size_t{1} << (info - 24);
    if (bytes.size() - pos < n) return 0;
    arg = 0;
    for (std::size_t i = 0; i < n; ++i) arg = (arg << 8) | static_cast<unsigned char>(bytes[pos + i]);
    pos += n;
  } else if (info > 27) {
    return 0;  // reserved, or an indefinite length
  }
  const std::uint64_t left = bytes.size() - pos;
  switch (major) {
    case 0:
    case 1:
      return pos - at;
    case 2:
    case 3:
      return arg <= left ? pos + arg - at : 0;
    case 4:
    case 5: {
      const std::uint64_t items = major == 5 ? arg * 2 : arg;
      if (arg > left || items > left) return 0;
      for (std::uint64_t i = 0; i < items; ++i) {
        const std::size_t size = item_size(bytes, pos, depth + 1);
        if (size == 0) return 0;
        pos += size;
      }
      return pos - at;
    }
    case 7:
      return (info >= 20 && info <= 22) || (info >= 25 && info <= 27) ? pos - at : 0;
    default:
      return 0;  // tags
  }
}

}  // namespace

Loaded load_prefix(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > kMaxInput) return {};
  const std::size_t size = item_size(bytes, 0, 0);
  if (size == 0) return {};
  cbor_load_result result{};
  cbor_item_t* item = cbor_load(reinterpret_cast<cbor_data>(bytes.data()), size, &result);
  if (item == nullptr || result.error.code != CBOR_ERR_NONE || result.read != size) {
    if (item != nullptr) cbor_decref(&item);
    return {};
  }
  return {ItemPtr(item), result.read};
}

namespace {

template <class Match>
cbor_item_t* find(cbor_item_t* map, Match match) {
  if (map == nullptr || !cbor_isa_map(map) || !cbor_map_is_definite(map)) return nullptr;
  cbor_pair* pairs = cbor_map_handle(map);
  for (std::size_t i = 0; i < cbor_map_size(map); ++i) {
    if (match(pairs[i].key)) return pairs[i].value;
  }
  return nullptr;
}

}  // namespace

cbor_item_t* member(cbor_item_t* map, std::string_view key) {
  return find(map, [&](cbor_item_t* k) { return text_of(k) == key; });
}

cbor_item_t* member(cbor_item_t* map, std::int64_t key) {
  return find(map, [&](cbor_item_t* k) { return int_of(k) == key; });
}

std::optional<std::string> bytes_of(cbor_item_t* item) {
  if (item == nullptr || !cbor_isa_bytestring(item) || !cbor_bytestring_is_definite(item)) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(cbor_bytestring_handle(item)), cbor_bytestring_length(item));
}

std::optional<std::string> text_of(cbor_item_t* item) {
  if (item == nullptr || !cbor_isa_string(item) || !cbor_string_is_definite(item)) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(cbor_string_handle(item)), cbor_string_length(item));
}

std::optional<std::int64_t> int_of(cbor_item_t* item) {
  if (item == nullptr) return std::nullopt;
  const bool negative = cbor_isa_negint(item);
  if (!negative && !cbor_isa_uint(item)) return std::nullopt;
  const std::uint64_t raw = cbor_get_int(item);
  if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
  const auto value = static_cast<std::int64_t>(raw);
  return negative ? -1 - value : value;
}

}  // namespace svc::crypto::cbor

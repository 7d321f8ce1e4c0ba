#include "crypto/cbor_item.hpp"

#include <limits>

namespace svc::crypto::cbor {

Loaded load_prefix(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > kMaxInput) return {};
  cbor_load_result result{};
  cbor_item_t* item = cbor_load(reinterpret_cast<cbor_data>(bytes.data()), bytes.size(), &result);
  if (item == nullptr || result.error.code != CBOR_ERR_NONE) {
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

#pragma once
// libcbor items owned by RAII and the few lookups WebAuthn parsing needs.
// For crypto/*.cpp only (it pulls in cbor.h). Reentrant.

#include <cbor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace svc::crypto::cbor {

struct ItemFree {
  void operator()(cbor_item_t* item) const { cbor_decref(&item); }
};
using ItemPtr = std::unique_ptr<cbor_item_t, ItemFree>;

// Inputs above this size are refused before libcbor sees them: a WebAuthn
// structure is a few kilobytes at most (an RSA-4096 key and a 1023-byte
// credential id fit well below it).
inline constexpr std::size_t kMaxInput = 16 * 1024;

// The first CBOR item of `bytes` and how many bytes it took; item null when
// the bytes do not start with a well-formed item in CTAP2's subset (definite
// lengths, no tags, nesting of at most 16), checked before libcbor
// allocates anything.
struct Loaded {
  ItemPtr item;
  std::size_t read = 0;
};
Loaded load_prefix(std::string_view bytes);

// The value of a definite map's member whose key is the text `key` or the
// integer `key`; null when absent or when the map is not definite.
cbor_item_t* member(cbor_item_t* map, std::string_view key);
cbor_item_t* member(cbor_item_t* map, std::int64_t key);

// A definite byte or text string's bytes; nullopt for anything else.
std::optional<std::string> bytes_of(cbor_item_t* item);
std::optional<std::string> text_of(cbor_item_t* item);
// An unsigned or negative integer that fits int64; nullopt for anything else.
std::optional<std::int64_t> int_of(cbor_item_t* item);

}  // namespace svc::crypto::cbor

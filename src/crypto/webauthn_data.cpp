#include "crypto/webauthn_data.hpp"

#include "crypto/cbor_item.hpp"

namespace svc::crypto::webauthn {
namespace {

constexpr std::size_t kFixedSize = 37;  // rpIdHash 32, flags 1, signCount 4
constexpr std::size_t kMaxCredentialId = 1023;

std::uint32_t big_endian(std::string_view b) {
  std::uint32_t v = 0;
  for (char c : b) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// One CBOR map at the start of `rest`; its size in bytes, 0 when there is none.
std::size_t map_prefix(std::string_view rest) {
  cbor::Loaded loaded = cbor::load_prefix(rest);
  if (!loaded.item || !cbor_isa_map(loaded.item.get())) return 0;
  return loaded.read;
}

}  // namespace

std::optional<AuthenticatorData> parse_authenticator_data(std::string_view bytes) {
  if (bytes.size() < kFixedSize || bytes.size() > cbor::kMaxInput) return std::nullopt;
  AuthenticatorData d;
  d.rp_id_hash = std::string(bytes.substr(0, 32));
  d.flags = static_cast<std::uint8_t>(bytes[32]);
  d.sign_count = big_endian(bytes.substr(33, 4));
  if (d.backed_up() && !d.backup_eligible()) return std::nullopt;
  std::string_view rest = bytes.substr(kFixedSize);
  if (d.flags & kFlagAttestedData) {
    if (rest.size() < 18) return std::nullopt;
    AttestedCredential a;
    a.aaguid = std::string(rest.substr(0, 16));
    const std::size_t id_len = big_endian(rest.substr(16, 2));
    rest.remove_prefix(18);
    if (id_len == 0 || id_len > kMaxCredentialId || rest.size() < id_len) return std::nullopt;
    a.credential_id = std::string(rest.substr(0, id_len));
    rest.remove_prefix(id_len);
    const std::size_t key_len = map_prefix(rest);
    if (key_len == 0) return std::nullopt;
    a.public_key = std::string(rest.substr(0, key_len));
    rest.remove_prefix(key_len);
    d.attested = std::move(a);
  }
  if (d.flags & kFlagExtensions) {
    const std::size_t ext_len = map_prefix(rest);
    if (ext_len == 0) return std::nullopt;
    rest.remove_prefix(ext_len);
  }
  if (!rest.empty()) return std::nullopt;
  return d;
}

std::optional<AttestationObject> parse_attestation_object(std::string_view bytes) {
  cbor::Loaded loaded = cbor::load_prefix(bytes);
  if (!loaded.item || loaded.read != bytes.size() || !cbor_isa_map(loaded.item.get())) return std::nullopt;
  cbor_item_t* map = loaded.item.get();
  auto fmt = cbor::text_of(cbor::member(map, "fmt"));
  cbor_item_t* statement = cbor::member(map, "attStmt");
  auto auth_data = cbor::bytes_of(cbor::member(map, "authData"));
  if (!fmt || fmt->empty() || statement == nullptr || !cbor_isa_map(statement) || !auth_data) return std::nullopt;
  auto parsed = parse_authenticator_data(*auth_data);
  if (!parsed || !parsed->attested) return std::nullopt;
  const bool empty_statement = cbor_map_size(statement) == 0;
  return AttestationObject{std::move(*fmt), empty_statement, std::move(*auth_data), std::move(*parsed)};
}

}  // namespace svc::crypto::webauthn

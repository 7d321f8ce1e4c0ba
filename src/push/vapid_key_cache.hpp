#pragma once
// The parsed VAPID signing keys of the sites this process has pushed for.
// Loading a raw key pair runs EVP_PKEY_check (about a quarter of a push's
// instructions when done per push); here each site's pair is parsed and
// checked once per process and reused until the stored keys change.
//
// Keyed by site id and the stored base64url text of both halves, so
// `svc-admin vapid-keys` (new keys) takes effect on the next push without
// a reload. Thread-safe (one mutex); one instance per process,
// process_vapid_keys(), filled after fork (the master never pushes).

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "crypto/vapid.hpp"
#include "db/site_repo.hpp"

namespace svc::push {

class VapidKeyCache {
 public:
  // The signer for the site's stored keys; nullopt when they do not decode
  // or are not a valid matching P-256 pair (remembered too, so a broken
  // site costs one check per key change, not one per push).
  std::optional<crypto::VapidSigner> signer(const db::Site& site);
  std::size_t size();

 private:
  struct Entry {
    std::string public_key;   // as stored (base64url)
    std::string private_key;  // as stored (base64url)
    std::optional<crypto::VapidSigner> signer;
  };
  static constexpr std::size_t kMaxSites = 4096;  // then start over: bounded memory
  std::mutex lock_;
  std::map<long long, Entry> sites_;
};

VapidKeyCache& process_vapid_keys();

}  // namespace svc::push

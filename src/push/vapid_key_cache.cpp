#include "push/vapid_key_cache.hpp"

#include "crypto/encoding.hpp"

namespace svc::push {
namespace {

std::optional<crypto::VapidSigner> load(const db::Site& site) {
  auto vapid_public = crypto::base64url_decode(site.vapid_public_key);
  auto vapid_private = crypto::base64url_decode(site.vapid_private_key);
  if (!vapid_public || !vapid_private) return std::nullopt;
  return crypto::VapidSigner::load(crypto::VapidKeys{*vapid_private, *vapid_public});
}

}  // namespace

std::optional<crypto::VapidSigner> VapidKeyCache::signer(const db::Site& site) {
  std::lock_guard<std::mutex> hold(lock_);
  if (sites_.size() >= kMaxSites && !sites_.contains(site.id)) sites_.clear();
  // A new entry has empty keys and no signer, which is right for a site
  // without keys; any other site's keys differ and are loaded below.
  Entry& entry = sites_[site.id];
  if (entry.public_key != site.vapid_public_key || entry.private_key != site.vapid_private_key) {
    entry.public_key = site.vapid_public_key;
    entry.private_key = site.vapid_private_key;
    entry.signer = load(site);
  }
  return entry.signer;
}

std::size_t VapidKeyCache::size() {
  std::lock_guard<std::mutex> hold(lock_);
  return sites_.size();
}

VapidKeyCache& process_vapid_keys() {
  static VapidKeyCache cache;
  return cache;
}

}  // namespace svc::push

#pragma once
// The webhook event types (docs/webhooks.md, design "Webhooks") and the
// helper every producer calls. Pure except enqueue().

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/transaction.hpp"
#include "db/webhook_repo.hpp"

namespace svc::webhooks {

// Every event type svc sends, in the order docs/webhooks.md lists them.
extern const std::vector<std::string_view> kEventTypes;

bool is_event_type(std::string_view type);

// "a,b , c" -> "a,b,c" (deduplicated, in the given order); nullopt when the
// list is empty; `unknown` receives the first name that is not an event.
std::optional<std::string> parse_event_list(std::string_view list, std::string& unknown);

// Queues event `type` about `data` for the site's subscribed endpoints, in
// the caller's transaction (db::WebhookRepo::enqueue: one indexed
// statement, nothing when the site has no endpoint for it).
// REQUIRES: is_event_type(type).
inline int enqueue(db::Database& db, long long site_id, const std::string& type, db::WebhookData data) {
  data.site_id = site_id;
  return db::WebhookRepo(db).enqueue(site_id, type, data);
}

// Runs fn() in the caller's transaction when one is open, else in one of
// its own (re-run whole after a failure that committed nothing); returns
// what fn returns. For a change and its event that must commit together.
template <class Fn>
auto atomically(db::Database& db, Fn&& fn) -> decltype(fn()) {
  if (db.in_transaction()) return fn();
  return db::with_transaction_retry(db, [&] {
    db::Transaction tx(db);
    auto result = fn();
    tx.commit();
    return result;
  });
}

// Runs change() and enqueues the event in one transaction (atomically).
// For a change that is one statement of its own. `change` returns whether
// the change happened (no event otherwise; a change that did not happen
// commits nothing either).
template <class Change>
bool change_with_event(db::Database& db, long long site_id, const std::string& type, const db::WebhookData& data,
                       Change&& change) {
  return atomically(db, [&] { return change() && (enqueue(db, site_id, type, data), true); });
}

}  // namespace svc::webhooks

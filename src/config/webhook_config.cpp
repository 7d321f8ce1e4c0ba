#include "config/webhook_config.hpp"

#include "config/reader.hpp"

namespace svc::config {

void read_webhooks(Reader& r, WebhookSettings& webhooks) {
  r.integer("webhooks.timeout_ms", webhooks.timeout_ms, 100, 120000);
  r.integer("webhooks.connect_timeout_ms", webhooks.connect_timeout_ms, 100, 120000);
  r.integer("webhooks.batch", webhooks.batch, 1, 10000);
  r.integer("webhooks.concurrency", webhooks.concurrency, 1, 64);
  r.integer("webhooks.lease_seconds", webhooks.lease_seconds, 5, 86400);
  r.integer("webhooks.secret_overlap_seconds", webhooks.secret_overlap_seconds, 0, 30LL * 86400);
  r.integer("webhooks.failing_after", webhooks.failing_after, 1, 1000);
  r.integer("webhooks.keep_finished_seconds", webhooks.keep_finished_seconds, 0, 3650LL * 86400);
}

}  // namespace svc::config

#pragma once
// [webhooks]: how svc-sender delivers webhooks (webhooks/). The SSRF guard
// follows [push] (allow_insecure_endpoints, allowed_ports): one rule for
// every URL a site gives svc. Every key is documented in
// docs/configuration.md with its default.

namespace svc::config {

class Reader;

struct WebhookSettings {
  int timeout_ms = 15000;                    // one attempt, connect to last byte (Standard Webhooks: 15 s)
  int connect_timeout_ms = 3000;             // capped by timeout_ms
  int batch = 100;                           // deliveries claimed per batch
  int concurrency = 8;                       // endpoints delivered to at once
  int lease_seconds = 300;                   // how long a claim holds before another run may take the row
  long long secret_overlap_seconds = 86400;  // rotate-secret: the old secret signs beside the new one this long
  int failing_after = 5;                     // failures in a row that make an endpoint "failing" (/metrics, doctor)
  long long keep_finished_seconds = 604800;  // svc-sender deletes finished deliveries this old (0 = keeps them)
};

// Reads and checks [webhooks]; throws ConfigError naming the first bad key.
void read_webhooks(Reader& r, WebhookSettings& webhooks);

}  // namespace svc::config

#pragma once

#include "core/context.hpp"
#include "http/request.hpp"
#include "http/response.hpp"

namespace svc::app {

// How long the database gauges of GET /metrics are reused: with any number
// of workers and scrapers, at most one query per interval reaches the
// database (the cache sits in the master's shared block).
inline constexpr long long kDbGaugeIntervalMs = 10000;

// GET /metrics: the Prometheus text format of every metric in
// docs/operations.md. Who may scrape is nginx's decision (location = /metrics
// in nginx/snippets/svc-locations.conf); the application does not check.
// A database that cannot be read leaves out its gauges and reports
// svc_metrics_db_up 0; the reply is still 200.
http::Response metrics_endpoint(const http::Request& request, core::Context& ctx);

// Counts one answered request of the route table (app::routes()) into the
// shared block: by route and status, its latency, and the login outcomes.
// No lock, no allocation.
void record_request(const http::Request& request, int status, double seconds);

}  // namespace svc::app

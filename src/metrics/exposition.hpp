#pragma once
// The Prometheus text exposition format (version 0.0.4) of a SharedBlock.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "metrics/metrics.hpp"

namespace svc::metrics {

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

struct RenderInput {
  // The route label of each route-table row, by index (at most kMaxRoutes - 1
  // rows; kOtherRoute renders as route="other"). An empty label skips that
  // row (e.g. a second method of a path already listed).
  std::span<const std::string_view> routes;
  // The database gauges (DbGauge order) and whether they could be read; when
  // !db_ok they are left out and svc_metrics_db_up is 0.
  const int64_t* db_values = nullptr;
  bool db_ok = false;
};

// Renders every metric of docs/operations.md. `block` may be null (a process
// without shared counters): counters then read as zero.
std::string render(const SharedBlock* block, const RenderInput& input);

}  // namespace svc::metrics

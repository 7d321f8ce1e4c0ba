#include "app/metrics_endpoint.hpp"

#include <cstring>
#include <string_view>
#include <vector>

#include "app/routes.hpp"
#include "core/log.hpp"
#include "db/failure.hpp"
#include "db/metrics_repo.hpp"
#include "http/routes.hpp"
#include "metrics/exposition.hpp"
#include "metrics/metrics.hpp"

namespace svc::app {
namespace {

constexpr int kGauges = static_cast<int>(metrics::DbGauge::kCount);

// The metrics slot of a path: the index of the first route-table row with
// that path, or kOtherRoute. Keyed by path only, so a wrong method on a known
// path counts under that path (with its 405).
int route_slot(const std::string& path) {
  auto table = routes();
  for (size_t i = 0; i < table.size() && i < static_cast<size_t>(metrics::kOtherRoute); ++i) {
    if (http::path_matches(table[i].path, path)) return static_cast<int>(i);
  }
  return metrics::kOtherRoute;
}

// One label per row; "" for a row whose path an earlier row already names.
std::vector<std::string_view> route_labels() {
  std::vector<std::string_view> labels;
  for (const auto& row : routes()) {
    std::string_view path = row.path;
    bool seen = false;
    for (auto l : labels) seen = seen || l == path;
    labels.push_back(seen ? std::string_view() : path);
  }
  return labels;
}

bool read_gauges(core::Context& ctx, int64_t (&values)[kGauges]) {
  try {
    db::MetricsRepo(ctx.db).read_gauges(values, ctx.config.smtp.max_bounce_rate, ctx.config.smtp.bounce_rate_min_mails,
                                        ctx.config.webhooks.failing_after);
    return true;
  } catch (const std::exception& e) {
    core::LogLine("warn", db::failure_event(e) == "db_unavailable" ? "db_unavailable" : "metrics_db_read_failed")
        .str("what", "metrics gauges")
        .str("error", e.what())
        .emit();
    return false;
  }
}

}  // namespace

http::Response metrics_endpoint(const http::Request&, core::Context& ctx) {
  int64_t values[kGauges] = {};
  bool ok = false;
  int64_t now = metrics::monotonic_ms();
  if (metrics::claim_db_refresh(now, kDbGaugeIntervalMs)) {
    ok = read_gauges(ctx, values);
    metrics::publish_db(values, ok, now);
  }
  if (const metrics::SharedBlock* block = metrics::snapshot()) {
    for (int i = 0; i < kGauges; ++i) values[i] = block->db.values[i].load(std::memory_order_relaxed);
    ok = block->db.ok.load(std::memory_order_relaxed) != 0;
  }
  std::vector<std::string_view> labels = route_labels();
  metrics::RenderInput input{labels, values, ok};
  http::Response r{200, metrics::render(metrics::snapshot(), input), {}};
  r.headers.emplace_back("Content-Type", std::string(metrics::kContentType));
  return r;
}

void record_request(const http::Request& request, int status, double seconds) {
  int slot = route_slot(request.path);
  metrics::record_request(slot, status, seconds);
  if (slot == metrics::kOtherRoute || std::strcmp(routes()[static_cast<size_t>(slot)].path, "/auth/login") != 0) return;
  if (status == 401) metrics::count(metrics::Counter::kLoginFailed);
  if (status == 429) metrics::count(metrics::Counter::kLoginThrottled);
}

}  // namespace svc::app

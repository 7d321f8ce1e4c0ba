#pragma once
// Which database node a worker connects to next ([database] hosts).

#include <chrono>
#include <cstddef>
#include <vector>

namespace svc::db {

// The order in which a worker tries the nodes: the order written, so that
// every worker writes to the first ready node and Galera certification
// conflicts stay rare; a node that failed in the last kHoldOffSeconds goes to
// the back of the line, so a dead node costs one connect timeout, not one
// per reconnect. Per process; not thread-safe.
class NodeChoice {
 public:
  static constexpr int kHoldOffSeconds = 10;

  // The node indexes 0..count-1 in the order to try them at `now`.
  std::vector<std::size_t> order(std::size_t count, std::chrono::steady_clock::time_point now);
  // Node `index` could not be used (connect failed, not ready, went away).
  void failed(std::size_t index, std::chrono::steady_clock::time_point now);
  // Node `index` answered: it is tried in its written place again.
  void succeeded(std::size_t index);

 private:
  std::vector<std::chrono::steady_clock::time_point> failed_at_;  // {} = not failed
};

}  // namespace svc::db

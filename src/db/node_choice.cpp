#include "db/node_choice.hpp"

namespace svc::db {

std::vector<std::size_t> NodeChoice::order(std::size_t count, std::chrono::steady_clock::time_point now) {
  failed_at_.resize(count);
  std::vector<std::size_t> out;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < count; ++i) {
      const bool held_off = failed_at_[i] != std::chrono::steady_clock::time_point{} &&
                            now - failed_at_[i] < std::chrono::seconds(kHoldOffSeconds);
      if (held_off == (pass == 1)) out.push_back(i);
    }
  }
  return out;
}

void NodeChoice::failed(std::size_t index, std::chrono::steady_clock::time_point now) {
  if (index < failed_at_.size()) failed_at_[index] = now;
}

void NodeChoice::succeeded(std::size_t index) {
  if (index < failed_at_.size()) failed_at_[index] = {};
}

}  // namespace svc::db

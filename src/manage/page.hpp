#pragma once
// Keyset pages of the site-management listings: never OFFSET, at most
// kMaxPage rows, a cursor the client hands back unchanged.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/context.hpp"

namespace svc::manage {

inline constexpr int kMaxPage = 100;
inline constexpr int kDefaultPage = 50;

template <class Row>
struct Page {
  std::vector<Row> rows;
  std::string next_cursor;  // "" = this was the last page
};

// A cursor for the position after the last row of a page of listing `kind`
// on `site`: the position in base64url and a MAC over kind, site and
// position ([keys] id_key), so a client can hand it back but not make one.
std::string make_cursor(core::Context& ctx, std::string_view kind, long long site_id, std::string_view position);

// The position a cursor made by make_cursor carries; "" for an empty
// cursor. Throws 400 (field "cursor": "Invalid cursor") for one that was
// not made for this listing and site, or was changed.
std::string read_cursor(core::Context& ctx, std::string_view kind, long long site_id, std::string_view cursor);

// A page size from a request: absent = kDefaultPage; otherwise 1..kMaxPage,
// else 400 (field "limit").
int page_limit(std::optional<long long> requested);

// A page of at most `limit` rows from `rows` (fetched with limit + 1) and,
// when there were more, the cursor after its last row (position_of(row)).
template <class Row, class Position>
Page<Row> paged(core::Context& ctx, std::string_view kind, long long site_id, std::vector<Row> rows, int limit,
                Position position_of) {
  Page<Row> page;
  page.rows = std::move(rows);
  if (page.rows.size() > static_cast<std::size_t>(limit)) {
    page.rows.resize(static_cast<std::size_t>(limit));
    page.next_cursor = make_cursor(ctx, kind, site_id, position_of(page.rows.back()));
  }
  return page;
}

}  // namespace svc::manage

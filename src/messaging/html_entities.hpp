#pragma once
// HTML's named character references, as far as a mail's text part needs
// them. Pure; no I/O.

#include <cstdint>
#include <optional>
#include <string_view>

namespace svc::messaging {

// The code point of the named reference `name` (without '&' and ';', case
// as written: "eacute" and "Eacute" differ): the 252 names of HTML 4.01
// (Latin-1, symbols and Greek, and the typographic ones such as euro, mdash,
// hellip, lsquo, trade) plus apos. nullopt for any other name.
std::optional<std::uint32_t> named_entity(std::string_view name);

}  // namespace svc::messaging

#pragma once
// Locales of templates and users: BCP 47 language tags in the shape svc
// accepts, and the fallback chain that picks a template (de-AT -> de ->
// the template's default). Pure.

#include <string>
#include <string_view>
#include <vector>

namespace svc::messaging {

// A language subtag of 2-3 letters, then subtags of 1-8 letters or digits,
// separated by '-' (or '_', read as '-'); 35 characters at most. Shape
// only: "xx-YY" passes whether or not the language exists.
bool is_locale_shape(std::string_view tag);

// Lower-cased, '_' as '-' (BCP 47 tags compare case-insensitively).
// REQUIRES: is_locale_shape(tag) or tag empty.
std::string normalize_locale(std::string_view tag);

// The tag, then each shorter prefix at a '-', then "" (the default):
// "de-at" -> {"de-at", "de", ""}; "" -> {""}.
std::vector<std::string> locale_fallbacks(std::string_view tag);

}  // namespace svc::messaging

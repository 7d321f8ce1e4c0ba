// The text part's character references (issue 48): named references beyond
// &amp; and friends were left as written ("&euro;5" in a receipt).
#include "messaging/html_text.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <utility>
#include <vector>

#include "messaging/html_entities.hpp"

namespace m = svc::messaging;

BOOST_AUTO_TEST_SUITE(html_text_test)

BOOST_AUTO_TEST_CASE(named_references_are_decoded) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"<p>Total &euro;5 &mdash; &copy; 2026 Shop&trade;&hellip;</p>", "Total €5 — © 2026 Shop™…"},
      {"&lsquo;a&rsquo; &ldquo;b&rdquo; &laquo;c&raquo; &sbquo;&bdquo;", "‘a’ “b” «c» ‚„"},
      {"&Eacute;t&eacute; &Uuml;ber &szlig; &ntilde; &yuml;&Yuml; &AElig;&oelig;", "Été Über ß ñ ÿŸ Æœ"},
      {"2 &times; 3 &divide; 4 &plusmn; &frac12; &deg;C &micro;g &para;&sect;", "2 × 3 ÷ 4 ± ½ °C µg ¶§"},
      {"&pound;1 &yen;2 &cent; &reg; &ndash; &bull; &dagger;&Dagger; &permil;", "£1 ¥2 ¢ ® – • †‡ ‰"},
      {"&alpha;&Omega; &rarr; &larr; &hearts; &le; &ge; &ne; &infin; &thetasym;", "αΩ → ← ♥ ≤ ≥ ≠ ∞ ϑ"},
      {"a&nbsp;b &apos;c&apos; &AMP; &LT;", "a b 'c' & <"},
      // Not references: left as written.
      {"&euro 5 &Euro; &EURO; &notaname; &thetasymx; &; &#; &copy",
       "&euro 5 &Euro; &EURO; &notaname; &thetasymx; &; &#; &copy"},
      {"&amp;euro; &#38;copy;", "&euro; &copy;"},  // decoded once, not twice
  };
  for (const auto& [html, text] : cases) {
    BOOST_TEST_CONTEXT("html " << html) { BOOST_TEST(m::html_to_text(html) == text); }
  }
}

BOOST_AUTO_TEST_CASE(a_link_target_decodes_named_references) {
  BOOST_TEST(m::html_to_text("<a href=\"https://x.example/?q=caf&eacute;&amp;a=1\">Caf&eacute;</a>") ==
             "Café\nhttps://x.example/?q=café&a=1");
}

BOOST_AUTO_TEST_CASE(the_table_is_html_4s_list) {
  BOOST_TEST(m::named_entity("euro").value_or(0) == 0x20ACu);
  BOOST_TEST(m::named_entity("nbsp").value_or(0) == 0xA0u);
  BOOST_TEST(m::named_entity("AElig").value_or(0) == 0xC6u);
  BOOST_TEST(m::named_entity("aelig").value_or(0) == 0xE6u);
  BOOST_TEST(m::named_entity("zwnj").value_or(0) == 0x200Cu);
  BOOST_TEST(m::named_entity("apos").value_or(0) == 0x27u);
  // The Latin-1 set: U+00A0 to U+00FF, both ends.
  BOOST_TEST(m::named_entity("iexcl").value_or(0) == 0xA1u);
  BOOST_TEST(m::named_entity("yuml").value_or(0) == 0xFFu);
  BOOST_TEST(!m::named_entity("").has_value());
  BOOST_TEST(!m::named_entity("Euro").has_value());
  BOOST_TEST(!m::named_entity("eur").has_value());
  BOOST_TEST(!m::named_entity("euros").has_value());
}

BOOST_AUTO_TEST_SUITE_END()

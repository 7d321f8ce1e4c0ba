#include "crypto/password_score.hpp"

#include <zxcvbn.h>

#include <cctype>
#include <cmath>
#include <string>

namespace svc::crypto {

int score_of_bits(double bits) {
  // zxcvbn's guesses_to_score: < 10^3 + 5 guesses is 0, < 10^6 + 5 is 1,
  // < 10^8 + 5 is 2, < 10^10 + 5 is 3, else 4 (the +5 is below the
  // resolution of a bit estimate).
  const double digits = bits * std::log10(2.0);
  if (digits < 3) return 0;
  if (digits < 6) return 1;
  if (digits < 8) return 2;
  if (digits < 10) return 3;
  return kMaxPasswordScore;
}

std::string_view scored_prefix(std::string_view password) {
  if (password.size() <= kScoredBytes) return password;
  size_t end = kScoredBytes;
  // Back over continuation bytes (10xxxxxx) to the lead byte of the cut character.
  while (end > 0 && (static_cast<unsigned char>(password[end]) & 0xC0) == 0x80) --end;
  return password.substr(0, end);
}

int password_score(std::string_view password, const std::vector<std::string_view>& user_words) {
  const std::string text(scored_prefix(password));
  // Each word whole and each of its letter-and-digit runs of 3 or more
  // ("ada.lovelace@example.com": also "ada", "lovelace", "example", "com").
  std::vector<std::string> words;
  for (std::string_view w : user_words) {
    if (w.empty()) continue;
    words.emplace_back(w);
    std::string run;
    for (size_t i = 0; i <= w.size(); ++i) {
      const unsigned char c = i < w.size() ? static_cast<unsigned char>(w[i]) : 0;
      if (std::isalnum(c) || c >= 0x80) {
        run.push_back(static_cast<char>(c));
        continue;
      }
      if (run.size() >= 3 && run.size() < w.size()) words.push_back(run);
      run.clear();
    }
  }
  std::vector<const char*> dict;
  for (const std::string& w : words) dict.push_back(w.c_str());
  dict.push_back(nullptr);
  return score_of_bits(ZxcvbnMatch(text.c_str(), dict.data(), nullptr));
}

}  // namespace svc::crypto

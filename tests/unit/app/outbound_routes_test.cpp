// The routes flagged kOutbound in app::routes() are the ones nginx sends to
// svc-fcgi's outbound pool (upstream svc_fcgi_outbound) and the ones the
// benchmark attributes to that pool. As for the hashing pool
// (hashing_routes_test.cpp), this test reads the nginx files of the source
// tree (SVC_SOURCE_DIR) and fails when the lists drift apart.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/routes.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> outbound_route_paths() {
  std::set<std::string> out;
  for (const auto& r : svc::app::routes()) {
    if (r.flags & svc::http::kOutbound) out.insert(r.path);
  }
  return out;
}

// The regex nginx uses for a route path with wildcards: '*' a site id,
// '?' a name (upstream sign-in's /oidc/*/upstream/?/callback).
std::string wildcard_regex(const std::string& path) {
  std::string out = "^";
  for (char c : path) out += c == '*' ? "[0-9]+" : c == '?' ? "[a-z0-9-]+" : std::string(1, c);
  return out + "$";
}

// The alternatives of a pattern written as ^/family/(?:a|b)$, as full paths;
// or the flagged wildcard route whose wildcard_regex the pattern is.
std::set<std::string> listed_paths(const std::string& pattern) {
  for (const auto& r : svc::app::routes()) {
    const std::string path(r.path);
    if ((r.flags & svc::http::kOutbound) && path.find_first_of("*?") != std::string::npos &&
        wildcard_regex(path) == pattern) {
      return {path};
    }
  }
  static const std::regex kShape(R"(\^/([a-z]+)/\(\?:([A-Za-z-]+(?:\|[A-Za-z-]+)*)\)\$)");
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_match(pattern, m, kShape),
                        "write an outbound location as ^/family/(?:name|name)$ (or teach this test): " << pattern);
  std::set<std::string> out;
  std::stringstream names(m[2].str());
  for (std::string name; std::getline(names, name, '|');) out.insert("/" + m[1].str() + "/" + name);
  return out;
}

// file -> the regexes of its `location ~ REGEX { ... fastcgi_pass svc_fcgi_outbound; ... }`
// blocks, for every nginx configuration file under nginx/ and bench/.
std::map<std::string, std::vector<std::string>> outbound_locations() {
  static const std::regex kLocation(R"(location\s+~\s+(\S+)\s*\{([^}]*)\})");
  static const std::regex kOutboundPass(R"(fastcgi_pass\s+svc_fcgi_outbound\s*;)");
  std::map<std::string, std::vector<std::string>> out;
  for (const char* dir : {"nginx", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SVC_SOURCE_DIR) / dir)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".conf") && !name.ends_with(".conf.in")) continue;
      const std::string text = read_file(entry.path());
      for (std::sregex_iterator m(text.begin(), text.end(), kLocation), end; m != end; ++m) {
        if (std::regex_search((*m)[2].str(), kOutboundPass)) out[entry.path().string()].push_back((*m)[1].str());
      }
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(outbound_routes_test)

BOOST_AUTO_TEST_CASE(route_table_flags_the_routes_that_wait_on_outside_parties) {
  const std::set<std::string> expected{"/admin/sites/*/providers", "/auth/user-sms-code", "/message/notification",
                                       "/message/sendPush", "/oidc/*/upstream/?/callback"};
  BOOST_TEST(outbound_route_paths() == expected, boost::test_tools::per_element());
  for (const auto& r : svc::app::routes()) {
    BOOST_TEST_CONTEXT(r.path) {
      BOOST_TEST(!((r.flags & svc::http::kOutbound) && (r.flags & svc::http::kHashing)), "one pool per route");
    }
  }
}

BOOST_AUTO_TEST_CASE(nginx_sends_exactly_the_flagged_routes_to_the_outbound_pool) {
  const auto files = outbound_locations();
  BOOST_TEST_REQUIRE(!files.empty(), "no location passes to svc_fcgi_outbound under nginx/ or bench/");
  const std::set<std::string> flagged = outbound_route_paths();
  for (const auto& [file, patterns] : files) {
    BOOST_TEST_CONTEXT(file) {
      std::set<std::string> listed;
      for (const std::string& pattern : patterns) {
        BOOST_TEST_CONTEXT("location ~ " << pattern) {
          for (const auto& p : listed_paths(pattern)) listed.insert(p);
          // The pattern, run as nginx runs it, matches whole flagged paths only.
          const std::regex re(pattern);
          for (const auto& r : svc::app::routes()) {
            BOOST_TEST_CONTEXT(r.path) {
              if (std::regex_search(std::string(r.path), re)) BOOST_TEST(bool(r.flags & svc::http::kOutbound));
              BOOST_TEST(!std::regex_search(std::string(r.path) + "/", re));
            }
          }
        }
      }
      BOOST_TEST(listed == flagged, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(benchmark_attributes_the_flagged_routes_to_the_outbound_pool) {
  const std::string bench = read_file(fs::path(SVC_SOURCE_DIR) / "bench" / "stack.py");
  std::smatch m;
  BOOST_TEST_REQUIRE(std::regex_search(bench, m, std::regex(R"(OUTBOUND_PATHS = \(([^)]*)\))")),
                     "bench/stack.py: OUTBOUND_PATHS = (...) not found");
  std::set<std::string> listed;
  const std::string items = m[1].str();
  const std::regex kQuoted("\"([^\"]*)\"");
  for (std::sregex_iterator q(items.begin(), items.end(), kQuoted), end; q != end; ++q) listed.insert((*q)[1].str());
  // The benchmark drives no route with wildcards (upstream sign-in's callback).
  std::set<std::string> plain;
  for (const auto& p : outbound_route_paths()) {
    if (p.find_first_of("*?") == std::string::npos) plain.insert(p);
  }
  BOOST_TEST(listed == plain, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

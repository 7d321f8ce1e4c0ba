// The QR code of the TOTP setup reply (core/qr_svg.hpp): the SVG's path
// paints exactly the module matrix, inside a quiet zone of 4 modules, and an
// independent decoder (zbarimg of Debian's zbar-tools) reads a rasterised
// copy of the SVG, painted from its path alone, back to the same text.
#include "core/qr_svg.hpp"

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

using svc::core::kQrQuietZone;
using svc::core::qr_matrix;
using svc::core::qr_svg;

namespace {

const std::string kUrl =
    "otpauth://totp/svc.localhost:demo%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=svc.localhost&"
    "algorithm=SHA1&digits=6&period=30";

// The picture the SVG draws, read back from its markup: side x side units,
// true where the path paints. Fails the test on markup it does not expect.
struct Drawing {
  int side = 0;
  std::vector<bool> dark;
  bool at(int x, int y) const { return dark[static_cast<std::size_t>(y * side + x)]; }
};

Drawing draw(const std::string& svg) {
  std::smatch m;
  const std::regex shape(
      "^<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 (\\d+) \\1\" width=\"(\\d+)\" height=\"\\2\" "
      "shape-rendering=\"crispEdges\"><rect width=\"\\1\" height=\"\\1\" fill=\"#fff\"/><path fill=\"#000\" "
      "d=\"([^\"]*)\"/></svg>$");
  BOOST_REQUIRE(std::regex_match(svg, m, shape));
  Drawing d;
  d.side = std::stoi(m[1]);
  d.dark.assign(static_cast<std::size_t>(d.side * d.side), false);
  const std::string path = m[3];
  const std::regex run("M(\\d+),(\\d+)h(\\d+)v1h-\\3z");
  std::size_t consumed = 0;
  for (auto it = std::sregex_iterator(path.begin(), path.end(), run); it != std::sregex_iterator(); ++it) {
    BOOST_REQUIRE_EQUAL(static_cast<std::size_t>(it->position()), consumed);  // nothing between runs
    consumed += static_cast<std::size_t>(it->length());
    const int x = std::stoi((*it)[1]), y = std::stoi((*it)[2]), n = std::stoi((*it)[3]);
    BOOST_REQUIRE(x >= 0 && y >= 0 && n > 0 && x + n <= d.side && y < d.side);
    for (int i = 0; i < n; ++i) d.dark[static_cast<std::size_t>(y * d.side + x + i)] = true;
  }
  BOOST_REQUIRE_EQUAL(consumed, path.size());
  return d;
}

// A binary PGM of the drawing, `scale` pixels a module; returns its path.
std::string write_pgm(const Drawing& d, int scale, const std::string& name) {
  const auto file = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".pgm");
  std::ofstream out(file, std::ios::binary);
  const int px = d.side * scale;
  out << "P5\n" << px << " " << px << "\n255\n";
  for (int y = 0; y < px; ++y)
    for (int x = 0; x < px; ++x) out.put(d.at(x / scale, y / scale) ? '\0' : static_cast<char>(255));
  BOOST_REQUIRE(out.good());
  return file.string();
}

// What zbarimg reads in the image (its --raw output without the newline).
std::string zbar_decode(const std::string& image) {
  // zbar-tools is installed by scripts/install-deps.sh: missing is a failure.
  BOOST_REQUIRE_MESSAGE(std::system("command -v zbarimg >/dev/null 2>&1") == 0, "zbarimg (zbar-tools) not found");
  FILE* pipe = popen(("zbarimg --raw -q -Sdisable -Sqrcode.enable '" + image + "' 2>/dev/null").c_str(), "r");
  BOOST_REQUIRE(pipe != nullptr);
  std::string text;
  char buf[512];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  const int status = pclose(pipe);
  std::filesystem::remove(image);
  BOOST_TEST_INFO("zbarimg exit status " << status);
  BOOST_REQUIRE_EQUAL(status, 0);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(qr_svg_test)

BOOST_AUTO_TEST_CASE(the_path_paints_the_module_matrix_inside_a_quiet_zone) {
  const auto matrix = qr_matrix(kUrl);
  // Versions 1..40 have 21, 25, ... 177 modules a side.
  BOOST_TEST(matrix.size >= 21);
  BOOST_TEST(matrix.size <= 177);
  BOOST_TEST((matrix.size - 17) % 4 == 0);
  // The top-left finder pattern: a dark 7-module border, a light separator.
  for (int i = 0; i < 7; ++i) {
    BOOST_TEST(matrix.at(i, 0));
    BOOST_TEST(matrix.at(0, i));
    BOOST_TEST(matrix.at(i, 6));
  }
  BOOST_TEST(!matrix.at(7, 0));
  BOOST_TEST(!matrix.at(1, 1));
  BOOST_TEST(matrix.at(3, 3));

  const Drawing d = draw(qr_svg(kUrl));
  BOOST_REQUIRE_EQUAL(d.side, matrix.size + 2 * kQrQuietZone);
  int painted = 0;
  for (int y = 0; y < d.side; ++y) {
    for (int x = 0; x < d.side; ++x) {
      const int mx = x - kQrQuietZone, my = y - kQrQuietZone;
      const bool inside = mx >= 0 && my >= 0 && mx < matrix.size && my < matrix.size;
      BOOST_TEST_CONTEXT("x=" << x << " y=" << y) { BOOST_TEST(d.at(x, y) == (inside && matrix.at(mx, my))); }
      painted += d.at(x, y) ? 1 : 0;
    }
  }
  BOOST_TEST(painted > 0);
}

BOOST_AUTO_TEST_CASE(zbarimg_reads_the_drawing_back) {
  const std::string texts[] = {
      kUrl,
      // The shape the setup reply uses for a site whose name needs escaping.
      "otpauth://totp/Caf%C3%A9%20%26%20Co:a%2Bb%40x.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Caf%C3%"
      "A9%20%26%20Co&algorithm=SHA1&digits=6&period=30"};
  for (const auto& text : texts) {
    BOOST_TEST_CONTEXT(text) {
      const Drawing d = draw(qr_svg(text));
      BOOST_TEST(zbar_decode(write_pgm(d, 4, "svc-qr")) == text);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_text_no_symbol_holds_is_refused) {
  BOOST_CHECK_THROW(qr_matrix(std::string(4000, 'x')), std::runtime_error);
  BOOST_CHECK_THROW(qr_svg(std::string(4000, 'x')), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()

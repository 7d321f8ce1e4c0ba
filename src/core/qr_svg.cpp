#include "core/qr_svg.hpp"

#include <qrencode.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace svc::core {
namespace {

struct QrFree {
  void operator()(QRcode* code) const { QRcode_free(code); }
};

}  // namespace

QrMatrix qr_matrix(const std::string& text) {
  // QRcode_encodeData: byte mode for the bytes as given (version 0: the
  // smallest that holds them), no mode guessing that could differ by text.
  std::unique_ptr<QRcode, QrFree> code(QRcode_encodeData(
      static_cast<int>(text.size()), reinterpret_cast<const unsigned char*>(text.data()), 0, QR_ECLEVEL_M));
  if (!code) throw std::runtime_error("QR code: the text does not fit in a symbol");
  QrMatrix m;
  m.size = code->width;
  const auto cells = static_cast<std::size_t>(m.size) * static_cast<std::size_t>(m.size);
  m.dark.resize(cells);
  // Bit 0 of each byte is the module's colour; the other bits say what the
  // module is part of (finder, timing, data), which a drawing ignores.
  for (std::size_t i = 0; i < cells; ++i) m.dark[i] = (code->data[i] & 1) != 0;
  return m;
}

std::string qr_svg(const std::string& text) {
  const QrMatrix m = qr_matrix(text);
  const int side = m.size + 2 * kQrQuietZone;
  const std::string s = std::to_string(side);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + s + " " + s + "\" width=\"" +
                    std::to_string(side * 4) + "\" height=\"" + std::to_string(side * 4) +
                    "\" shape-rendering=\"crispEdges\"><rect width=\"" + s + "\" height=\"" + s +
                    "\" fill=\"#fff\"/><path fill=\"#000\" d=\"";
  // One subpath per horizontal run keeps the document about a third of the
  // size of one rect per module.
  for (int y = 0; y < m.size; ++y) {
    for (int x = 0; x < m.size;) {
      if (!m.at(x, y)) {
        ++x;
        continue;
      }
      int run = 1;
      while (x + run < m.size && m.at(x + run, y)) ++run;
      const std::string n = std::to_string(run);
      svg +=
          "M" + std::to_string(x + kQrQuietZone) + "," + std::to_string(y + kQrQuietZone) + "h" + n + "v1h-" + n + "z";
      x += run;
    }
  }
  svg += "\"/></svg>";
  return svg;
}

}  // namespace svc::core

#pragma once
// A QR code (ISO/IEC 18004) of a short text, drawn as an SVG document: the
// TOTP setup reply carries one of its otpauth:// URL so that the enrolment
// page needs no QR library, no CDN and no script of its own to draw it
// (docs/decisions.md "QR codes server-side with libqrencode").
//
// Thread-safe: libqrencode keeps no shared state when encoding.

#include <string>
#include <vector>

namespace svc::core {

// Light modules around the symbol on every side, as the standard asks.
inline constexpr int kQrQuietZone = 4;

// The module matrix of `text`'s QR code (byte mode, error correction level
// M, the smallest version that holds it), without the quiet zone.
struct QrMatrix {
  int size = 0;            // modules per side (21 for version 1, +4 a version)
  std::vector<bool> dark;  // size * size, row by row
  bool at(int x, int y) const {
    return dark[static_cast<std::size_t>(y) * static_cast<std::size_t>(size) + static_cast<std::size_t>(x)];
  }
};

// Throws std::runtime_error when libqrencode refuses (a text longer than a
// version 40 symbol holds, or out of memory).
QrMatrix qr_matrix(const std::string& text);

// One SVG document of `text`'s QR code: a square viewBox of
// size + 2 * kQrQuietZone units (one unit a module), a white background
// rect and one black <path> of horizontal runs of dark modules
// ("M<x>,<y>h<n>v1h-<n>z", x and y counting the quiet zone), crispEdges.
// No script, style element or external reference. Throws as qr_matrix.
std::string qr_svg(const std::string& text);

}  // namespace svc::core

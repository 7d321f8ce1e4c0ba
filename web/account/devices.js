// Sessions in words for the account centre (account.js): a device name
// read from a User-Agent ("Safari on iPhone", "Firefox on Windows") and a
// time as people say it ("3 minutes ago"). Pure functions, no requests. A
// User-Agent is whatever the client sent: the page never shows it raw, only
// names from the lists below, or a client's own product name (letters,
// digits, ".-_", at most 24 characters: "curl", "okhttp").
'use strict';

window.svcDevices = (function () {
  // First match wins: Edge, Opera and Samsung Internet also say "Chrome",
  // Chrome also says "Safari", an iPhone's says "like Mac OS X".
  const BROWSERS = [
    [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
    [/\b(?:OPR|OPiOS|Opera)\//, 'Opera'],
    [/\bSamsungBrowser\//, 'Samsung Internet'],
    [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
    [/\b(?:HeadlessChrome|Chrome|Chromium|CriOS)\//, 'Chrome'],
    [/\bSafari\//, 'Safari'],
  ];
  const SYSTEMS = [
    [/\biPhone\b/, 'iPhone'],
    [/\biPad\b/, 'iPad'],
    [/\bAndroid\b/, 'Android'],
    [/\bCrOS\b/, 'ChromeOS'],
    [/\bWindows\b/, 'Windows'],
    [/\bMacintosh\b|\bMac OS X\b/, 'Mac'],
    [/\bLinux\b|\bX11\b/, 'Linux'],
  ];

  function first(list, text) {
    const hit = list.find(([pattern]) => pattern.test(text));
    return hit ? hit[1] : '';
  }

  // "Browser on System", a browser or a system alone, the client's product
  // name, else "Unknown device".
  function name(userAgent) {
    const ua = typeof userAgent === 'string' ? userAgent.slice(0, 512) : '';
    const browser = first(BROWSERS, ua);
    const system = first(SYSTEMS, ua);
    if (browser && system) return browser + ' on ' + system;
    if (browser) return browser;
    if (system) return 'A browser on ' + system;
    const product = /^([A-Za-z][A-Za-z0-9._-]{0,23})\//.exec(ua);
    return product && product[1] !== 'Mozilla' ? product[1] : 'Unknown device';
  }

  function count(n, unit) {
    return n + ' ' + unit + (n === 1 ? '' : 's') + ' ago';
  }

  // `seconds` (a Unix time) relative to `now` (Unix seconds; default the
  // clock): "just now", "a minute ago", "5 minutes ago", "an hour ago",
  // "3 hours ago", "yesterday", "4 days ago", then the date.
  function ago(seconds, now) {
    const at = Number(seconds);
    if (!Number.isFinite(at) || at <= 0) return 'at an unknown time';
    const diff = Math.max(0, Math.floor((now === undefined ? Date.now() / 1000 : now) - at));
    if (diff < 45) return 'just now';
    if (diff < 90) return 'a minute ago';
    if (diff < 45 * 60) return count(Math.round(diff / 60), 'minute');
    if (diff < 90 * 60) return 'an hour ago';
    if (diff < 22 * 3600) return count(Math.round(diff / 3600), 'hour');
    if (diff < 36 * 3600) return 'yesterday';
    if (diff < 26 * 86400) return count(Math.round(diff / 86400), 'day');
    return 'on ' + new Date(at * 1000).toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric' });
  }

  return { name, ago };
})();

// Verifies delivered webhooks with the npm `standardwebhooks` package (the
// reference implementation, pinned in package-lock.json), independently of
// svc's own signing code. stdin: a JSON array of {secret, headers, body};
// stdout: a JSON array of {ok, error, payload}, in the same order.
"use strict";
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(({ secret, headers, body }) => {
    try {
      const payload = new Webhook(secret).verify(body, headers);
      return { ok: true, error: null, payload };
    } catch (e) {
      return { ok: false, error: String(e && e.message), payload: null };
    }
  });
  process.stdout.write(JSON.stringify(out));
});

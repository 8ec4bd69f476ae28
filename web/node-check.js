// The page's checker (web/checker.js, as the page's worker runs it) under Node, for the tests
// and the benchmark: node web/node-check.js [--json] FILE ...
// Prints what the page shows for each file, as vcheck prints it (the file's name before each
// line when there are several), and exits as vcheck does: 0 every file verified, 1 one is
// rejected, 2 one is unreadable.  --json prints the worker's whole result instead.
"use strict";
const fs = require("fs");
const path = require("path");

const args = process.argv.slice(2);
const asJson = args[0] === "--json";
const files = asJson ? args.slice(1) : args;
if (!files.length) {
  console.error("usage: node web/node-check.js [--json] FILE ...");
  process.exit(2);
}

// The worker's global scope, as the page gives it: messages out are collected here.
let answer = null;
globalThis.self = globalThis;
if (!globalThis.crypto) globalThis.crypto = require("crypto").webcrypto;   // (Node 18)
globalThis.postMessage = (message) => {
  if (message.type === "progress") process.stderr.write(message.text + "\n");
  else answer(message);
};
require(path.join(__dirname, "checker.js"))();

// A file past this many bytes is not read, as the page reads none: the checker refuses it by
// its size, as vcheck refuses it (web/src/host.ml).
const MOST_BYTES = 4 * 1024 * 1024 * 1024;

async function check(file) {
  const size = fs.statSync(file).size;
  const bytes = size > MOST_BYTES ? new Uint8Array(0) : fs.readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  const done = new Promise((resolve) => { answer = resolve; });
  globalThis.onmessage({ data: { name: path.basename(file), buffer, size } });
  return done;
}

(async () => {
  let worst = 0;
  for (const file of files) {
    const message = await check(file);
    if (message.type !== "result") {
      console.log(`${file}: the worker failed: ${message.text}`);
      worst = 2;
      continue;
    }
    const r = message.result;
    if (asJson) {
      console.log(JSON.stringify(r));
    } else {
      const name = files.length > 1 ? path.basename(file) + ": " : "";
      console.log(name + r.line);
      if (r.verdict === "verified") console.log("  sha256 " + r.sha256);
    }
    const code = r.verdict === "verified" ? 0 : r.verdict === "rejected" ? 1 : 2;
    if (code === 1 || (code === 2 && worst === 0)) worst = code;
  }
  process.exit(worst);
})();

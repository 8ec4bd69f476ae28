// The Web Worker's side: a certificate's bytes in, progress lines and one result out.  The page
// ends a check by ending the worker (Cancel), so nothing here needs to look for a cancel.

(function (global) {
  "use strict";

  function hex(buffer) {
    var b = new Uint8Array(buffer), s = "";
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
    return s;
  }

  // SHA-256 of the file, which names it (vcheck's "  sha256" line): the browser's own where it
  // has one (a secure context: file://, localhost, https), else hash-wasm's.
  function sha256(bytes) {
    if (global.crypto && global.crypto.subtle) {
      return global.crypto.subtle.digest("SHA-256", bytes).then(hex);
    }
    return global.hashwasm.sha256(bytes);
  }

  global.vcheckProgress = function (text) { global.postMessage({ type: "progress", text: text }); };

  // The message: the file's name, its bytes, and its size (a file past 4 GiB comes without
  // its bytes, which are not read: the driver refuses it by its size, as vcheck does).
  global.onmessage = function (event) {
    var name = event.data.name, bytes = new Uint8Array(event.data.buffer);
    var size = event.data.size === undefined ? bytes.length : event.data.size;
    var began = Date.now();
    var unread = size !== bytes.length;
    (unread ? Promise.resolve("") : sha256(bytes)).then(function (sha) {
      return global.vcheckFile(name, bytes, sha, size).then(function (result) {
        var out = {};
        for (var k in result) out[k] = result[k];
        out.sha256 = sha;
        out.seconds = (Date.now() - began) / 1000;
        global.postMessage({ type: "result", result: out });
      });
    }).catch(function (e) {
      global.postMessage({ type: "failure", text: String(e && e.stack || e) });
    });
  };
})(typeof self !== "undefined" ? self : globalThis);

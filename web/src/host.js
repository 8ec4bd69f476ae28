// What the page's checker (vcheck's driver over web/src/host.ml, compiled by js_of_ocaml) asks
// of JavaScript:
// the certificate's data decompressed a piece at a time (fzstd), XXH3-64 (hash-wasm), random
// words for its hash tables' key, the time, and where progress goes.  None of it is trusted:
// the driver hands what it reads to the proved checker, which decides.
//
// The zstd stream does what vcheck/ocaml/zstd_stubs.c does over libzstd, and refuses what it
// refuses in libzstd's words: the frames and their blocks are walked here (their headers say
// their sizes), each frame's window checked against libzstd's default limit (2^27 bytes) before
// anything is decoded, and fzstd is given one block at a time, so that what is held decoded at
// once is a block or two (at most 128 KiB each), whatever a frame would decompress to.

(function (global) {
  "use strict";

  var ZSTD_MAGIC = 0xFD2FB528;
  var WINDOW_LIMIT = 1 << 27;          // libzstd's ZSTD_WINDOWLOG_LIMIT_DEFAULT
  var BLOCK_MAX = 1 << 17;

  function b4(d, p) { return (d[p] | d[p + 1] << 8 | d[p + 2] << 16 | d[p + 3] << 24) >>> 0; }

  function ZstdStream(file, xxh64) {
    this.file = file;                  // Uint8Array: the whole compressed file
    this.inPos = 0;
    this.frame = null;                 // the frame being read, or null between frames
    this.out = [];                     // decoded pieces not yet handed over
    this.outOff = 0;                   // how much of out[0] is handed over
    this.error = null;
    this.xxh64 = xxh64;
    // The blocks decoded so far, for [got]: where each block's content lies in the file and the
    // data it gave (starting at [blockOut]); a raw block's data comes a byte per byte read.
    this.blockIn = [];                 // [first content byte, end of content, raw?] per block
    this.blockOut = [];                // the data out before each block
    this.blockSize = [];               // and the data each gave
    this.decodedOut = 0;
  }

  function Refusal(message) { this.message = message; }
  function refuse(message) { throw new Refusal(message); }
  // (Words that begin with " " or ":" follow the file's name: vcheck/ocaml/certificate.ml's
  // [decoded].)
  function invalid(why) {
    refuse(" is not a certificate: not a valid zstd frame (zstd decompressor error: " + why + ")");
  }
  var CUT_SHORT = ": its zstd frame is cut short";
  var NO_DATA = "a zstd frame holds no data";

  // The frame header at inPos: its fields, or a refusal (libzstd's words for each).
  ZstdStream.prototype.openFrame = function () {
    var d = this.file, p = this.inPos, left = d.length - p;
    var magic = [0x28, 0xB5, 0x2F, 0xFD];
    for (var i = 0; i < Math.min(4, left); i++) {
      if (d[p + i] !== magic[i]) invalid("Unknown frame descriptor");
    }
    if (left < 5) refuse(CUT_SHORT);
    var fhd = d[p + 4];
    var single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, dictBytes = [0, 1, 2, 4][fhd & 3];
    var fcsCode = fhd >> 6, fcsBytes = [single, 2, 4, 8][fcsCode];
    var size = 5 + (single ? 0 : 1) + dictBytes + fcsBytes;
    if (left < size) refuse(CUT_SHORT);
    if (fhd & 8) invalid("Unsupported frame parameter");
    var q = p + 5, window = 0, contentSize = -1;
    if (!single) {
      var wd = d[q++], exponent = 10 + (wd >> 3);
      if (exponent > 31) invalid("Frame requires too much memory for decoding");
      var base = Math.pow(2, exponent);
      window = base + (base / 8) * (wd & 7);
    }
    var dict = 0;
    for (i = 0; i < dictBytes; i++) dict += d[q++] * Math.pow(2, 8 * i);
    if (fcsBytes > 0) {
      contentSize = 0;
      for (i = 0; i < fcsBytes; i++) contentSize += d[q++] * Math.pow(2, 8 * i);
      if (fcsCode === 1) contentSize += 256;
    }
    if (single) window = contentSize;
    if (dict !== 0) invalid("Dictionary mismatch");
    if (window > WINDOW_LIMIT) invalid("Frame requires too much memory for decoding");
    var self = this;
    var frame = {
      header: d.subarray(p, p + size), checksum: checksum, contentSize: contentSize,
      blockMax: Math.min(window, BLOCK_MAX), decoded: 0, first: true, done: false,
      decoder: new global.fzstd.Decompress(function (chunk) {
        if (chunk.length) {
          frame.decoded += chunk.length;
          if (checksum) self.xxh64.update(chunk);
          self.out.push(chunk);
        }
      })
    };
    if (checksum) this.xxh64.init();
    this.inPos = p + size;
    return frame;
  };

  // The next block of the frame, given to fzstd: what it decodes goes to [out].
  ZstdStream.prototype.nextBlock = function () {
    var f = this.frame, d = this.file, p = this.inPos;
    if (d.length - p < 3) refuse(CUT_SHORT);
    var bh = d[p] | d[p + 1] << 8 | d[p + 2] << 16;
    var last = bh & 1, type = (bh >> 1) & 3, size = bh >>> 3;
    if (type === 3) invalid("Data corruption detected");
    if (size > f.blockMax) invalid("Data corruption detected");
    var stored = type === 1 ? 1 : size;
    var end = p + 3 + stored + (last && f.checksum ? 4 : 0);
    if (end > d.length) refuse(CUT_SHORT);
    var piece = d.subarray(p, end);
    if (f.first) {
      var joined = new Uint8Array(f.header.length + piece.length);
      joined.set(f.header, 0);
      joined.set(piece, f.header.length);
      piece = joined;
      f.first = false;
    }
    var before = f.decoded;
    try {
      f.decoder.push(piece, !!last);
    } catch (e) {
      if (e instanceof Refusal) throw e;
      invalid("Data corruption detected");
    }
    this.blockIn.push([p + 3, p + 3 + stored, type === 0]);
    this.blockOut.push(this.decodedOut);
    this.blockSize.push(f.decoded - before);
    this.decodedOut += f.decoded - before;
    if (f.contentSize >= 0 && f.decoded > f.contentSize) invalid("Data corruption detected");
    this.inPos = end;
    if (last) {
      if (f.contentSize >= 0 && f.decoded !== f.contentSize) invalid("Data corruption detected");
      if (f.checksum) {
        var want = b4(d, end - 4);
        var got = parseInt(this.xxh64.digest("hex").slice(8), 16);
        if (want !== got) invalid("Restored data doesn't match checksum");
      }
      f.done = true;
    }
  };

  // Up to [len] bytes of the data into [dst] (a Uint8Array) at [off]; fewer only at the end
  // of the data; -1 with [error] set when the file is refused.
  ZstdStream.prototype.read = function (dst, off, len) {
    try {
      return this.fill(dst, off, len);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      this.error = e.message;
      return -1;
    }
  };

  ZstdStream.prototype.fill = function (dst, off, len) {
    var used = 0, d = this.file;
    while (used < len) {
      if (this.out.length) {
        var piece = this.out[0], n = Math.min(piece.length - this.outOff, len - used);
        dst.set(piece.subarray(this.outOff, this.outOff + n), off + used);
        used += n;
        this.outOff += n;
        if (this.outOff === piece.length) { this.out.shift(); this.outOff = 0; }
        continue;
      }
      if (this.frame === null) {
        if (this.inPos === d.length) break;
        if (d.length - this.inPos >= 4 && (b4(d, this.inPos) & 0xFFFFFFF0) >>> 0 === 0x184D2A50) {
          refuse(NO_DATA);
        }
        this.frame = this.openFrame();
      }
      if (this.frame.done) {
        if (this.frame.decoded === 0) refuse(NO_DATA);
        this.frame = null;
        continue;
      }
      this.nextBlock();
    }
    return used;
  };

  // The file's bytes that a reader given the file a KiB at a time (as check reads it, and as
  // vcheck/ocaml/zstd_stubs.c gives libzstd the file) has read once [need] bytes of the data are
  // out: the KiB in which the byte that brings the data to [need] lies (a compressed block's
  // data comes out once the block is whole, a raw block's as it is read), or the whole file.
  ZstdStream.prototype.got = function (need) {
    var lo = 0, hi = this.blockOut.length;
    while (lo < hi) {                  // the first block whose data reaches [need]
      var mid = (lo + hi) >> 1;
      if (this.blockOut[mid] + this.blockSize[mid] >= need) hi = mid; else lo = mid + 1;
    }
    var size = this.file.length;
    if (lo === this.blockOut.length) return size;
    var b = this.blockIn[lo];
    var read = b[2] ? b[0] + Math.max(1, need - this.blockOut[lo]) : b[1];
    return Math.min(Math.ceil(read / 1024) * 1024, size);
  };

  var hashers = null;

  // XXH3-64 (seed 0) as the driver uses it: begun, fed pieces of a Uint8Array, ended as 16
  // lowercase hex digits (the certificate's xxh3_64).
  function xxh3() {
    var h = hashers.xxh3;
    h.init();
    return {
      add: function (data, off, len) { h.update(data.subarray(off, off + len)); },
      end: function () { return h.digest("hex"); }
    };
  }

  global.vcheckHost = {
    now: function () { return Date.now() / 1000; },
    zstd: function (file) { return new ZstdStream(file, hashers.xxh64); },
    xxh3: xxh3,
    progress: function (text) { if (global.vcheckProgress) global.vcheckProgress(text); },
    randomWords: function (n) {
      var words = new Uint32Array(n);
      for (var i = 0; i < n; i += 16384) {   // (at most 65,536 bytes a call)
        global.crypto.getRandomValues(words.subarray(i, i + 16384));
      }
      return words;
    }
  };

  // Ready once the hashers (WebAssembly, compiled from bytes that hash-wasm carries) are made.
  global.vcheckReady = Promise.all([global.hashwasm.createXXHash3(0, 0),
                                    global.hashwasm.createXXHash64(0, 0)])
    .then(function (h) { hashers = { xxh3: h[0], xxh64: h[1] }; });

  // One certificate: its name, its bytes (a Uint8Array), their SHA-256 (the caller's: it
  // names the file, decides nothing) and the file's size (its bytes' length, or, for a file
  // past 4 GiB, which is not read, its size alone); the driver's answer: verdict, line, and
  // what the page draws.
  global.vcheckFile = function (name, bytes, sha, size) {
    var whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes.buffer : bytes.slice().buffer;
    return global.vcheckReady.then(function () {
      return global.vcheckRun(name, whole, sha, size);
    });
  };
})(typeof self !== "undefined" ? self : globalThis);

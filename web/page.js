// The page: takes a certificate (dropped, chosen, or one of certificates/), checks it in a Web
// Worker (web/checker.js) so that the page stays responsive, and shows vcheck's lines, the
// deal, and the cards that never move.
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var worker = null, workerUrl = null, ticking = null;

  function stop() {
    if (worker) { worker.terminate(); worker = null; }
    if (workerUrl) { URL.revokeObjectURL(workerUrl); workerUrl = null; }
    if (ticking) { clearInterval(ticking); ticking = null; }
    $("cancel").disabled = true;
  }

  // The worker runs VCHECK_WORKER's text: a page opened from file:// may start a worker from
  // a blob, not from a file beside it.
  function startWorker() {
    var source = "(" + VCHECK_WORKER.toString() + ")();";
    workerUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    return new Worker(workerUrl);
  }

  function show(lines, verdict) {
    var v = $("verdict");
    v.textContent = lines;
    v.className = verdict || "";
  }

  // A file past this many bytes is not read: the checker refuses it by its size, as vcheck
  // refuses it (web/src/host.ml).
  var MOST_BYTES = 4 * 1024 * 1024 * 1024;

  function check(name, buffer, size) {
    stop();
    show("", "");
    $("facts").textContent = "";
    $("deal").textContent = "";
    var began = Date.now(), said = "reading " + name;
    var status = function () {
      $("status").textContent = said + " (" + ((Date.now() - began) / 1000).toFixed(1) + " s)";
    };
    status();
    ticking = setInterval(status, 200);
    worker = startWorker();
    $("cancel").disabled = false;
    worker.onmessage = function (event) {
      var m = event.data;
      if (m.type === "progress") { said = name + ": " + m.text; return; }
      stop();
      if (m.type === "result") {
        var r = m.result;
        show(r.line + (r.verdict === "verified" ? "\n  sha256 " + r.sha256 : ""), r.verdict);
        $("status").textContent = name + ": checked in " + r.seconds.toFixed(2) + " s";
        document.body.setAttribute("data-done", r.verdict);
        draw(r);
      } else {
        show("the page's checker failed: " + m.text, "unreadable");
        $("status").textContent = name;
        document.body.setAttribute("data-done", "failure");
      }
    };
    worker.onerror = function (e) {
      stop();
      show("the page's checker failed: " + e.message, "unreadable");
      document.body.setAttribute("data-done", "failure");
    };
    document.body.setAttribute("data-done", "");
    worker.postMessage({ name: name, buffer: buffer, size: size }, [buffer]);
  }

  $("cancel").onclick = function () {
    stop();
    $("status").textContent = "cancelled";
    document.body.setAttribute("data-done", "cancelled");
  };

  function readFile(file) {
    if (file.size > MOST_BYTES) { check(file.name, new ArrayBuffer(0), file.size); return; }
    var reader = new FileReader();
    reader.onload = function () { check(file.name, reader.result, file.size); };
    reader.onerror = function () { $("status").textContent = "cannot read " + file.name; };
    reader.readAsArrayBuffer(file);
  }

  $("file").onchange = function () { if (this.files.length) readFile(this.files[0]); };
  var drop = $("drop");
  drop.ondragover = function (e) { e.preventDefault(); drop.className = "over"; };
  drop.ondragleave = function () { drop.className = ""; };
  drop.ondrop = function (e) {
    e.preventDefault();
    drop.className = "";
    if (e.dataTransfer.files.length) readFile(e.dataTransfer.files[0]);
  };

  // The published certificates, read from ../certificates/ (a page served over http; a page
  // opened from file:// may not read files itself, so there the reader picks the file).
  var list = $("published");
  (typeof PUBLISHED === "undefined" ? [] : PUBLISHED).forEach(function (row) {
    var o = document.createElement("option");
    o.value = row[0];
    o.textContent = row[0] + " (" + row[1].toLocaleString("en") + " bytes)";
    if (row[0] === "11982.msgpack.zst") o.selected = true;
    list.appendChild(o);
  });
  $("check-published").onclick = function () {
    var name = list.value;
    if (!name) return;
    if (location.protocol === "file:") {
      $("status").textContent = "A page opened from a file cannot read ../certificates/ itself: " +
        "choose certificates/" + name + " with the button above, or serve the folder " +
        "(python3 -m http.server, then open http://localhost:8000/web/).";
      return;
    }
    $("status").textContent = "fetching " + name;
    fetch("../certificates/" + encodeURIComponent(name)).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + response.statusText);
      return response.arrayBuffer();
    }).then(function (buffer) { check(name, buffer, buffer.byteLength); }, function (e) {
      $("status").textContent = "cannot fetch ../certificates/" + name + ": " + e.message;
    });
  };

  // ---- The deal, drawn as certify/svg.py draws it (more simply) ----

  var RANKS = "A23456789TJQK", SYMBOLS = "\u2663\u2666\u2665\u2660";
  var W = 64, H = 90, STEP = 30, GAP = 12, PITCH = W + GAP, MARGIN = 20;
  var SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function cardName(c) { return RANKS[c >> 2] + "CDHS"[c & 3]; }
  function label(c) { var r = RANKS[c >> 2]; return (r === "T" ? "10" : r) + SYMBOLS[c & 3]; }

  function card(svg, c, x, y, place, frozen) {
    var g = el("g", { "class": "card" + (frozen ? " outlined" : ""), "data-card": cardName(c),
                      "data-place": place }, svg);
    el("rect", { x: x, y: y, width: W, height: H, rx: 6, fill: frozen ? "#fff1e0" : "#ffffff",
                 stroke: "#777777", "stroke-width": 1 }, g);
    if (frozen) {
      el("rect", { x: x + 2, y: y + 2, width: W - 4, height: H - 4, rx: 5, fill: "none",
                   stroke: "#e8590c", "stroke-width": 4 }, g);
    }
    var t = el("text", { x: x + 7, y: y + 22, "font-size": 20, "font-weight": "bold",
                         fill: (c & 3) === 1 || (c & 3) === 2 ? "#c8102e" : "#111111" }, g);
    t.textContent = label(c);
  }

  function slot(svg, x, y, place, text) {
    var g = el("g", { "class": "slot", "data-place": place }, svg);
    el("rect", { x: x, y: y, width: W, height: H, rx: 6, fill: "none", stroke: "#a5d6a7",
                 "stroke-width": 2, "stroke-dasharray": "6 4" }, g);
    if (text) {
      var t = el("text", { x: x + W / 2, y: y + H / 2 + 10, "font-size": 28, fill: "#a5d6a7",
                           "text-anchor": "middle" }, g);
      t.textContent = text;
    }
  }

  function draw(r) {
    var facts = [];
    if (r.columns) {
      var frozen = r.frozen || [0, 0, 0, 0, 0, 0, 0, 0];
      var total = frozen.reduce(function (a, b) { return a + b; }, 0);
      var tallest = Math.max.apply(null, r.columns.map(function (c) { return c.length; }));
      var cells = r.cells, width = 2 * MARGIN + 8 * PITCH - GAP;
      var top = MARGIN, below = MARGIN + H + 2 * GAP;
      var height = below + Math.max(tallest - 1, 0) * STEP + H + MARGIN;
      var svg = el("svg", { xmlns: SVG, width: width, height: height,
                            viewBox: "0 0 " + width + " " + height });
      el("rect", { x: 0, y: 0, width: width, height: height, fill: "#2e7d32" }, svg);
      // The free cells from the left, the foundations from the right (at most 8 cells: a
      // row of its own when they would meet the foundations).
      var cellPitch = cells > 4 ? (4 * PITCH) / cells : PITCH;
      for (var i = 0; i < cells; i++) {
        var x = MARGIN + i * cellPitch, held = r.freeCells[i];
        if (held === undefined) slot(svg, x, top, "free cell " + (i + 1));
        else card(svg, held, x, top, "free cell " + (i + 1), false);
      }
      for (var s = 0; s < 4; s++) {
        var fx = MARGIN + (4 + s) * PITCH;
        if (r.home[s] === 0) slot(svg, fx, top, "foundation " + "CDHS"[s], SYMBOLS[s]);
        else card(svg, 4 * (r.home[s] - 1) + s, fx, top, "foundation", false);
      }
      r.columns.forEach(function (col, j) {
        if (!col.length) slot(svg, MARGIN + j * PITCH, below, "column " + (j + 1));
        col.forEach(function (c, k) {
          card(svg, c, MARGIN + j * PITCH, below + k * STEP, "column " + (j + 1), k < frozen[j]);
        });
      });
      $("deal").appendChild(svg);
      if (r.frozen) {
        facts.push(total === 0 ? "Every card moves in some position of the certificate."
          : total + " card" + (total === 1 ? "" : "s") + " never move" + (total === 1 ? "s" : "") +
            " in any of the certificate's positions (outlined): " +
            r.columns.map(function (c, j) {
              return c.slice(0, frozen[j]).map(cardName).join(" ");
            }).filter(function (s) { return s; }).join(", ") + ".");
      }
    }
    $("facts").textContent = facts.join(" ");
  }
})();

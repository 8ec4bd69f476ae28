#!/usr/bin/env bash
# Build the web page's checker: the checker proved in Coq (vcheck's proofs, checked by
# vcheck/build.sh), extracted for JavaScript (web/coq/ExtractWeb.v), with vcheck's driver
# (vcheck/ocaml) over the page's host (web/src), compiled by js_of_ocaml into web/checker.js,
# beside web/index.html.
# Usage: web/build.sh [VCHECK_BUILD]   (default vcheck/_build; built first if it is not there)
# Prints Print Assumptions of every main theorem, as vcheck's build does, and fails unless
# every one says "Closed under the global context".
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$web")"
vbuild="${1:-$repo/vcheck/_build}"
say() { echo "web build: $*" >&2; }
# (Every module vcheck/coq/Assumptions.v and its board variant print theorems of.)
for f in Rules RulesBoard Deal Check CheckBoard Autoplay AutoplayBoard Verdict VerdictBoard \
    Range Lemmas Supermove Sentences; do
  if [ ! -e "$vbuild/$f.vo" ]; then
    say "no $vbuild/$f.vo: building vcheck first"
    "$repo/vcheck/build.sh" "$vbuild"
    break
  fi
done
vbuild="$(cd "$vbuild" && pwd)"
out="$web/_build"
rm -rf "$out"
mkdir -p "$out"
cd "$out"
coq() { nice coqc -q -Q "$vbuild" VCheck "$@"; }

# The theorems the extracted functions carry, as vcheck's build prints them (from the same
# compiled proofs this extraction reads).
say "printing the assumptions of every theorem"
cp "$vbuild/Assumptions.v" "$vbuild/AssumptionsBoard.v" .
coq Assumptions.v > assumptions.txt
coq AssumptionsBoard.v >> assumptions.txt
cat assumptions.txt
theorems=$(grep -c '^Print Assumptions' Assumptions.v AssumptionsBoard.v |
  awk -F: '{s += $2} END {print s}')
closed=$(grep -c '^Closed under the global context$' assumptions.txt || true)
if [ "$closed" != "$theorems" ]; then
  echo "web build: only $closed of $theorems theorems are closed under the global context" >&2
  exit 1
fi

# The extraction: the numbered deal's, and the custom layout's, derived from it by the same
# edits that derive vcheck's ExtractBoard.v from its Extract.v.
say "extracting the checker for JavaScript"
cp "$web/coq/ExtractWeb.v" .
python3 - "$repo/vcheck" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from derive_rules import board_variant
with open("ExtractWeb.v", encoding="utf-8") as f:
    text = f.read()
board = board_variant(text)
if board == text or "vcheck_board.ml" not in board or "Deal" in board.split("Extraction")[-1]:
    sys.exit("web build: the board variant of ExtractWeb.v did not come out")
with open("ExtractWebBoard.v", "w", encoding="utf-8") as f:
    f.write(board)
EOF
coq ExtractWeb.v
coq ExtractWebBoard.v

say "compiling the driver to JavaScript (js_of_ocaml)"
# vcheck's own driver (vcheck/ocaml: its trusted lines, reading, stores, moves, certificate)
# over the page's numbers and host (web/src/num.ml, host.ml), then the page's own modules
# (picture.ml; checker.ml, the page's trusted lines), each after those it opens.
shared="proved trusted reading stores moves certificate"
for m in $shared; do cp "$repo/vcheck/ocaml/$m.ml" .; done
for m in num host picture checker; do cp "$web/src/$m.ml" .; done
driver="num proved trusted host reading stores moves certificate picture checker"
ml() { nice ocamlfind ocamlc -package js_of_ocaml,unix "$@"; }
ml -w -a -c vcheck_core.mli vcheck_core.ml vcheck_board.mli vcheck_board.ml   # extracted
ml -c $(for m in $driver; do echo $m.ml; done)
ml -linkpkg vcheck_core.cmo vcheck_board.cmo $(for m in $driver; do echo $m.cmo; done) \
  -o driver.byte
# (A primitive js_of_ocaml lacks would be replaced by one that fails when called: none may be.
# trusted.ml's fork, for vcheck's -j N, is never reached in the page, and so left out.)
nice js_of_ocaml --opt 3 driver.byte -o driver.js 2> js_of_ocaml.log || {
  cat js_of_ocaml.log >&2; exit 1; }
if grep -q "issing primitive" js_of_ocaml.log; then
  cat js_of_ocaml.log >&2; say "js_of_ocaml: a primitive is missing"; exit 1
fi

# web/checker.js: one function holding everything the worker runs (the page starts the worker
# from its text, which a page opened from file:// may do), the vendored libraries' licences
# kept at the head of each.
say "assembling web/checker.js"
{
  echo "// Built by web/build.sh: the page's checker, run in a Web Worker (see web/README.md)."
  echo "var VCHECK_WORKER = function () {"
  echo "// (the libraries below see no module system, so each sets its global: fzstd, hashwasm)"
  echo "var module, exports, define;"
  for f in fzstd-0.1.1.umd.js hash-wasm-4.13.0.xxhash3.umd.min.js \
           hash-wasm-4.13.0.xxhash64.umd.min.js hash-wasm-4.13.0.sha256.umd.min.js; do
    case "$f" in fzstd*) licence=fzstd-0.1.1.LICENSE ;; *) licence=hash-wasm-4.13.0.LICENSE ;; esac
    echo "/* web/vendor/$f (MIT licence: web/vendor/$licence) */"
    cat "$web/vendor/$f"
    echo
  done
  cat "$web/src/host.js" driver.js "$web/src/worker.js"
  echo "};"
  echo 'if (typeof module !== "undefined") module.exports = VCHECK_WORKER;'
} > checker.js
mv checker.js "$web/checker.js"

# The published certificates the page offers (names and sizes), read from ../certificates/.
python3 - "$repo/certificates" > "$web/published.js" <<'EOF'
import json, os, sys
folder = sys.argv[1]
names = sorted(n for n in os.listdir(folder) if n.endswith(".msgpack.zst"))
rows = [[n, os.path.getsize(os.path.join(folder, n))] for n in names]
print("// Built by web/build.sh: the certificates in certificates/ (name, bytes).")
print("var PUBLISHED = " + json.dumps(rows) + ";")
EOF
echo "web built: $web/index.html ($(wc -c < "$web/checker.js") bytes of checker.js)"

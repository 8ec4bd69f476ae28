#!/usr/bin/env bash
# Build vcheck: derive the rules from the export's template, check the proofs, extract them,
# and compile the native driver.  Usage: vcheck/build.sh [OUTDIR]  (default vcheck/_build)
# Fails unless every main theorem is closed under the global context.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/_build}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$out"
cp "$here"/coq/Check.v "$here"/coq/Extract.v "$here"/coq/Assumptions.v "$here"/coq/Deal.v \
  "$here"/coq/Autoplay.v "$here"/coq/Verdict.v "$here"/coq/Range.v "$here"/coq/Lemmas.v \
  "$here"/coq/Supermove.v "$here"/coq/Sentences.v .
python3 "$here/derive_rules.py" "$here/../certify/commands/exports/templates/Rules.v" . \
  Check.v Extract.v Assumptions.v Autoplay.v Verdict.v
coq() { nice coqc -q -Q . VCheck "$@"; }
# Each step says what it does, as it begins: the proofs take minutes on a busy machine.
say() { echo "vcheck build: $*" >&2; }
for f in Rules RulesBoard Deal Check CheckBoard Autoplay AutoplayBoard Verdict VerdictBoard \
    Range Lemmas Supermove Sentences; do
  say "checking the proofs of $f.v"
  coq "$f.v"
done
say "printing the assumptions of every theorem"
coq Assumptions.v > assumptions.txt
coq AssumptionsBoard.v >> assumptions.txt
cat assumptions.txt
theorems=$(grep -c '^Print Assumptions' Assumptions.v AssumptionsBoard.v |
  awk -F: '{s += $2} END {print s}')
closed=$(grep -c '^Closed under the global context$' assumptions.txt || true)
if [ "$closed" != "$theorems" ]; then
  echo "vcheck build: only $closed of $theorems theorems are closed under the global context" >&2
  exit 1
fi
say "extracting the checker to OCaml"
coq Extract.v
coq ExtractBoard.v
say "compiling the native driver"
# The driver's modules, each after those it opens; ocaml/trusted.ml is the trusted one.
driver="num proved trusted host reading stores moves certificate vcheck"
for m in $driver; do cp "$here/ocaml/$m.ml" .; done
cp "$here"/ocaml/*.c .
ml() { nice ocamlfind ocamlopt -inline 200 -package unix "$@"; }
ml -w -a -c vcheck_core.mli vcheck_core.ml vcheck_board.mli vcheck_board.ml   # extracted
ml -c zstd_stubs.c sha256.c terminal.c memory.c keyed_hash.c \
  $(for m in $driver; do echo $m.ml; done)
ml -linkpkg vcheck_core.cmx vcheck_board.cmx zstd_stubs.o sha256.o terminal.o memory.o \
  keyed_hash.o $(for m in $driver; do echo $m.cmx; done) \
  -cclib -lzstd -cclib -l:libxxhash.so.0 -o vcheck
echo "vcheck built: $out/vcheck"

(** The checker extracted for the web page: the same Coq functions as vcheck/coq/Extract.v
    extracts (the proved verdict, [start_ok] and [slice_ok], a range's [entry_result] and
    [range_verdict]), with its numbers realised by JavaScript's.  Under js_of_ocaml OCaml's [int] is
    32 bits wide, so vcheck's realisers ([positive] and [N] as [int], exact below 2 ^ 61) would
    be wrong there: 2 ^ 31, which the deal's generator compares with, already wraps.  Here they
    are OCaml's [float], which js_of_ocaml compiles to JavaScript's numbers (IEEE doubles):

    - ExtrOcamlBasic: bool, list, option, prod, sumbool as OCaml's own types (as vcheck).
    - [positive] and [N] as [float] holding a whole number: the constructors ([2p + 1], [2p],
      [1], [0], [p]) and the pattern matches (by parity, and [p / 2] rounded down) are exact
      for every whole number below 2 ^ 52.  The checker's numbers are record indices and
      column ids below 2 ^ 33 and the deal's (the deal below 2 ^ 33, the state below 2 ^ 32, a
      draw modulo at most 52); the page's driver passes only whole numbers below 2 ^ 34.
    - [N.eqb], [N.ltb], [N.leb] as [=], [<], [<=] on floats: exact on whole numbers.
    - Deal.v's [next_state_fast] and [rand_value_fast] (the generator's step and draw) as the
      same arithmetic on whole floats: [x land (2 ^ 32 - 1)] is [x mod 2 ^ 32], [x lsr 16] is
      [x / 2 ^ 16] rounded down, [y land (2 ^ k - 1)] is [y mod 2 ^ k]; no intermediate value
      reaches 2 ^ 50, so each operation is exact.  (A custom layout has no deal: its
      extraction, derived from this file as vcheck derives ExtractBoard.v, leaves them out.)
    Everything else, [nat] included, runs as the extracted Coq code itself. *)

From VCheck Require Import Rules Check.
From VCheck Require Import Autoplay.
From VCheck Require Import Verdict.
From Coq Require Import NArith Extraction ExtrOcamlBasic.

Extract Inductive positive => float
  [ "(fun p -> 2. *. p +. 1.)" "(fun p -> 2. *. p)" "1." ]
  "(fun f2p1 f2p f1 p -> if p <= 1. then f1 () else let h = Float.floor (p *. 0.5) in if h +. h = p then f2p h else f2p1 h)".
Extract Inductive N => float [ "0." "(fun p -> p)" ]
  "(fun f0 fp n -> if n = 0. then f0 () else fp n)".
Extract Inlined Constant N.eqb => "(fun (x : float) (y : float) -> x = y)".
Extract Inlined Constant N.ltb => "(fun (x : float) (y : float) -> x < y)".
Extract Inlined Constant N.leb => "(fun (x : float) (y : float) -> x <= y)".

From VCheck Require Deal.
From VCheck Require Range.
Extract Constant Deal.next_state_fast =>
  "(fun x -> Float.rem (214013. *. Float.rem x 4294967296. +. 2531011.) 4294967296.)".
Extract Constant Deal.rand_value_fast =>
  "(fun n x -> let y = Float.floor (x /. 65536.) in
     if n < 2147483648. then Float.rem y 32768.
     else if n < 4294967296. then Float.rem y 32768. +. 32768.
     else Float.rem y 65536. +. 1.)".

Extraction "vcheck_core.ml" verdict start_ok slice_ok Range.entry_result Range.range_verdict.

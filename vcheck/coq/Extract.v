(** Extraction of the checker to OCaml.  The realisers (what OCaml code stands for a Coq
    definition) are the fewest that make it fast; vcheck/README.md says why each is exact.

    - ExtrOcamlBasic: bool, list, option, prod, sumbool as OCaml's own types.
    - [positive] and [N] as OCaml's native int: the constructors and the pattern match are
      exact on every value below 2 ^ 61, and the checker's numbers are below 2 ^ 34.
    - [N.eqb], [N.ltb], [N.leb] as OCaml's comparisons on int, exact on non-negative ints.
    - Deal.v's [next_state_fast] and [rand_value_fast], the generator's step and draw, as the
      same masks, shifts, products and sums in OCaml's arithmetic: each is exact on every
      non-negative int, as no intermediate value reaches 2 ^ 50. (A custom layout has no deal:
      its build, ExtractBoard.v, leaves these out.)
    Everything else, [nat] included, runs as the extracted Coq code itself. *)

From VCheck Require Import Rules Check.
From VCheck Require Import Autoplay.
From VCheck Require Import Verdict.
From Coq Require Import NArith Extraction ExtrOcamlBasic.

Extract Inductive positive => int
  [ "(fun p -> 2 * p + 1)" "(fun p -> 2 * p)" "1" ]
  "(fun f2p1 f2p f1 p -> if p <= 1 then f1 () else if p land 1 = 0 then f2p (p lsr 1) else f2p1 (p lsr 1))".
Extract Inductive N => int [ "0" "(fun p -> p)" ]
  "(fun f0 fp n -> if n = 0 then f0 () else fp n)".
Extract Inlined Constant N.eqb => "(fun (x : int) (y : int) -> x = y)".
Extract Inlined Constant N.ltb => "(fun (x : int) (y : int) -> x < y)".
Extract Inlined Constant N.leb => "(fun (x : int) (y : int) -> x <= y)".

From VCheck Require Deal.
From VCheck Require Range.
Extract Constant Deal.next_state_fast =>
  "(fun x -> (214013 * (x land 0xFFFFFFFF) + 2531011) land 0xFFFFFFFF)".
Extract Constant Deal.rand_value_fast =>
  "(fun n x -> let y = x lsr 16 in
     if n < 0x80000000 then y land 0x7FFF
     else if n < 0x100000000 then y land 0x7FFF + 0x8000
     else y land 0xFFFF + 1)".

Extraction "vcheck_core.ml" verdict start_ok slice_ok Range.entry_result Range.range_verdict.

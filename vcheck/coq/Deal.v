(** The start of a numbered deal, as [Rules.start] states it, computed in fewer steps.

    [Rules] deals with Microsoft's rand() in [N]'s arithmetic, where every [mod 2 ^ 32] and
    [/ 2 ^ 16] is a long division of binary numbers and every [2 ^ k] a walk of multiplications.
    Here the same numbers come from masks and shifts ([N.land], [N.shiftr]) and the powers are
    computed once; [start_of_eq] says the result is [Rules.start], so the checker may use
    either and its theorems speak of [Rules.start]. coq/Extract.v realises [next_state_fast]
    and [rand_value_fast] by the same operations in OCaml's int; the rest runs as extracted. *)

From VCheck Require Import Rules.
From Coq Require Import Arith List NArith.
Import ListNotations.

Open Scope N_scope.

Definition two15 : N := 2 ^ 15.
Definition two31 : N := 2 ^ 31.
Definition two32 : N := 2 ^ 32.
Definition low15 : N := N.ones 15.
Definition low16 : N := N.ones 16.
Definition low32 : N := N.ones 32.

(** The state is masked to 32 bits before it is multiplied, which changes nothing modulo 2 ^ 32
    ([next_state_fast_eq]) and bounds the product below 2 ^ 50 for every input: so coq/Extract.v
    can realise this function by OCaml's own arithmetic, exact on every non-negative int. *)
Definition next_state_fast (x : N) : N := N.land (214013 * N.land x low32 + 2531011) low32.

Lemma next_state_fast_eq x : next_state_fast x = next_state x.
Proof.
  unfold next_state_fast, next_state, low32; rewrite !N.land_ones, (N.mul_comm 214013).
  rewrite <- N.add_mod_idemp_l, <- N.mul_mod_idemp_l, N.mod_mod, N.mul_mod_idemp_l,
    N.add_mod_idemp_l; try reflexivity; apply N.pow_nonzero; discriminate.
Qed.

Definition rand_value_fast (n x : N) : N :=
  let y := N.shiftr x 16 in
  if n <? two31 then N.land y low15
  else if n <? two32 then N.land y low15 + two15
  else N.land y low16 + 1.

Lemma rand_value_fast_eq n x : rand_value_fast n x = rand_value n x.
Proof.
  unfold rand_value_fast, rand_value, two31, two32, two15, low15, low16.
  rewrite !N.land_ones, N.shiftr_div_pow2; reflexivity.
Qed.

Definition first_state_fast (n : N) : N := if n <? two32 then n else n - two32.

Lemma first_state_fast_eq n : first_state_fast n = first_state n.
Proof. reflexivity. Qed.

Close Scope N_scope.

Fixpoint shuffle_fast (k : nat) (n x : N) (deck : list nat) : list nat :=
  match k with
  | O => []
  | S k' =>
      let x' := next_state_fast x in
      let j := N.to_nat (N.modulo (rand_value_fast n x') (N.of_nat (length deck))) in
      nth j deck 0
        :: shuffle_fast k' n x' (removelast (firstn j deck ++ last deck 0 :: skipn (S j) deck))
  end.

Lemma shuffle_fast_eq k : forall n x deck, shuffle_fast k n x deck = shuffle k n x deck.
Proof.
  induction k as [|k IH]; intros n x deck; [reflexivity|].
  cbn [shuffle_fast shuffle]; rewrite next_state_fast_eq, rand_value_fast_eq, IH.
  reflexivity.
Qed.

(** The start position of deal [n]: [Rules.start n]. *)
Definition start_of (n : N) : position :=
  Position (Home 0 0 0 0) []
           (map (dealt_column (shuffle_fast 52 n (first_state_fast n) (seq 0 52))) (seq 0 8)).

Lemma start_of_eq n : start_of n = start n.
Proof.
  unfold start_of, start, deal; rewrite shuffle_fast_eq, first_state_fast_eq; reflexivity.
Qed.

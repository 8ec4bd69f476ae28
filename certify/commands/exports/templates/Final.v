From FreeCell Require Import Rules Equality NoWin. (* template only *)
From Coq Require Import List NArith. (* template only *)
Import ListNotations. (* template only *)

Definition seeds : list position := [].

(** The computation: the kernel runs the search with its virtual machine (the engine of
    [vm_compute]) when it checks this proof at [Qed].  The pair says how many positions it
    starts from (the start alone, or with the certificate's positions when the file holds
    them) and how many it has found at the end.  [vm_cast_no_check] only skips a first,
    identical run by the tactic ([vm_compute. reflexivity.] would search twice); it adds
    nothing to what is trusted. *)
Lemma search_ok : search_result 40 seeds = Some (1%N, 83239%N).
Proof. vm_cast_no_check (eq_refl (Some (1%N, 83239%N))). Qed.

Theorem deal_11982_unwinnable : forall s, Reachable s -> ~ Won s.
Proof. exact (search_sound 40 seeds (1%N, 83239%N) search_ok). Qed.

Print Assumptions deal_11982_unwinnable.

From FreeCell Require Import Rules Equality. (* template only *)
From Coq Require Import Bool List. (* template only *)
Import ListNotations. (* template only *)

(** * A line of play, and the check *)

(** [s] and then each position of [line] in turn are one move apart, and the last is won. *)
Fixpoint follows (s : position) (line : list position) : bool :=
  match line with
  | [] => won s
  | t :: rest => if existsb (position_eqb t) (moves s) then follows t rest else false
  end.

Theorem line_sound line : follows start line = true -> exists s, Reachable s /\ Won s.
Proof.
  cut (forall s, Reachable s -> follows s line = true -> exists w, Reachable w /\ Won w).
  { intros H; apply H, reach_start. }
  induction line as [|t rest IH]; simpl; intros s Hs H.
  - exists s; split; [exact Hs | apply is_won, H].
  - destruct (existsb (position_eqb t) (moves s)) eqn:Hmove; [|discriminate].
    apply existsb_exists in Hmove as [u [Hu Heq]]; apply position_eqb_eq in Heq; subst u.
    exact (IH t (reach_move s t Hs Hu) H).
Qed.

(** * The line of play

    Data, not to be read: the positions after each move, from the start to a won position.
    Cards by number (see [card_of_number]), columns 1 .. 8 from the top card down. *)

Definition pos (f : foundations) (cs : list nat) (cols : list (list nat)) : position :=
  Position f (map card_of_number cs) (map (map card_of_number) cols).

Definition line : list position := [].

Lemma line_ok : follows start line = true.
Proof. vm_compute. reflexivity. Qed.

Theorem deal_11982_winnable : exists s, Reachable s /\ Won s.
Proof. exact (line_sound line line_ok). Qed.

Print Assumptions deal_11982_winnable.

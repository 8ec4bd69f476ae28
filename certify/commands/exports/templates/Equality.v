(** ------------------------------------------------------------------------------------
    Nothing below this line needs to be trusted, only the final theorem's statement.
    ------------------------------------------------------------------------------------ *)

From FreeCell Require Import Rules. (* template only *)
From Coq Require Import Bool Arith List. (* template only *)
Import ListNotations. (* template only *)

(** * Equality of positions, as a boolean the kernel's virtual machine computes

    Written with [if] rather than [&&]: the virtual machine evaluates both arguments of a
    function such as [andb] before calling it, so [&&] would compare whole lists even after
    a difference. *)

Definition card_eqb (c d : card) : bool :=
  match suit_of c, suit_of d with
  | Clubs, Clubs | Diamonds, Diamonds | Hearts, Hearts | Spades, Spades => rank c =? rank d
  | _, _ => false
  end.

Fixpoint column_eqb (l m : list card) : bool :=
  match l, m with
  | [], [] => true
  | c :: l', d :: m' => if card_eqb c d then column_eqb l' m' else false
  | _, _ => false
  end.

Fixpoint columns_eqb (l m : list (list card)) : bool :=
  match l, m with
  | [], [] => true
  | col :: l', col' :: m' => if column_eqb col col' then columns_eqb l' m' else false
  | _, _ => false
  end.

Definition home_eqb (f g : foundations) : bool :=
  if clubs f =? clubs g then
    if diamonds f =? diamonds g then
      if hearts f =? hearts g then spades f =? spades g else false
    else false
  else false.

(** The columns first: they are where two positions filed together usually differ. *)
Definition position_eqb (s t : position) : bool :=
  if columns_eqb (columns s) (columns t) then
    if column_eqb (cells s) (cells t) then home_eqb (home s) (home t) else false
  else false.

Lemma card_eqb_eq c d : card_eqb c d = true <-> c = d.
Proof.
  destruct c as [r s], d as [r' s']; unfold card_eqb; simpl.
  destruct s, s'; rewrite ?Nat.eqb_eq; split; intros H; try discriminate;
    try (injection H; intros); subst; auto.
Qed.

Lemma column_eqb_eq l m : column_eqb l m = true <-> l = m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; simpl; try (split; congruence).
  destruct (card_eqb c d) eqn:E; [apply card_eqb_eq in E as ->|].
  - rewrite IH; split; [intros ->|intros H; injection H]; auto.
  - split; [discriminate|]; intros H; injection H as -> _.
    assert (card_eqb d d = true) by (apply card_eqb_eq; reflexivity); congruence.
Qed.

Lemma columns_eqb_eq l m : columns_eqb l m = true <-> l = m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; simpl; try (split; congruence).
  destruct (column_eqb c d) eqn:E; [apply column_eqb_eq in E as ->|].
  - rewrite IH; split; [intros ->|intros H; injection H]; auto.
  - split; [discriminate|]; intros H; injection H as -> _.
    assert (column_eqb d d = true) by (apply column_eqb_eq; reflexivity); congruence.
Qed.

Lemma home_eqb_eq f g : home_eqb f g = true <-> f = g.
Proof.
  destruct f as [a b c d], g as [a' b' c' d']; unfold home_eqb; simpl.
  destruct (Nat.eqb_spec a a'), (Nat.eqb_spec b b'), (Nat.eqb_spec c c'), (Nat.eqb_spec d d');
    subst; split; intros H; try discriminate; try (injection H; intros); auto; contradiction.
Qed.

Lemma position_eqb_eq s t : position_eqb s t = true <-> s = t.
Proof.
  destruct s as [f cs cols], t as [f' cs' cols']; unfold position_eqb; simpl.
  destruct (columns_eqb cols cols') eqn:E1.
  - apply columns_eqb_eq in E1 as ->; destruct (column_eqb cs cs') eqn:E2.
    + apply column_eqb_eq in E2 as ->; rewrite home_eqb_eq.
      split; [intros ->|intros H; injection H]; auto.
    + split; [discriminate|]; intros H; injection H; intros; subst.
      rewrite (proj2 (column_eqb_eq cs' cs') eq_refl) in E2; discriminate.
  - split; [discriminate|]; intros H; injection H; intros; subst.
    rewrite (proj2 (columns_eqb_eq cols' cols') eq_refl) in E1; discriminate.
Qed.

Lemma position_eqb_refl s : position_eqb s s = true.
Proof. apply position_eqb_eq; reflexivity. Qed.

Definition won (s : position) : bool :=
  let f := home s in (clubs f =? 13) && (diamonds f =? 13) && (hearts f =? 13) && (spades f =? 13).

Lemma not_won s : won s = false -> ~ Won s.
Proof. unfold won, Won; intros H E; rewrite E in H; discriminate. Qed.

Lemma is_won s : won s = true -> Won s.
Proof.
  destruct s as [[a b c d] cs cols]; unfold won, Won; simpl.
  rewrite !andb_true_iff, !Nat.eqb_eq; intros [[[-> ->] ->] ->]; reflexivity.
Qed.

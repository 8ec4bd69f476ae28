(** Lemmas shipped with the rules: what Rules.v's deal and moves do with the 52 cards.

    [deal_cards]: every deal, for every number (so every deal 1 .. 2^33 - 1), is eight
    columns holding the 52 cards of [deck], each once; proved of the shuffle as Rules.v
    states it, for every value the generator may draw, not by dealing the 8 billion deals.
    [moves_keep_cards]: every single-card move of [Rules.moves] keeps the cards of a position
    ([all_cards]: those home, in the cells and in the columns), for every number of free cells
    and with or without moves off the foundations; so a position holding each card once
    moves only to such positions ([moves_keep_each_card_once]), and every reachable position
    holds each of the 52 cards exactly once ([reachable_each_card_once]). *)

From VCheck Require Import Rules Deal Check Autoplay.
From Coq Require Import Bool Arith List NArith Lia Sorting.Permutation.
Import ListNotations.

(** * The 52 cards *)

(** The deck: card numbers 0 .. 51, one card of each rank 0 .. 12 in each suit. *)
Definition deck : list card := map card_of_number (seq 0 52).

Lemma card_number_of n : card_number (card_of_number n) = n.
Proof.
  unfold card_number, card_of_number; cbn [rank suit_of].
  pose proof (Nat.mod_upper_bound n 4 ltac:(lia)) as B.
  pose proof (Nat.div_mod n 4 ltac:(lia)) as D.
  revert B D.
  destruct (n mod 4) as [|[|[|[|k]]]]; cbn [suit_number]; lia.
Qed.

Lemma card_of_number_of c : card_of_number (card_number c) = c.
Proof.
  destruct c as [r su]; unfold card_number, card_of_number; cbn [rank suit_of].
  assert (Q : forall k, k < 4 -> (r * 4 + k) / 4 = r /\ (r * 4 + k) mod 4 = k).
  { intros k K; split.
    - rewrite Nat.div_add_l by lia; rewrite Nat.div_small by lia; lia.
    - rewrite Nat.add_comm, Nat.mod_add by lia; apply Nat.mod_small; lia. }
  destruct su; cbn [suit_number];
    [destruct (Q 0) as [-> ->] | destruct (Q 1) as [-> ->]
    | destruct (Q 2) as [-> ->] | destruct (Q 3) as [-> ->]]; auto; lia.
Qed.

(** The deck holds each card of rank 0 .. 12 once, and nothing else. *)
Theorem deck_cards : NoDup deck /\ forall c, In c deck <-> rank c < 13.
Proof.
  split.
  - apply (NoDup_map_inv card_number); unfold deck; rewrite map_map.
    rewrite (map_ext _ (fun n => n) card_number_of), map_id; apply seq_NoDup.
  - intros c; unfold deck; rewrite in_map_iff; split.
    + intros [n [<- H]]; apply in_seq in H; unfold card_of_number; cbn [rank].
      apply Nat.div_lt_upper_bound; lia.
    + intros H; exists (card_number c); split; [apply card_of_number_of|].
      apply in_seq; destruct c as [r su]; unfold card_number; simpl in *.
      destruct su; simpl; lia.
Qed.

(** * The shuffle *)

(** One draw: the card at [j] comes out, the deck's last card takes its place. *)
Lemma draw_perm (deck : list nat) j :
  j < length deck ->
  Permutation (nth j deck 0 :: removelast (firstn j deck ++ last deck 0 :: skipn (S j) deck))
              deck.
Proof.
  destruct deck as [|d0 deck0] using rev_ind; [simpl; lia|]; clear IHdeck0.
  rewrite app_length, last_last; cbn [length]; intros J.
  destruct (Nat.eq_dec j (length deck0)) as [->|N].
  - rewrite nth_middle, (skipn_all2 (deck0 ++ [d0])) by (rewrite app_length; simpl; lia).
    rewrite <- (Nat.add_0_r (length deck0)), firstn_app_2; cbn [firstn].
    rewrite app_nil_r, removelast_last; apply Permutation_cons_append.
  - destruct (nth_split deck0 0 (ltac:(lia) : j < length deck0)) as [l1 [l2 [E L]]].
    rewrite E, <- app_assoc; cbn [app]; subst j.
    rewrite nth_middle, <- (Nat.add_0_r (length l1)), firstn_app_2, Nat.add_0_r.
    cbn [firstn]; rewrite app_nil_r.
    rewrite skipn_app, (skipn_all2 l1) by lia.
    replace (S (length l1) - length l1) with 1 by lia; cbn [skipn app].
    rewrite (app_comm_cons l2 [d0] d0), app_assoc, removelast_last.
    eapply perm_trans; [apply Permutation_middle|].
    apply Permutation_app_head; apply perm_skip, Permutation_cons_append.
Qed.

(** The shuffle deals out its whole deck, each card once, whatever the numbers drawn. *)
Lemma shuffle_perm k : forall n x deck, length deck = k -> Permutation (shuffle k n x deck) deck.
Proof.
  induction k as [|k IH]; intros n x deck L; cbn [shuffle].
  - destruct deck; [constructor | discriminate].
  - set (j := N.to_nat _).
    assert (J : j < length deck).
    { assert (H : (rand_value n (next_state x) mod N.of_nat (S k) < N.of_nat (S k))%N)
        by (apply N.mod_lt; lia).
      unfold j; rewrite L; lia. }
    pose proof (draw_perm deck j J) as P.
    eapply perm_trans; [|exact P]; apply perm_skip, IH.
    apply Permutation_length in P; cbn [length] in P; lia.
Qed.

(** * The deal *)

Lemma filter_split {A} (f : A -> nat) (l : list A) m :
  Permutation (concat (map (fun i => filter (fun x => f x =? i) l) (seq 0 m)))
              (filter (fun x => f x <? m) l).
Proof.
  induction m as [|m IH].
  - simpl; induction l as [|a l IHl]; simpl; auto.
  - rewrite seq_S, map_app, concat_app; cbn [map concat]; rewrite app_nil_r.
    eapply perm_trans; [apply Permutation_app_tail, IH|]; clear IH.
    induction l as [|a l IHl]; simpl; auto.
    destruct (Nat.ltb_spec (f a) m), (Nat.eqb_spec (f a) m), (Nat.ltb_spec (f a) (S m));
      try lia; simpl; auto.
    apply Permutation_sym, Permutation_cons_app, Permutation_sym, IHl.
Qed.

Lemma filter_all {A} (p : A -> bool) (l : list A) :
  (forall x, In x l -> p x = true) -> filter p l = l.
Proof.
  induction l as [|a l IH]; simpl; intros H; auto.
  rewrite H, IH; auto.
Qed.

Lemma concat_perm {A} (h h' : nat -> list A) s :
  (forall i, Permutation (h i) (h' i)) ->
  Permutation (concat (map h s)) (concat (map h' s)).
Proof. intros H; induction s; simpl; auto; apply Permutation_app; auto. Qed.

Lemma map_combine {B C} (h : B -> C) (ks : list nat) (l : list B) :
  length ks = length l -> map (fun '(_, c) => h c) (combine ks l) = map h l.
Proof.
  revert l; induction ks as [|k ks IH]; intros [|b l] L; simpl in *; auto; try discriminate.
  rewrite IH; auto.
Qed.

(** The eight columns hold the 52 cards dealt, each once. *)
Lemma dealt_columns_perm dealt :
  length dealt = 52 ->
  Permutation (concat (map (dealt_column dealt) (seq 0 8))) (map card_of_number dealt).
Proof.
  intros L; unfold dealt_column.
  set (C := combine (seq 0 52) dealt).
  set (g := fun p : nat * nat => let '(_, c) := p in card_of_number c).
  eapply perm_trans.
  { apply (concat_perm _ (fun i => map g (filter (fun p => fst p mod 8 =? i) C))).
    intros i; eapply perm_trans; [apply Permutation_sym, Permutation_rev|].
    erewrite filter_ext_in; [reflexivity|]; intros [k c] _; reflexivity. }
  rewrite <- (map_map (fun i => filter (fun p => fst p mod 8 =? i) C) (map g)), <- concat_map.
  eapply perm_trans; [apply Permutation_map, (filter_split (fun p => fst p mod 8))|].
  rewrite filter_all; [|intros x _; apply Nat.ltb_lt, Nat.mod_upper_bound; lia].
  unfold C, g; rewrite map_combine; [reflexivity | rewrite seq_length; auto].
Qed.

(** Every deal is the 52 cards in eight columns: for every number (so for every deal
    1 .. 2^33 - 1), each card of [deck] is once in the deal, and nothing else is. *)
Theorem deal_cards n : length (deal n) = 8 /\ Permutation (concat (deal n)) deck.
Proof.
  unfold deal; split; [rewrite map_length, seq_length; reflexivity|].
  pose proof (shuffle_perm 52 n (first_state n) (seq 0 52) (seq_length 52 0)) as P.
  eapply perm_trans; [apply dealt_columns_perm; rewrite (Permutation_length P), seq_length;
                      reflexivity|].
  apply Permutation_map, P.
Qed.

(** * Moves keep the 52 cards *)

Lemma set_home_count_twice f su m n :
  set_home_count (set_home_count f su m) su n = set_home_count f su n.
Proof. destruct f, su; reflexivity. Qed.

(** Every single-card move keeps the cards of a position (Autoplay.v's [ustep_cards] for every
    foundation-moves rule): a card taken off a foundation is the one below its count. *)
Lemma ustep_cards_any fc fm s t : ustep fc fm s t -> Permutation (all_cards s) (all_cards t).
Proof.
  destruct 1 as [c rest O P E Et Ct Pt | c rest O P E Et Ct Pt
                | c rest y O1 O2 P P2 L Et Ct Pt | c others Hin E Et Ct Pt
                | c others y O Hin P L Et Ct Pt | su r y O Fm E P L Et Ct Pt];
    try (apply (ustep_cards fc); econstructor; eassumption).
  unfold all_cards; rewrite Et, Ct.
  pose proof (Permutation_concat _ _ P) as PC; simpl in PC.
  pose proof (Permutation_concat _ _ Pt) as PCt; simpl in PCt.
  assert (H : Permutation (home_cards (home s))
                          (Card r su :: home_cards (set_home_count (home s) su r))).
  { rewrite <- (set_home_count_same (home s) su) at 1; rewrite E.
    rewrite <- (set_home_count_twice (home s) su r (S r)).
    apply (home_cards_set (set_home_count (home s) su r) (Card r su)).
    unfold can_home; simpl; rewrite home_count_set_same; apply Nat.eqb_refl. }
  eapply perm_trans; [apply perm_all; [exact H | reflexivity | exact PC]|].
  eapply perm_trans; [|apply perm_all; [reflexivity | reflexivity | apply Permutation_sym, PCt]].
  apply Permutation_sym, perm_out_column.
Qed.

(** Every legal single-card move keeps the cards: [t]'s cards are [s]'s, for every number of
    free cells and with or without moves off the foundations. *)
Theorem moves_keep_cards fc fm s t :
  In t (moves fc fm s) -> Permutation (all_cards s) (all_cards t).
Proof. intros H; apply (ustep_cards_any fc fm), moves_ustep, H. Qed.

(** A position holds each of the 52 cards exactly once: home (as the ranks below each
    foundation's count), in a free cell or in a column. *)
Definition each_card_once (s : position) : Prop := Permutation (all_cards s) deck.

Theorem moves_keep_each_card_once fc fm s t :
  each_card_once s -> In t (moves fc fm s) -> each_card_once t.
Proof.
  unfold each_card_once; intros H M.
  exact (perm_trans (Permutation_sym (moves_keep_cards fc fm s t M)) H).
Qed.

(** The start of every deal holds each of the 52 cards once. *)
Theorem start_each_card_once n : each_card_once (start n).
Proof. exact (proj2 (deal_cards n)). Qed.

(** So does every position reachable from it, under every rule of free cells and foundation
    moves. *)
Theorem reachable_each_card_once n fc fm s : Reachable n fc fm s -> each_card_once s.
Proof.
  induction 1 as [| s t _ IH M]; [apply start_each_card_once|].
  exact (moves_keep_each_card_once fc fm s t IH M).
Qed.

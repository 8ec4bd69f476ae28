(** vcheck's checker and the theorems that make its answer a proof.

    Everything is stated against [Rules] (the rules as the Coq export states them, with the
    deal number, the number of free cells and the foundation-moves rule as arguments).  The
    certificate is never a Coq term: the checker reads it through the functions of [table]
    and [records], which the native driver implements, and the theorems hold for every choice
    of those functions.  A function that answers wrongly (a bad hint, a hash table that misses,
    a record decoded from the wrong bytes) can only make a check answer [false]. *)

From VCheck Require Import Rules.
From VCheck Require Import Deal.
From Coq Require Import Bool Arith List NArith Lia Sorting.Permutation.
Import ListNotations.

(** * Equality, as booleans *)

Definition suit_eqb (s t : suit) : bool :=
  match s, t with
  | Clubs, Clubs | Diamonds, Diamonds | Hearts, Hearts | Spades, Spades => true
  | _, _ => false
  end.

Definition card_eqb (c d : card) : bool :=
  if suit_eqb (suit_of c) (suit_of d) then rank c =? rank d else false.

Fixpoint cards_eqb (l m : list card) : bool :=
  match l, m with
  | [], [] => true
  | c :: l', d :: m' => if card_eqb c d then cards_eqb l' m' else false
  | _, _ => false
  end.

Fixpoint columns_eqb (l m : list (list card)) : bool :=
  match l, m with
  | [], [] => true
  | c :: l', d :: m' => if cards_eqb c d then columns_eqb l' m' else false
  | _, _ => false
  end.

Definition home_eqb (f g : foundations) : bool :=
  (clubs f =? clubs g) && (diamonds f =? diamonds g) && (hearts f =? hearts g)
  && (spades f =? spades g).

Fixpoint ids_eqb (l m : list N) : bool :=
  match l, m with
  | [], [] => true
  | a :: l', b :: m' => if N.eqb a b then ids_eqb l' m' else false
  | _, _ => false
  end.

Definition position_eqb (s t : position) : bool :=
  home_eqb (home s) (home t) && cards_eqb (cells s) (cells t)
  && columns_eqb (columns s) (columns t).

Lemma suit_eqb_eq s t : suit_eqb s t = true <-> s = t.
Proof. destruct s, t; simpl; split; congruence. Qed.

Lemma card_eqb_eq c d : card_eqb c d = true <-> c = d.
Proof.
  destruct c as [r s], d as [r' s']; unfold card_eqb; simpl.
  destruct (suit_eqb s s') eqn:E.
  - apply suit_eqb_eq in E as ->; rewrite Nat.eqb_eq; split; congruence.
  - split; [discriminate|]; intros H; injection H as -> ->.
    destruct s'; discriminate.
Qed.

Lemma cards_eqb_eq l m : cards_eqb l m = true <-> l = m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; simpl; try (split; congruence).
  destruct (card_eqb c d) eqn:E.
  - apply card_eqb_eq in E as ->; rewrite IH; split; congruence.
  - split; [discriminate|]; intros H; injection H as -> _.
    rewrite (proj2 (card_eqb_eq d d) eq_refl) in E; discriminate.
Qed.

Lemma columns_eqb_eq l m : columns_eqb l m = true <-> l = m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; simpl; try (split; congruence).
  destruct (cards_eqb c d) eqn:E.
  - apply cards_eqb_eq in E as ->; rewrite IH; split; congruence.
  - split; [discriminate|]; intros H; injection H as -> _.
    rewrite (proj2 (cards_eqb_eq d d) eq_refl) in E; discriminate.
Qed.

Lemma home_eqb_eq f g : home_eqb f g = true <-> f = g.
Proof.
  destruct f as [a b c d], g as [a' b' c' d']; unfold home_eqb; simpl.
  rewrite !andb_true_iff, !Nat.eqb_eq; split.
  - intros [[[-> ->] ->] ->]; reflexivity.
  - intros H; injection H as -> -> -> ->; auto.
Qed.

Lemma ids_eqb_eq l m : ids_eqb l m = true <-> l = m.
Proof.
  revert m; induction l as [|a l IH]; intros [|b m]; simpl; try (split; congruence).
  destruct (N.eqb_spec a b) as [->|D].
  - rewrite IH; split; congruence.
  - split; [discriminate|]; intros H; injection H as E _; contradiction.
Qed.

Lemma position_eqb_eq s t : position_eqb s t = true <-> s = t.
Proof.
  destruct s as [f cs cols], t as [g ds cols']; unfold position_eqb; simpl.
  rewrite !andb_true_iff, home_eqb_eq, cards_eqb_eq, columns_eqb_eq; split.
  - intros [[-> ->] ->]; reflexivity.
  - intros H; injection H as -> -> ->; auto.
Qed.

Definition won (f : foundations) : bool :=
  (clubs f =? 13) && (diamonds f =? 13) && (hearts f =? 13) && (spades f =? 13).

Lemma won_true s : won (home s) = true -> Won s.
Proof.
  destruct s as [[a b c d] cs cols]; unfold won, Won; simpl.
  rewrite !andb_true_iff, !Nat.eqb_eq; intros [[[-> ->] ->] ->]; reflexivity.
Qed.

Lemma won_false s : won (home s) = false -> ~ Won s.
Proof. unfold Won; intros H E; rewrite E in H; discriminate. Qed.

(** [c] may stand before [d] in the free cells, which Rules keeps sorted by card number
    ([rank * 4 + suit]): a lower rank first, and between equal ranks the lower suit.  Computed
    without the multiplication, which costs unary numbers a walk through every rank. *)
Definition cell_before (c d : card) : bool :=
  (rank c <? rank d)
  || ((rank c =? rank d) && (suit_number (suit_of c) <=? suit_number (suit_of d))).

Lemma cell_before_number c d : cell_before c d = (card_number c <=? card_number d).
Proof.
  destruct c as [r s], d as [r' s']; unfold cell_before, card_number; simpl.
  destruct (Nat.ltb_spec r r'), (Nat.eqb_spec r r'), s, s'; simpl; symmetry;
    first [apply Nat.leb_le; lia | apply Nat.leb_gt; lia].
Qed.

Fixpoint add_cell (c : card) (cs : list card) : list card :=
  match cs with
  | [] => [c]
  | d :: rest => if cell_before c d then c :: cs else d :: add_cell c rest
  end.

Lemma add_cell_eq c cs : add_cell c cs = insert_cell c cs.
Proof.
  induction cs as [|d rest IH]; simpl; auto; rewrite cell_before_number, IH; reflexivity.
Qed.

(** * Moves, up to the order of the columns

    [ustep s t]: [t] is one move away from [s], where the columns of each are taken as a
    multiset.  Every move of [Rules.moves] is one ([moves_ustep]), and [ustep] does not see
    the order of the columns of [s] ([ustep_same]): this is all the checker needs to take
    positions up to the order of their columns. *)

Section Moves.
Variable fc : nat.
Variable fm : bool.

Definition same (s t : position) : Prop :=
  home s = home t /\ cells s = cells t /\ Permutation (columns s) (columns t).

Inductive ustep (s t : position) : Prop :=
  | column_home c rest O :
      Permutation (columns s) ((c :: rest) :: O) -> can_home (home s) c = true ->
      home t = set_home_count (home s) (suit_of c) (S (rank c)) -> cells t = cells s ->
      Permutation (columns t) (rest :: O) -> ustep s t
  | column_cell c rest O :
      Permutation (columns s) ((c :: rest) :: O) -> (length (cells s) <? fc) = true ->
      home t = home s -> cells t = insert_cell c (cells s) ->
      Permutation (columns t) (rest :: O) -> ustep s t
  | column_column c rest y O1 O2 :
      Permutation (columns s) ((c :: rest) :: O1) -> Permutation (rest :: O1) (y :: O2) ->
      can_land c y = true -> home t = home s -> cells t = cells s ->
      Permutation (columns t) ((c :: y) :: O2) -> ustep s t
  | cell_home c others :
      In (c, others) (picks (cells s)) -> can_home (home s) c = true ->
      home t = set_home_count (home s) (suit_of c) (S (rank c)) -> cells t = others ->
      Permutation (columns t) (columns s) -> ustep s t
  | cell_column c others y O :
      In (c, others) (picks (cells s)) -> Permutation (columns s) (y :: O) ->
      can_land c y = true -> home t = home s -> cells t = others ->
      Permutation (columns t) ((c :: y) :: O) -> ustep s t
  | home_column su r y O :
      fm = true -> home_count (home s) su = S r -> Permutation (columns s) (y :: O) ->
      can_land (Card r su) y = true -> home t = set_home_count (home s) su r ->
      cells t = cells s -> Permutation (columns t) ((Card r su :: y) :: O) -> ustep s t.

Lemma set_column_middle (l1 l2 : list (list card)) x v :
  set_column (l1 ++ x :: l2) (length l1) v = l1 ++ v :: l2.
Proof.
  unfold set_column; induction l1 as [|a l1 IH]; simpl; [reflexivity|].
  f_equal; exact IH.
Qed.

Lemma pick_column (cols : list (list card)) i :
  i < length cols ->
  exists O, Permutation cols (nth i cols [] :: O) /\
            forall v, Permutation (set_column cols i v) (v :: O).
Proof.
  intros H; destruct (nth_split cols [] H) as [l1 [l2 [E L]]].
  exists (l1 ++ l2); split.
  - pose proof (Permutation_middle l1 l2 (nth i cols [])) as P; rewrite <- E in P.
    exact (Permutation_sym P).
  - intros v; rewrite E, <- L, set_column_middle; apply Permutation_sym, Permutation_middle.
Qed.

Lemma moves_ustep s t : In t (moves fc fm s) -> ustep s t.
Proof.
  destruct s as [f cs cols]; unfold moves; rewrite in_flat_map.
  intros [[[c from] r] [Hp Hd]]; unfold pickups in Hp; rewrite !in_app_iff in Hp.
  destruct Hp as [Hp | [Hp | Hp]].
  - apply in_flat_map in Hp as [i [Hi Hp]]; apply in_seq in Hi.
    destruct (nth i cols []) as [|c0 rest] eqn:N; [destruct Hp|].
    destruct Hp as [E|[]]; injection E as <- <- <-.
    destruct (pick_column cols i (proj2 Hi)) as [O1 [P1 Q1]]; rewrite N in P1.
    unfold putdowns in Hd; rewrite !in_app_iff in Hd; destruct Hd as [Hd | [Hd | Hd]].
    + simpl in Hd; destruct (can_home f c0) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; eapply column_home; simpl; eauto.
    + apply in_flat_map in Hd as [j [Hj Hd]]; apply in_seq in Hj.
      destruct (may_go_to_column (FromColumn i) j && _) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; apply andb_true_iff in E as [_ E].
      destruct (pick_column (set_column cols i rest) j (proj2 Hj)) as [O2 [P2 Q2]].
      apply (column_column _ _ c0 rest (nth j (set_column cols i rest) []) O1 O2);
        simpl; auto.
      exact (perm_trans (Permutation_sym (Q1 rest)) P2).
    + simpl in Hd; destruct (length cs <? fc) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; eapply column_cell; simpl; eauto.
  - apply in_map_iff in Hp as [[c0 others] [E Hin]]; injection E as <- <- <-.
    unfold putdowns in Hd; rewrite !in_app_iff in Hd; destruct Hd as [Hd | [Hd | Hd]].
    + simpl in Hd; destruct (can_home f c0) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; eapply cell_home; simpl; eauto.
    + apply in_flat_map in Hd as [j [Hj Hd]]; apply in_seq in Hj.
      destruct (may_go_to_column FromCell j && _) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; apply andb_true_iff in E as [_ E].
      destruct (pick_column cols j (proj2 Hj)) as [O [P Q]].
      eapply cell_column; simpl; eauto.
    + destruct Hd.
  - destruct fm eqn:Efm; [|destruct Hp].
    apply in_flat_map in Hp as [su [_ Hp]].
    destruct (home_count f su) as [|k] eqn:Ek; [destruct Hp|].
    destruct Hp as [E|[]]; injection E as <- <- <-.
    unfold putdowns in Hd; rewrite !in_app_iff in Hd; destruct Hd as [Hd | [Hd | Hd]].
    + destruct Hd.
    + apply in_flat_map in Hd as [j [Hj Hd]]; apply in_seq in Hj.
      destruct (may_go_to_column FromHome j && _) eqn:E; [|destruct Hd].
      destruct Hd as [<-|[]]; apply andb_true_iff in E as [_ E].
      destruct (pick_column cols j (proj2 Hj)) as [O [P Q]].
      eapply home_column; simpl; eauto.
    + destruct Hd.
Qed.

Lemma ustep_same s s' t : ustep s t -> same s s' -> ustep s' t.
Proof.
  intros H [Eh [Ec Pc]].
  assert (Ps : forall X, Permutation (columns s) X -> Permutation (columns s') X)
    by (intros X P; exact (perm_trans (Permutation_sym Pc) P)).
  destruct H as [c rest O P E Et Ct Pt | c rest O P E Et Ct Pt
                | c rest y O1 O2 P P2 L Et Ct Pt | c others Hin E Et Ct Pt
                | c others y O Hin P L Et Ct Pt | su r y O Fm E P L Et Ct Pt];
    rewrite ?Eh, ?Ec in *.
  - eapply column_home; eauto.
  - eapply column_cell; eauto.
  - eapply column_column; eauto.
  - eapply cell_home; eauto; exact (perm_trans Pt Pc).
  - eapply cell_column; eauto.
  - eapply home_column; eauto.
Qed.

End Moves.

(** * The certificate, as data

    [table]: the columns, as a tree.  Column [e] holds [depth e] cards: [top e] on top of
    column [parent e].  [push b c] is where the driver says the column [c] on top of column
    [b] is; it is checked, not believed.  [column_of] names a column of the start.

    [records]: [count] positions; record [k] has foundations [rhome k], free cells [rcells k]
    and columns [rids k].  [find] says where a position's record is; also checked. *)

Record table := {
  depth : N -> nat;
  top : N -> card;
  parent : N -> N;
  push : N -> card -> N;
  column_of : list card -> N
}.

Record records := {
  count : N;
  rhome : N -> foundations;
  rcells : N -> list card;
  rids : N -> list N;
  find : foundations -> list card -> list N -> N
}.

Section Data.
Variable T : table.
Variable R : records.

Fixpoint column_at (n : nat) (e : N) : list card :=
  match n with
  | O => []
  | S n' => top T e :: column_at n' (parent T e)
  end.

(** The cards of column [e], top first, as in [Rules]. *)
Definition column (e : N) : list card := column_at (depth T e) e.

Definition record (k : N) : position :=
  Position (rhome R k) (rcells R k) (map column (rids R k)).

(** The positions the certificate holds, up to the order of the columns. *)
Definition held (s : position) : Prop := exists k, (k < count R)%N /\ same s (record k).

(** The columns in a canonical order: by id, for the symmetry "columns". *)
Fixpoint insert_id (x : N) (l : list N) : list N :=
  match l with
  | [] => [x]
  | y :: rest => if N.leb x y then x :: l else y :: insert_id x rest
  end.

Fixpoint sort_ids (l : list N) : list N :=
  match l with
  | [] => []
  | x :: rest => insert_id x (sort_ids rest)
  end.

Lemma sort_ids_perm l : Permutation (sort_ids l) l.
Proof.
  assert (I : forall x l, Permutation (insert_id x l) (x :: l)).
  { intros x; induction l0 as [|y rest IH]; simpl; auto.
    destruct (x <=? y)%N; auto.
    exact (perm_trans (perm_skip y IH) (perm_swap x y rest)). }
  induction l as [|x rest IH]; simpl; auto.
  exact (perm_trans (I x (sort_ids rest)) (perm_skip x IH)).
Qed.

Variable sorted : bool.

Definition normal (ids : list N) : list N := if sorted then sort_ids ids else ids.

Lemma normal_perm ids : Permutation (normal ids) ids.
Proof. unfold normal; destruct sorted; auto using sort_ids_perm. Qed.

(** Is the position with these foundations, cells and columns one of the records?  Only if
    the hinted record exists and equals it. *)
Definition member (f : foundations) (cs : list card) (ids : list N) : bool :=
  let ids' := normal ids in
  let k := find R f cs ids' in
  (k <? count R)%N && home_eqb (rhome R k) f && cards_eqb (rcells R k) cs
  && ids_eqb (rids R k) ids'.

Lemma member_held f cs ids s :
  member f cs ids = true -> home s = f -> cells s = cs ->
  Permutation (columns s) (map column ids) -> held s.
Proof.
  unfold member; rewrite !andb_true_iff, N.ltb_lt, home_eqb_eq, cards_eqb_eq, ids_eqb_eq.
  intros [[[L Eh] Ec] Ei] Hh Hc P; eexists; split; [exact L|].
  unfold same, record; simpl; rewrite Eh, Ec, Ei; repeat split; auto.
  exact (perm_trans P (Permutation_sym (Permutation_map column (normal_perm ids)))).
Qed.

(** [p before x after] for each element [x] of a list, with the elements before it ([before]:
    last first, as the walk passed them) and after it.  The list with [x] replaced by [y] is
    [rev_append before (y :: after)], built only where a move needs it. *)
Fixpoint all_splits {A} (p : list A -> A -> list A -> bool) (before l : list A) : bool :=
  match l with
  | [] => true
  | x :: after => p before x after && all_splits p (x :: before) after
  end.

Lemma all_splits_at {A} p (l1 : list A) : forall before x l2,
  all_splits p before (l1 ++ x :: l2) = true -> p (rev_append l1 before) x l2 = true.
Proof.
  induction l1 as [|a l1 IH]; intros before x l2 H; simpl in H; apply andb_true_iff in H.
  - exact (proj1 H).
  - exact (IH _ _ _ (proj2 H)).
Qed.

Lemma rev_append_twice {A} (l m : list A) : rev_append (rev_append l []) m = l ++ m.
Proof. rewrite !rev_append_rev, app_nil_r, rev_involutive; reflexivity. Qed.

Lemma perm_split ids x O :
  Permutation (map column ids) (x :: O) ->
  exists A a B, ids = A ++ a :: B /\ column a = x /\ Permutation (map column (A ++ B)) O.
Proof.
  intros P.
  assert (Hx : In x (map column ids)) by (apply (Permutation_in _ (Permutation_sym P)); left; auto).
  apply in_map_iff in Hx as [a [Ea Ha]]; apply in_split in Ha as [A [B ->]].
  exists A, a, B; repeat split; auto.
  rewrite map_app in *; simpl in P; rewrite Ea in P.
  apply Permutation_cons_inv with x.
  exact (perm_trans (Permutation_middle _ _ x) P).
Qed.

Lemma perm_middle ids1 ids2 v :
  Permutation (map column (ids1 ++ v :: ids2)) (column v :: map column (ids1 ++ ids2)).
Proof. rewrite !map_app; simpl; apply Permutation_sym, Permutation_middle. Qed.

Lemma column_cons a c rest :
  column a = c :: rest -> exists n, depth T a = S n /\ top T a = c /\ column_at n (parent T a) = rest.
Proof.
  unfold column; destruct (depth T a) as [|n]; simpl; [discriminate|].
  intros H; injection H as <- <-; eauto.
Qed.

(** Can [c] land on column [b]?  The colours first: they are compared in one step, the ranks
    (unary numbers) in as many as the lower rank. *)
Definition lands (c : card) (b : N) : bool :=
  match depth T b with
  | O => true
  | S _ => let d := top T b in xorb (red c) (red d) && (rank d =? S (rank c))
  end.

Lemma lands_eq c b : lands c b = can_land c (column b).
Proof.
  unfold lands, column; destruct (depth T b); simpl; [reflexivity|].
  unfold can_stack; apply andb_comm.
Qed.

(** The column [c] on top of column [b], if the driver's answer checks out. *)
Definition pushed (b : N) (c : card) : option N :=
  let e := push T b c in
  if (depth T e =? S (depth T b)) && N.eqb (parent T e) b && card_eqb (top T e) c
  then Some e else None.

Lemma pushed_column b c e : pushed b c = Some e -> column e = c :: column b.
Proof.
  unfold pushed; destruct (_ && _ && _) eqn:E; [|discriminate]; intros H; injection H as <-.
  apply andb_true_iff in E as [E Ec]; apply andb_true_iff in E as [Ed Ep].
  apply Nat.eqb_eq in Ed; apply N.eqb_eq in Ep; apply card_eqb_eq in Ec.
  unfold column at 1; rewrite Ed; simpl; rewrite Ep, Ec; reflexivity.
Qed.

Section Closure.
Variable fc : nat.
Variable fm : bool.

(** Every column [c] may land on, among [ids]: is each result a record? *)
Definition landings_held (f : foundations) (cs : list card) (c : card) (ids : list N) : bool :=
  all_splits (fun before b after =>
                if lands c b then
                  match pushed b c with
                  | Some e => member f cs (rev_append before (e :: after))
                  | None => false
                  end
                else true) [] ids.

Definition column_moves_held (f : foundations) (cs : list card) (ids : list N) : bool :=
  all_splits (fun before a after =>
             match depth T a with
             | O => true
             | S n =>
                 let c := top T a in
                 let a' := parent T a in
                 let ids1 := rev_append before (a' :: after) in
                 (n =? depth T a')
                 && (if can_home f c
                     then member (set_home_count f (suit_of c) (S (rank c))) cs ids1 else true)
                 && (if length cs <? fc then member f (add_cell c cs) ids1 else true)
                 && landings_held f cs c ids1
             end) [] ids.

Definition cell_moves_held (f : foundations) (cs : list card) (ids : list N) : bool :=
  forallb (fun '(c, others) =>
             (if can_home f c
              then member (set_home_count f (suit_of c) (S (rank c))) others ids else true)
             && landings_held f others c ids) (picks cs).

Definition home_moves_held (f : foundations) (cs : list card) (ids : list N) : bool :=
  if fm then
    forallb (fun su => match home_count f su with
                       | O => true
                       | S r => landings_held (set_home_count f su r) cs (Card r su) ids
                       end) [Clubs; Diamonds; Hearts; Spades]
  else true.

(** Record [k] is not won, and every move from it leads to a record. *)
Definition record_closed (k : N) : bool :=
  let f := rhome R k in
  let cs := rcells R k in
  let ids := rids R k in
  negb (won f) && column_moves_held f cs ids && cell_moves_held f cs ids
  && home_moves_held f cs ids.

Lemma landings_held_spec f cs c ids t y O :
  landings_held f cs c ids = true -> Permutation (map column ids) (y :: O) ->
  can_land c y = true -> home t = f -> cells t = cs ->
  Permutation (columns t) ((c :: y) :: O) -> held t.
Proof.
  intros H P L Eh Ec Pt; destruct (perm_split _ _ _ P) as [A [b [B [-> [Eb PO]]]]].
  unfold landings_held in H; apply all_splits_at in H; cbv beta iota in H.
  rewrite lands_eq, Eb, L in H; destruct (pushed b c) as [e|] eqn:E; [|discriminate].
  rewrite rev_append_twice in H.
  apply (member_held _ _ _ _ H Eh Ec).
  refine (perm_trans Pt (Permutation_sym (perm_trans (perm_middle A B e) _))).
  rewrite (pushed_column _ _ _ E), Eb; exact (perm_skip _ PO).
Qed.

Lemma record_closed_spec k t :
  record_closed k = true -> ustep fc fm (record k) t -> held t.
Proof.
  unfold record_closed, record; rewrite !andb_true_iff.
  intros [[[_ Hcol] Hcell] Hhome] U.
  set (f := rhome R k) in *; set (cs := rcells R k) in *; set (ids := rids R k) in *.
  assert (Col : forall c rest O, Permutation (map column ids) ((c :: rest) :: O) ->
    exists A a' B, Permutation (map column (A ++ a' :: B)) (rest :: O) /\
      (can_home f c = true ->
       member (set_home_count f (suit_of c) (S (rank c))) cs (A ++ a' :: B) = true) /\
      ((length cs <? fc) = true -> member f (add_cell c cs) (A ++ a' :: B) = true) /\
      landings_held f cs c (A ++ a' :: B) = true).
  { intros c rest O P; destruct (perm_split _ _ _ P) as [A [a [B [Ei [Ea PO]]]]].
    unfold column_moves_held in Hcol; rewrite Ei in Hcol; apply all_splits_at in Hcol.
    destruct (column_cons _ _ _ Ea) as [n [Dn [Tc Rest]]]; cbv beta iota in Hcol.
    rewrite rev_append_twice in Hcol.
    rewrite Dn, Tc in Hcol; rewrite !andb_true_iff in Hcol.
    destruct Hcol as [[[En Hh] Hc] Hl]; apply Nat.eqb_eq in En.
    exists A, (parent T a), B; repeat split; auto.
    - refine (perm_trans (perm_middle A B _) _).
      unfold column at 1; rewrite <- En, Rest; exact (perm_skip _ PO).
    - intros E; rewrite E in Hh; exact Hh.
    - intros E; rewrite E in Hc; exact Hc. }
  destruct U as [c rest O P E Eh Ec Pt | c rest O P E Eh Ec Pt
                | c rest y O1 O2 P P2 L Eh Ec Pt | c others Hin E Eh Ec Pt
                | c others y O Hin P L Eh Ec Pt | su r y O Fm E P L Eh Ec Pt];
    simpl in *.
  - destruct (Col c rest O P) as [A [a' [B [PA [Hh _]]]]].
    apply (member_held _ _ _ _ (Hh E) Eh Ec); exact (perm_trans Pt (Permutation_sym PA)).
  - destruct (Col c rest O P) as [A [a' [B [PA [_ [Hc _]]]]]].
    rewrite <- add_cell_eq in Ec.
    apply (member_held _ _ _ _ (Hc E) Eh Ec); exact (perm_trans Pt (Permutation_sym PA)).
  - destruct (Col c rest O1 P) as [A [a' [B [PA [_ [_ Hl]]]]]].
    exact (landings_held_spec _ _ _ _ _ _ _ Hl (perm_trans PA P2) L Eh Ec Pt).
  - unfold cell_moves_held in Hcell; rewrite forallb_forall in Hcell.
    specialize (Hcell _ Hin); cbv beta iota in Hcell; rewrite E in Hcell.
    apply andb_true_iff in Hcell as [Hh _].
    exact (member_held _ _ _ _ Hh Eh Ec Pt).
  - unfold cell_moves_held in Hcell; rewrite forallb_forall in Hcell.
    specialize (Hcell _ Hin); cbv beta iota in Hcell.
    apply andb_true_iff in Hcell as [_ Hl].
    exact (landings_held_spec _ _ _ _ _ _ _ Hl P L Eh Ec Pt).
  - unfold home_moves_held in Hhome; rewrite Fm, forallb_forall in Hhome.
    specialize (Hhome su); rewrite E in Hhome.
    refine (landings_held_spec _ _ _ _ _ _ _ (Hhome _) P L Eh Ec Pt); destruct su; simpl; auto.
Qed.

(** * Checking the records, or a slice of them *)

(** Check records [k], [k + 1], ... below [hi], up to [2 ^ b] of them; the index reached, or
    [None] when one is not closed. *)
Fixpoint sweep (b : nat) (hi k : N) : option N :=
  match b with
  | O => if (k <? hi)%N then if record_closed k then Some (N.succ k) else None else Some k
  | S b' =>
      if (hi <=? k)%N then Some k
      else match sweep b' hi k with Some k' => sweep b' hi k' | None => None end
  end.

Lemma sweep_spec b : forall hi k k', sweep b hi k = Some k' ->
  (k <= k')%N /\ forall j, (k <= j < k')%N -> record_closed j = true.
Proof.
  induction b as [|b IH]; intros hi k k' H; simpl in H.
  - destruct (N.ltb_spec k hi); [|injection H as <-; split; [lia | intros; lia]].
    destruct (record_closed k) eqn:C; [|discriminate]; injection H as <-.
    split; [lia|]; intros j Hj; replace j with k by lia; exact C.
  - destruct (N.leb_spec hi k); [injection H as <-; split; [lia | intros; lia]|].
    destruct (sweep b hi k) as [m|] eqn:E; [|discriminate].
    destruct (IH _ _ _ E) as [L1 C1], (IH _ _ _ H) as [L2 C2]; split; [lia|].
    intros j Hj; destruct (N.ltb_spec j m); [apply C1 | apply C2]; lia.
Qed.

(** Every record from [lo] to below [hi] is closed ([2 ^ b] at most; the fuel [b] is an
    argument so that no proof ever unfolds it). *)
Definition slice_closed (b : nat) (lo hi : N) : bool :=
  match sweep b hi lo with Some k => N.eqb k hi | None => false end.

Theorem slice_closed_spec b lo hi :
  slice_closed b lo hi = true -> forall j, (lo <= j < hi)%N -> record_closed j = true.
Proof.
  unfold slice_closed; destruct (sweep b hi lo) as [k|] eqn:E; [|discriminate].
  intros H; apply N.eqb_eq in H as ->; exact (proj2 (sweep_spec _ _ _ _ E)).
Qed.

(** Slices [lo .. b1], [b1 .. b2], ..., [bn .. hi], each checked on its own (the driver may
    check them at once, on several processors). *)
Fixpoint slices_closed (fuel : nat) (lo : N) (bounds : list N) (hi : N) : bool :=
  match bounds with
  | [] => slice_closed fuel lo hi
  | b :: rest => slice_closed fuel lo b && slices_closed fuel b rest hi
  end.

Theorem slices_closed_spec fuel bounds : forall lo hi,
  slices_closed fuel lo bounds hi = true ->
  forall j, (lo <= j < hi)%N -> record_closed j = true.
Proof.
  induction bounds as [|b rest IH]; intros lo hi H j Hj; simpl in H.
  { exact (slice_closed_spec _ _ _ H _ Hj). }
  apply andb_true_iff in H as [H1 H2]; destruct (N.ltb_spec j b).
  - apply (slice_closed_spec _ _ _ H1); lia.
  - apply (IH _ _ H2); lia.
Qed.

End Closure.

Variable deal_number : N.

Fixpoint columns_match (ids : list N) (cols : list (list card)) : bool :=
  match ids, cols with
  | [], [] => true
  | a :: ids', col :: cols' => cards_eqb (column a) col && columns_match ids' cols'
  | _, _ => false
  end.

Lemma columns_match_eq ids cols : columns_match ids cols = true -> map column ids = cols.
Proof.
  revert cols; induction ids as [|a ids IH]; intros [|col cols]; simpl; try discriminate; auto.
  rewrite andb_true_iff, cards_eqb_eq; intros [-> H]; rewrite (IH _ H); reflexivity.
Qed.

(** The start is one of the records. *)
Definition start_held : bool :=
  let s := start_of deal_number in
  let ids := map (column_of T) (columns s) in
  columns_match ids (columns s) && member (home s) (cells s) ids.

Lemma start_held_spec : start_held = true -> held (start deal_number).
Proof.
  rewrite <- start_of_eq.
  unfold start_held; rewrite andb_true_iff; intros [M H].
  apply (member_held _ _ _ _ H eq_refl eq_refl); rewrite (columns_match_eq _ _ M); auto.
Qed.

Section Unwinnable.
Variable fc : nat.
Variable fm : bool.

Lemma held_closed :
  (forall j, (j < count R)%N -> record_closed fc fm j = true) ->
  start_held = true -> forall s, Reachable deal_number fc fm s -> held s.
Proof.
  intros Closed Start s Hs; induction Hs as [|s t Hs [k [Hk E]] Ht].
  - exact (start_held_spec Start).
  - exact (record_closed_spec fc fm k t (Closed k Hk) (ustep_same fc fm s _ t (moves_ustep fc fm s t Ht) E)).
Qed.

Lemma none_won :
  (forall j, (j < count R)%N -> record_closed fc fm j = true) ->
  start_held = true -> forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  intros Closed Start s Hs; destruct (held_closed Closed Start s Hs) as [k [Hk [Eh _]]].
  apply won_false; rewrite Eh; unfold record_closed in Closed; specialize (Closed k Hk).
  rewrite !andb_true_iff in Closed; destruct Closed as [[[W _] _] _].
  simpl; destruct (won (rhome R k)); [discriminate | reflexivity].
Qed.

End Unwinnable.
End Data.

(** * The no-win check, and its theorem *)

Definition check_nowin (deal_number : N) (fc : nat) (fm sorted : bool)
           (T : table) (R : records) : bool :=
  start_held T R sorted deal_number && slice_closed T R sorted fc fm 64 0 (count R).

Theorem nowin_sound deal_number fc fm sorted T R :
  check_nowin deal_number fc fm sorted T R = true ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  unfold check_nowin; rewrite andb_true_iff; intros [Start Closed].
  apply (none_won T R sorted deal_number fc fm); auto.
  intros j Hj; apply (slice_closed_spec _ _ _ _ _ _ _ _ Closed); lia.
Qed.

(** The same, with the records checked in slices. *)
Definition check_nowin_slices (deal_number : N) (fc : nat) (fm sorted : bool)
           (T : table) (R : records) (bounds : list N) : bool :=
  start_held T R sorted deal_number && slices_closed T R sorted fc fm 64 0 bounds (count R).

Theorem nowin_slices_sound deal_number fc fm sorted T R bounds :
  check_nowin_slices deal_number fc fm sorted T R bounds = true ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  unfold check_nowin_slices; rewrite andb_true_iff; intros [Start Closed].
  apply (none_won T R sorted deal_number fc fm); auto.
  intros j Hj; apply (slices_closed_spec T R sorted fc fm 64 bounds 0 (count R) Closed); lia.
Qed.

(** * The win check, and its theorem

    The line is the certificate's moves (card, destination: 0 .. 7 a column, 8 a free cell,
    9 the foundation).  [lift] and [drop] compute the position after each move however they
    like; what the theorem rests on is that the result is one of [Rules.moves] of the
    position before ([existsb]), checked by exact equality. *)

Section Win.
Variable fc : nat.
Variable fm : bool.

Fixpoint take_top (c : card) (cols : list (list card)) : option (list (list card)) :=
  match cols with
  | [] => None
  | (d :: rest) :: cols' =>
      if card_eqb c d then Some (rest :: cols') else option_map (cons (d :: rest)) (take_top c cols')
  | [] :: cols' => option_map (cons []) (take_top c cols')
  end.

Fixpoint take_cell (c : card) (cs : list card) : option (list card) :=
  match cs with
  | [] => None
  | d :: rest => if card_eqb c d then Some rest else option_map (cons d) (take_cell c rest)
  end.

(** The position without [c], wherever it is. *)
Definition lift (s : position) (c : card) : option position :=
  match take_top c (columns s) with
  | Some cols => Some (Position (home s) (cells s) cols)
  | None =>
      match take_cell c (cells s) with
      | Some cs => Some (Position (home s) cs (columns s))
      | None =>
          if fm && (home_count (home s) (suit_of c) =? S (rank c))
          then Some (Position (set_home_count (home s) (suit_of c) (rank c)) (cells s) (columns s))
          else None
      end
  end.

Definition drop (s : position) (c : card) (d : nat) : position :=
  if d <? 8 then Position (home s) (cells s) (set_column (columns s) d (c :: nth d (columns s) []))
  else if d =? 8 then Position (home s) (add_cell c (cells s)) (columns s)
  else Position (set_home_count (home s) (suit_of c) (S (rank c))) (cells s) (columns s).

(** [t] is one of [moves s] in which [c] moved: only [c]'s pickups are put down, not every
    card's ([t] differs from [s] only where [c] is, so no other card's move can be [t]). *)
Definition is_move (s t : position) (c : card) : bool :=
  existsb (fun '(c', from, rest) =>
             card_eqb c c' && existsb (position_eqb t) (putdowns fc c' from rest))
          (pickups fm s).

Lemma is_move_in s t c : is_move s t c = true -> In t (moves fc fm s).
Proof.
  unfold is_move, moves; intros H; apply existsb_exists in H as [[[c' from] rest] [Hin H]].
  apply andb_true_iff in H as [_ H]; apply existsb_exists in H as [u [Hu Eu]].
  apply position_eqb_eq in Eu; subst u.
  apply in_flat_map; exists (c', from, rest); split; [exact Hin | exact Hu].
Qed.

Fixpoint replays (s : position) (line : list (card * nat)) : bool :=
  match line with
  | [] => won (home s)
  | (c, d) :: rest =>
      match lift s c with
      | None => false
      | Some r =>
          let t := drop r c d in
          if is_move s t c then replays t rest else false
      end
  end.

Lemma replays_won line : forall s deal_number,
  Reachable deal_number fc fm s -> replays s line = true ->
  exists w, Reachable deal_number fc fm w /\ Won w.
Proof.
  induction line as [|[c d] rest IH]; intros s dn Hs H; simpl in H.
  - exists s; split; [exact Hs | exact (won_true s H)].
  - destruct (lift s c) as [r|]; [|discriminate].
    destruct (is_move s (drop r c d) c) eqn:E; [|discriminate].
    exact (IH _ dn (reach_move dn fc fm s _ Hs (is_move_in _ _ _ E)) H).
Qed.

End Win.

Definition check_win (deal_number : N) (fc : nat) (fm : bool) (line : list (card * nat)) : bool :=
  replays fc fm (start_of deal_number) line.

Theorem win_sound deal_number fc fm line :
  check_win deal_number fc fm line = true ->
  exists s, Reachable deal_number fc fm s /\ Won s.
Proof.
  intros H; unfold check_win in H.
  rewrite start_of_eq in H.
  exact (replays_won fc fm line _ deal_number (reach_start _ fc fm) H).
Qed.

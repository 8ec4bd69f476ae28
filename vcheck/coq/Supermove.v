(** A supermove is a sequence of single-card moves.

    Rules.v's moves are single-card moves; players and solvers also move a built sequence of
    cards from one column to another at once, as many as free cells and empty columns allow.
    Here the standard supermove is stated ([supermove]) and realised by single-card moves,
    each a move of [Rules.moves] ([supermove_steps]); so a position reachable with supermoves
    is reachable with single-card moves ([supermoves_add_nothing]), and a deal that can be won
    with supermoves can be won with single-card moves ([won_with_supermoves]). *)

From VCheck Require Import Rules.
From Coq Require Import Bool Arith List NArith Lia.
Import ListNotations.

Section Supermove.
Variable number : N.
Variable fc : nat.
Variable fm : bool.

(** * Sequences of single-card moves *)

(** [t] is some single-card moves (none, or any number) away from [s]; each step is a move of
    [Rules.moves], so every position passed through is reached by legal moves. *)
Inductive Steps : position -> position -> Prop :=
  | steps_none s : Steps s s
  | steps_move s u t : In u (moves fc fm s) -> Steps u t -> Steps s t.

Lemma steps_trans s u t : Steps s u -> Steps u t -> Steps s t.
Proof. induction 1; intros; [assumption | econstructor; eauto]. Qed.

Lemma steps_one s t : In t (moves fc fm s) -> Steps s t.
Proof. intros; econstructor; [eassumption | constructor]. Qed.

(** * Columns *)

Lemma length_set_column cols i v :
  i < length cols -> length (set_column cols i v) = length cols.
Proof.
  intros H; unfold set_column; rewrite app_length, firstn_length; cbn [length].
  rewrite skipn_length; lia.
Qed.

Lemma nth_firstn_lt {A} (l : list A) i x d : x < i -> nth x (firstn i l) d = nth x l d.
Proof.
  revert i x; induction l as [|a l IH]; intros [|i] [|x] H; simpl; auto; try lia.
  apply IH; lia.
Qed.

Lemma nth_skipn_at {A} (l : list A) i x d : nth x (skipn i l) d = nth (i + x) l d.
Proof.
  revert i; induction l as [|a l IH]; intros [|i]; simpl; auto; destruct x; auto.
Qed.

Lemma nth_set_column cols i v x :
  i < length cols -> nth x (set_column cols i v) [] = if x =? i then v else nth x cols [].
Proof.
  intros H; unfold set_column.
  destruct (Nat.lt_trichotomy x i) as [L | [-> | L]].
  - rewrite app_nth1 by (rewrite firstn_length; lia).
    rewrite nth_firstn_lt by lia; destruct (Nat.eqb_spec x i); [lia | reflexivity].
  - rewrite app_nth2 by (rewrite firstn_length; lia).
    rewrite firstn_length, Nat.min_l, Nat.sub_diag, Nat.eqb_refl by lia; reflexivity.
  - rewrite app_nth2 by (rewrite firstn_length; lia).
    rewrite firstn_length, Nat.min_l by lia.
    destruct (x - i) as [|d] eqn:D; [lia|]; cbn [nth].
    rewrite nth_skipn_at; destruct (Nat.eqb_spec x i); [lia|]; f_equal; lia.
Qed.

(** Lengths of columns lists after [set_column]s. *)
Ltac lens := repeat (rewrite length_set_column by lens); lia.

(** Rewrites [nth] through every [set_column]. *)
Ltac nths := repeat (rewrite nth_set_column by lens).

(** Two column lists of the same length agreeing at every place are equal. *)
Lemma cols_ext (a b : list (list card)) :
  length a = length b -> (forall x, x < length a -> nth x a [] = nth x b []) -> a = b.
Proof. intros; apply (nth_ext _ _ [] []); auto. Qed.

(** * Single-card moves, as [Rules.moves] has them *)

Lemma move_column_column f cs cols i j c rest :
  i <> j -> i < length cols -> j < length cols -> nth i cols [] = c :: rest ->
  can_land c (nth j cols []) = true ->
  In (Position f cs (set_column (set_column cols i rest) j (c :: nth j cols [])))
     (moves fc fm (Position f cs cols)).
Proof.
  intros D I J N L; unfold moves; apply in_flat_map.
  exists (c, FromColumn i, Position f cs (set_column cols i rest)); split.
  - unfold pickups; apply in_app_iff; left; apply in_flat_map; exists i; split.
    + apply in_seq; lia.
    + rewrite N; left; reflexivity.
  - unfold putdowns; apply in_app_iff; right; apply in_app_iff; left.
    apply in_flat_map; exists j; split; [apply in_seq; lens|].
    rewrite nth_set_column by lia; destruct (Nat.eqb_spec j i); [lia|].
    unfold may_go_to_column; destruct (Nat.eqb_spec i j); [lia|]; rewrite L; simpl.
    left; reflexivity.
Qed.

Lemma move_column_cell f cs cols i c rest :
  i < length cols -> nth i cols [] = c :: rest -> length cs < fc ->
  In (Position f (insert_cell c cs) (set_column cols i rest))
     (moves fc fm (Position f cs cols)).
Proof.
  intros I N C; unfold moves; apply in_flat_map.
  exists (c, FromColumn i, Position f cs (set_column cols i rest)); split.
  - unfold pickups; apply in_app_iff; left; apply in_flat_map; exists i; split.
    + apply in_seq; lia.
    + rewrite N; left; reflexivity.
  - unfold putdowns; apply in_app_iff; right; apply in_app_iff; right.
    simpl; destruct (Nat.ltb_spec (length cs) fc); [left; reflexivity | lia].
Qed.

Lemma move_cell_column f cs others cols j c :
  In (c, others) (picks cs) -> j < length cols -> can_land c (nth j cols []) = true ->
  In (Position f others (set_column cols j (c :: nth j cols [])))
     (moves fc fm (Position f cs cols)).
Proof.
  intros P J L; unfold moves; apply in_flat_map.
  exists (c, FromCell, Position f others cols); split.
  - unfold pickups; apply in_app_iff; right; apply in_app_iff; left.
    apply in_map_iff; exists (c, others); auto.
  - unfold putdowns; apply in_app_iff; right; apply in_app_iff; left.
    apply in_flat_map; exists j; split; [apply in_seq; lia|].
    simpl; rewrite L; left; reflexivity.
Qed.

(** A card put in a free cell can be taken out again, leaving the cells as they were. *)
Lemma picks_insert_cell c cs : In (c, cs) (picks (insert_cell c cs)).
Proof.
  induction cs as [|d rest IH]; simpl; [auto|].
  destruct (card_number c <=? card_number d); simpl; [auto|].
  right; apply in_map_iff; exists (c, rest); auto.
Qed.

Lemma insert_cell_length c cs : length (insert_cell c cs) = S (length cs).
Proof.
  induction cs as [|d rest IH]; simpl; auto.
  destruct (card_number c <=? card_number d); simpl; auto.
Qed.

(** * Built sequences *)

(** A built sequence, from its top card down: each card stacks on the next. *)
Fixpoint built (l : list card) : bool :=
  match l with
  | c :: (d :: _) as rest => can_stack c d && built rest
  | _ => true
  end.

Lemma built_app l m : built (l ++ m) = true -> built l = true /\ built m = true.
Proof.
  induction l as [|a l IH]; simpl; [auto|].
  destruct l as [|b l]; simpl in *.
  - destruct m; [auto | intros H; apply andb_true_iff in H; tauto].
  - intros H; apply andb_true_iff in H as [H1 H2]; rewrite H1; apply IH; auto.
Qed.

Lemma built_land c l : l <> [] -> built (c :: l) = true -> can_land c l = true.
Proof. destruct l; [tauto|]; simpl; intros _ H; apply andb_true_iff in H; tauto. Qed.

Lemma can_land_app c l x m : can_land c (l ++ [x]) = true -> can_land c (l ++ x :: m) = true.
Proof. destruct l; auto. Qed.

(** * Moving a built sequence *)

Lemma steps_eq s f cs a b : Steps s (Position f cs a) -> a = b -> Steps s (Position f cs b).
Proof. intros H <-; exact H. Qed.

Lemma moves_eq s f cs a b : In (Position f cs a) (moves fc fm s) -> a = b ->
  In (Position f cs b) (moves fc fm s).
Proof. intros H <-; exact H. Qed.

Ltac cols_eq :=
  apply cols_ext; [lens | intros ?z ?Hz; nths;
    repeat match goal with |- context [?a =? ?b] => destruct (Nat.eqb_spec a b) end;
    subst; try lia; rewrite <- ?app_assoc; simpl; try congruence].

(** With as many free cells empty as cards above [x], the cards [pre] and [x] below them move
    from column [i] onto column [j]: [pre] into the cells, [x] across, [pre] back onto it. *)
Lemma via_cells f pre : forall cs cols i j x rest,
  i <> j -> i < length cols -> j < length cols ->
  nth i cols [] = pre ++ x :: rest -> built (pre ++ [x]) = true ->
  can_land x (nth j cols []) = true -> length pre <= fc - length cs ->
  Steps (Position f cs cols)
        (Position f cs (set_column (set_column cols i rest) j (pre ++ x :: nth j cols []))).
Proof.
  induction pre as [|c pre IH]; intros cs cols i j x rest D I J N B L C.
  - apply steps_one, move_column_column; auto.
  - cbn [length] in C.
    set (cols1 := set_column cols i (pre ++ x :: rest)).
    apply (steps_move _ (Position f (insert_cell c cs) cols1));
      [apply move_column_cell; auto; lia|].
    assert (B' : built (pre ++ [x]) = true) by exact (proj2 (built_app [c] _ B)).
    eapply steps_trans.
    { apply (IH (insert_cell c cs) cols1 i j x rest); unfold cols1; auto; try lens;
        nths; rewrite ?Nat.eqb_refl; auto.
      - destruct (Nat.eqb_spec j i); [lia | auto].
      - rewrite insert_cell_length; lia. }
    apply steps_one; unfold cols1; eapply moves_eq.
    + apply (move_cell_column _ _ _ _ j); [apply picks_insert_cell | lens |].
      nths; rewrite Nat.eqb_refl; destruct (Nat.eqb_spec j i); [lia|].
      apply can_land_app, built_land; [destruct pre; discriminate | exact B].
    + cols_eq.
Qed.

(** With the columns [es] empty as well, twice as many for each: the top part to an empty
    column [z], the rest across, the top part from [z] onto it, each with one empty column
    fewer. *)
Lemma via_empty f es : forall cs cols i j pre x rest,
  NoDup es ->
  (forall z, In z es -> z < length cols /\ z <> i /\ z <> j /\ nth z cols [] = []) ->
  i <> j -> i < length cols -> j < length cols ->
  nth i cols [] = pre ++ x :: rest -> built (pre ++ [x]) = true ->
  can_land x (nth j cols []) = true ->
  S (length pre) <= (fc - length cs + 1) * 2 ^ length es ->
  Steps (Position f cs cols)
        (Position f cs (set_column (set_column cols i rest) j (pre ++ x :: nth j cols []))).
Proof.
  induction es as [|z es IH]; intros cs cols i j pre x rest ND E D I J N B L K.
  - apply via_cells; auto; cbn [length Nat.pow] in K; lia.
  - apply NoDup_cons_iff in ND as [Z ND].
    assert (E' : forall z', In z' es -> z' < length cols /\ z' <> i /\ z' <> j /\ z' <> z /\
                                        nth z' cols [] = []).
    { intros z' H; destruct (E z' (or_intror H)) as [? [? [? ?]]]; repeat split; auto.
      intros ->; contradiction. }
    destruct (E z (or_introl eq_refl)) as [Zl [Zi [Zj Ze]]].
    set (M := (fc - length cs + 1) * 2 ^ length es) in *.
    assert (Double : (fc - length cs + 1) * 2 ^ length (z :: es) = 2 * M)
      by (unfold M; cbn [length]; rewrite Nat.pow_succ_r'; ring).
    assert (Pos : 1 <= M) by (unfold M; pose proof (Nat.pow_nonzero 2 (length es)); nia).
    rewrite Double in K; clear Double.
    destruct (Nat.le_gt_cases (S (length pre)) M) as [Small | Large].
    { apply IH; auto; intros z' H; destruct (E' z' H) as [? [? [? [? ?]]]]; auto. }
    (* pre = top ++ y :: low: [top ++ [y]] goes to [z] and back, [low ++ [x]] across. *)
    destruct (nth_split pre x (ltac:(lia) : S (length pre) - M - 1 < length pre))
      as [top [low [Ep Lt]]].
    set (y := nth (S (length pre) - M - 1) pre x) in *.
    assert (Ll : S (length low) = M)
      by (apply (f_equal (@length card)) in Ep; rewrite app_length in Ep; simpl in Ep; lia).
    rewrite Ep in N, B |- *; clear Ep.
    rewrite <- app_assoc in N; cbn [app] in N.
    rewrite <- app_assoc in B.
    assert (B2 : built ((top ++ [y]) ++ low ++ [x]) = true) by (rewrite <- app_assoc; exact B).
    destruct (built_app _ _ B2) as [Bt Bl].
    assert (Yl : can_land y (low ++ [x]) = true).
    { apply built_land; [destruct low; discriminate|].
      exact (proj2 (built_app top _ B)). }
    set (cols1 := set_column (set_column cols i (low ++ x :: rest)) z
                             (top ++ y :: nth z cols [])).
    set (cols2 := set_column (set_column cols1 i rest) j (low ++ x :: nth j cols1 [])).
    assert (S1 : Steps (Position f cs cols) (Position f cs cols1)).
    { apply IH; auto; try rewrite Ze; auto; try lia.
      intros z' H; destruct (E' z' H) as [? [? [? [? ?]]]]; auto. }
    assert (S2 : Steps (Position f cs cols1) (Position f cs cols2)).
    { apply IH; unfold cols1; auto; try lens; nths; rewrite ?Nat.eqb_refl.
      all: try (intros z' H; destruct (E' z' H) as [? [? [? [? ?]]]]; repeat split; auto;
                try lens; nths).
      all: repeat match goal with |- context [?a =? ?b] => destruct (Nat.eqb_spec a b) end;
             try lia; auto. }
    assert (S3 : Steps (Position f cs cols2)
                       (Position f cs (set_column (set_column cols2 z []) j
                                                  (top ++ y :: nth j cols2 [])))).
    { apply IH; unfold cols2, cols1; auto; try lens; nths; rewrite ?Nat.eqb_refl.
      all: try (intros z' H; destruct (E' z' H) as [? [? [? [? ?]]]]; repeat split; auto;
                try lens; nths).
      all: repeat match goal with |- context [?a =? ?b] => destruct (Nat.eqb_spec a b) end;
             try lia; rewrite ?Ze; auto; apply can_land_app; exact Yl. }
    eapply steps_eq; [exact (steps_trans _ _ _ S1 (steps_trans _ _ _ S2 S3))|].
    unfold cols2, cols1; cols_eq.
Qed.

(** * The supermove *)

Definition is_empty (column : list card) : bool :=
  match column with [] => true | _ :: _ => false end.

(** The empty columns of [cols] other than [j] (the target, if it is empty, does not count). *)
Definition empty_columns_besides (cols : list (list card)) (j : nat) : list nat :=
  filter (fun z => negb (z =? j) && is_empty (nth z cols [])) (seq 0 (length cols)).

(** The standard supermove: the cards [pre] and [x] below them, a built sequence on top of
    column [i], move at once onto column [j] (on a card [x] stacks on, or into an empty
    column), when they are at most (empty free cells + 1) * 2 ^ (empty columns other than
    [j]).  Nothing else changes. *)
Inductive supermove (s t : position) : Prop :=
  | supermove_columns i j pre x rest :
      i <> j -> i < length (columns s) -> j < length (columns s) ->
      nth i (columns s) [] = pre ++ x :: rest -> built (pre ++ [x]) = true ->
      can_land x (nth j (columns s) []) = true ->
      length (pre ++ [x])
        <= (fc - length (cells s) + 1) * 2 ^ length (empty_columns_besides (columns s) j) ->
      t = Position (home s) (cells s)
                   (set_column (set_column (columns s) i rest) j
                               (pre ++ x :: nth j (columns s) [])) ->
      supermove s t.

(** Every supermove is a sequence of single-card moves, each legal in the position it is
    made from. *)
Theorem supermove_steps s t : supermove s t -> Steps s t.
Proof.
  destruct 1 as [i j pre x rest D I J N B L K ->]; destruct s as [f cs cols]; cbn in *.
  rewrite app_length, Nat.add_comm in K; cbn [length Nat.add] in K.
  apply (via_empty f (empty_columns_besides cols j)); auto.
  - apply NoDup_filter, seq_NoDup.
  - intros z H; unfold empty_columns_besides in H; apply filter_In in H as [H E].
    apply in_seq in H; apply andb_true_iff in E as [E1 E2].
    destruct (Nat.eqb_spec z j); [discriminate|].
    destruct (nth z cols []) eqn:Z; [|discriminate].
    repeat split; auto; [lia|].
    intros ->; rewrite N in Z; destruct pre; discriminate.
Qed.

(** * Nothing is lost by single-card moves *)

(** Positions reached from deal [number]'s start by single-card moves and supermoves. *)
Inductive SReachable : position -> Prop :=
  | sreach_start : SReachable (start number)
  | sreach_move s t : SReachable s -> In t (moves fc fm s) -> SReachable t
  | sreach_supermove s t : SReachable s -> supermove s t -> SReachable t.

Lemma steps_reachable s t : Steps s t -> Reachable number fc fm s -> Reachable number fc fm t.
Proof. induction 1; intros; auto; apply IHSteps; econstructor; eauto. Qed.

Theorem supermoves_add_nothing s : SReachable s <-> Reachable number fc fm s.
Proof.
  split.
  - induction 1 as [| s t _ IH M | s t _ IH M].
    + constructor.
    + econstructor; eauto.
    + exact (steps_reachable s t (supermove_steps s t M) IH).
  - induction 1 as [| s t _ IH M]; [constructor | econstructor; eauto].
Qed.

(** A deal that can be won with supermoves can be won with single-card moves. *)
Theorem won_with_supermoves :
  (exists s, SReachable s /\ Won s) -> exists s, Reachable number fc fm s /\ Won s.
Proof. intros [s [R W]]; exists s; split; [apply supermoves_add_nothing |]; auto. Qed.

End Supermove.

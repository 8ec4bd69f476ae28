From FreeCell Require Import Rules Equality NoWin. (* template only *)
From Coq Require Import Bool Arith List NArith Sorting.Permutation. (* template only *)
Import ListNotations. (* template only *)

(** * Closing the set under every move, then safe autoplay

    The certificate's positions are closed under every move followed by safe autoplay:
    after each move, every card that Horne's rule calls safe goes home, and only the position
    after that is kept.  Those positions are not all reachable by single-card moves, and not
    every reachable position is among them, so closure alone says nothing about [Reachable];
    this part proves that it still gives the same theorem ([closed_under_autoplay]), with no
    computation.  The argument is docs/certificate-format.md's, section 8: a position [Q]
    covers [P] when [Q] is [P] with some cards taken home, each safe in [Q]'s foundations
    ([covers]).  If [Q] covers [P] and [P] moves to [P'], then [Q] covers [P'], or one move
    takes [Q] to a [Q'] that covers [P'] ([simulate]), and autoplay keeps covering
    ([aps_covers]); so every reachable position is covered by a position of the set, and a
    won position is covered only by a won one.  When [P] puts a card on one that [Q] has
    taken home, that card goes home in [Q] instead; that it may go home needs that no card is
    twice in [Q], so the search checks that the start's cards are distinct, and moves keep
    them ([ustep_cards]).  A card that a foundation move takes back from home could not be
    followed, so the search refuses foundation moves.

    The simulation takes the columns of each position as a multiset ([ustep], [same]), as
    the search's canonical order of columns does: [moves_ustep] and [ustep_moves] translate
    between [moves] and [ustep], and the canonical order is a permutation
    ([sort_columns_permutation]), so the search needs no other lemma about the order. *)

(** * Safe cards (Horne's rule) *)

(** The other foundations of [c]'s suit hold enough cards: both of the other colour at least
    [rank c - 1], the other of its colour at least [rank c - 2]. *)
Definition safe_rest (f : foundations) (c : card) : bool :=
  let r := rank c in
  match suit_of c with
  | Clubs => (r - 1 <=? diamonds f) && (r - 1 <=? hearts f) && (r - 2 <=? spades f)
  | Spades => (r - 1 <=? diamonds f) && (r - 1 <=? hearts f) && (r - 2 <=? clubs f)
  | Diamonds => (r - 1 <=? clubs f) && (r - 1 <=? spades f) && (r - 2 <=? hearts f)
  | Hearts => (r - 1 <=? clubs f) && (r - 1 <=? spades f) && (r - 2 <=? diamonds f)
  end.

(** [c] may go home, and is safe there. *)
Definition safe (f : foundations) (c : card) : bool :=
  if can_home f c then safe_rest f c else false.

Lemma safe_andb f c : safe f c = can_home f c && safe_rest f c.
Proof. unfold safe; destruct (can_home f c); reflexivity. Qed.

Definition le_home (f g : foundations) : Prop :=
  forall su, home_count f su <= home_count g su.

Lemma le_home_refl f : le_home f f.
Proof. intros su; apply Nat.le_refl. Qed.

Lemma le_home_trans f g h : le_home f g -> le_home g h -> le_home f h.
Proof. intros A B su; exact (Nat.le_trans _ _ _ (A su) (B su)). Qed.

Lemma home_count_set_same f su n : home_count (set_home_count f su n) su = n.
Proof. destruct f, su; reflexivity. Qed.

Lemma home_count_set_other f su su' n :
  su <> su' -> home_count (set_home_count f su n) su' = home_count f su'.
Proof. destruct f, su, su'; simpl; congruence. Qed.

Lemma le_home_set_l f g su n :
  le_home f g -> n <= home_count g su -> le_home (set_home_count f su n) g.
Proof. intros L H su'; pose proof (L su') as Ls; destruct su, su'; first [exact H | exact Ls]. Qed.

Lemma le_home_set_both f g su n : le_home f g -> le_home (set_home_count f su n)
                                                         (set_home_count g su n).
Proof. intros L su'; pose proof (L su') as Ls; destruct su, su'; first [apply Nat.le_refl | exact Ls]. Qed.

Lemma le_home_set f c :
  can_home f c = true -> le_home f (set_home_count f (suit_of c) (S (rank c))).
Proof.
  unfold can_home; intros E su; apply Nat.eqb_eq in E.
  destruct (suit_of c), su; simpl in *;
    first [apply Nat.le_refl | rewrite E; apply Nat.le_succ_diag_r].
Qed.

Ltac bools :=
  repeat match goal with
         | H : _ && _ = true |- _ => apply andb_true_iff in H as [? ?]
         | H : (_ <=? _) = true |- _ => apply Nat.leb_le in H
         | H : (_ =? _) = true |- _ => apply Nat.eqb_eq in H
         | |- _ && _ = true => apply andb_true_iff; split
         | |- (_ <=? _) = true => apply Nat.leb_le
         | |- (_ =? _) = true => apply Nat.eqb_eq
         end.

Lemma leb_le_trans a x y : x <= y -> (a <=? x) = true -> (a <=? y) = true.
Proof. intros L H; apply Nat.leb_le in H; apply Nat.leb_le; exact (Nat.le_trans _ _ _ H L). Qed.

(** Closes [t <= y] from a hypothesis [s <= y] or [S s < y], [t] being [s] or [s] less
    something. *)
Ltac close_le :=
  first [ assumption
        | eapply Nat.le_trans; [apply Nat.le_sub_l | assumption]
        | eapply Nat.le_trans; [apply Nat.le_sub_l | apply Nat.lt_le_incl, Nat.lt_succ_l; assumption] ].

Lemma leb3_mono a b c x y z x' y' z' : x <= x' -> y <= y' -> z <= z' ->
  (a <=? x) && (b <=? y) && (c <=? z) = true -> (a <=? x') && (b <=? y') && (c <=? z') = true.
Proof.
  intros X Y Z H; apply andb_prop in H as [H C]; apply andb_prop in H as [A B].
  rewrite (leb_le_trans _ _ _ X A), (leb_le_trans _ _ _ Y B), (leb_le_trans _ _ _ Z C).
  reflexivity.
Qed.

Lemma safe_rest_mono f g c : le_home f g -> safe_rest f c = true -> safe_rest g c = true.
Proof.
  intros L; pose proof (L Clubs) as C; pose proof (L Diamonds) as D; pose proof (L Hearts) as H;
    pose proof (L Spades) as S; cbn [home_count] in C, D, H, S.
  unfold safe_rest; destruct (suit_of c); apply leb3_mono; assumption.
Qed.

(** A card taken home in [Q] but still on the table in [P]: below its foundation's count,
    and safe. *)
Definition removed (f : foundations) (c : card) : Prop :=
  rank c < home_count f (suit_of c) /\ safe_rest f c = true.

Lemma removed_mono f g c : le_home f g -> removed f c -> removed g c.
Proof.
  intros L [H S]; split;
    [exact (Nat.lt_le_trans _ _ _ H (L (suit_of c))) | exact (safe_rest_mono _ _ _ L S)].
Qed.

Lemma removed_all_mono f g l : le_home f g -> Forall (removed f) l -> Forall (removed g) l.
Proof. intros L; apply Forall_impl; intros; eapply removed_mono; eauto. Qed.

(** A safe card, once home, is [removed]. *)
Lemma removed_homed f c :
  safe f c = true -> removed (set_home_count f (suit_of c) (S (rank c))) c.
Proof.
  rewrite safe_andb, andb_true_iff; intros [E S]; split.
  - rewrite home_count_set_same; apply Nat.lt_succ_diag_r.
  - exact (safe_rest_mono _ _ _ (le_home_set _ _ E) S).
Qed.

(** [x] would land on [e], which [Q] has taken home, and [x] is not home in [Q]: then [x] may go
    home in [Q], and is safe there. *)
Lemma below_removed f x e :
  removed f e -> can_stack x e = true -> home_count f (suit_of x) <= rank x ->
  can_home f x = true /\ removed (set_home_count f (suit_of x) (S (rank x))) x.
Proof.
  destruct x as [rx sx], e as [re se]; unfold removed, can_stack, can_home, safe_rest, red.
  destruct f as [a b c d]; cbn [rank suit_of]; intros [H1 H2] H3 H4.
  apply andb_true_iff in H3 as [H3 X]; apply Nat.eqb_eq in H3; subst re.
  destruct sx, se; simpl in *; try discriminate X; bools; rewrite ?Nat.sub_0_r in *;
    (split; [apply Nat.eqb_eq, Nat.le_antisymm; close_le |
             split; [apply Nat.lt_succ_diag_r | bools; close_le]]).
Qed.

(** * Moves, up to the order of the columns

    [ustep s t]: [t] is one move away from [s], the columns of each taken as a multiset.
    Every move of [moves] is one ([moves_ustep]), and each is a move of [moves] up to the
    order of the columns, or leaves the position as it was (a card put back where it was
    picked up: [ustep_moves]). *)

Definition same (s t : position) : Prop :=
  home s = home t /\ cells s = cells t /\ Permutation (columns s) (columns t).

Inductive ustep (s t : position) : Prop :=
  | column_home c rest O :
      Permutation (columns s) ((c :: rest) :: O) -> can_home (home s) c = true ->
      home t = set_home_count (home s) (suit_of c) (S (rank c)) -> cells t = cells s ->
      Permutation (columns t) (rest :: O) -> ustep s t
  | column_cell c rest O :
      Permutation (columns s) ((c :: rest) :: O) -> (length (cells s) <? free_cells) = true ->
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
      Permutation (columns t) ((c :: y) :: O) -> ustep s t.

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

Lemma moves_ustep s t : foundation_moves = false -> In t (moves s) -> ustep s t.
Proof.
  intros Fm; destruct s as [f cs cols]; unfold moves; rewrite in_flat_map.
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
    + destruct (length cs <? free_cells) eqn:E; simpl in Hd; [|destruct Hd].
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
  - rewrite Fm in Hp; destruct Hp.
Qed.

Lemma same_sym s t : same s t -> same t s.
Proof. intros [Eh [Ec P]]; repeat split; auto; apply Permutation_sym, P. Qed.

Lemma same_canonical s : same s (canonical s).
Proof. repeat split; apply Permutation_sym, sort_columns_permutation. Qed.

(** Where a column of a position is, by its number. *)
Lemma column_at (cols : list (list card)) col O :
  Permutation cols (col :: O) ->
  exists i, i < length cols /\ nth i cols [] = col /\
            forall v, Permutation (set_column cols i v) (v :: O).
Proof.
  intros P.
  destruct (In_nth cols col [] (Permutation_in _ (Permutation_sym P) (in_eq _ _))) as [i [Hi N]].
  destruct (pick_column cols i Hi) as [O' [P' Q']]; rewrite N in P'.
  exists i; repeat split; auto; intros v.
  exact (perm_trans (Q' v) (perm_skip v (Permutation_cons_inv (perm_trans (Permutation_sym P') P)))).
Qed.

(** A column among the others than column [i] has a number other than [i]. *)
Lemma other_column (cols : list (list card)) i col y O :
  i < length cols -> nth i cols [] = col -> Permutation cols (col :: O) -> In y O ->
  exists j, j < length cols /\ j <> i /\ nth j cols [] = y.
Proof.
  intros Hi N P Y; destruct (nth_split cols [] Hi) as [l1 [l2 [E <-]]]; rewrite N in E.
  rewrite E in P; apply Permutation_sym, Permutation_cons_app_inv in P.
  apply (Permutation_in _ P), in_app_or in Y as [Y | Y];
    apply (In_nth _ _ []) in Y as [k [Hk Nk]]; subst cols; rewrite app_length; cbn [length].
  - exists k; rewrite app_nth1 by exact Hk; refine (conj _ (conj (Nat.lt_neq _ _ Hk) Nk)).
    exact (Nat.lt_le_trans _ _ _ Hk (Nat.le_add_r _ _)).
  - exists (length l1 + S k); rewrite app_nth2_plus; refine (conj _ (conj _ Nk)).
    + apply Nat.add_lt_mono_l, le_n_S, Hk.
    + apply Nat.neq_sym, Nat.lt_neq, Nat.lt_add_pos_r, Nat.lt_0_succ.
Qed.

Lemma ustep_moves s t : ustep s t -> same s t \/ exists t', In t' (moves s) /\ same t t'.
Proof.
  destruct s as [f cs cols].
  destruct 1 as [c rest O P E Eh Ec Pt | c rest O P E Eh Ec Pt
                | c rest y O1 O2 P P2 L Eh Ec Pt | c others Hin E Eh Ec Pt
                | c others y O Hin P L Eh Ec Pt]; cbn [home cells columns] in *.
  - destruct (column_at _ _ _ P) as [i [Hi [N Q]]]; right.
    exists (Position (set_home_count f (suit_of c) (S (rank c))) cs (set_column cols i rest)).
    split; [|repeat split; simpl; auto; exact (perm_trans Pt (Permutation_sym (Q rest)))].
    apply in_moves; exists c, (FromColumn i), (Position f cs (set_column cols i rest)); split.
    + apply in_pickups; left; exists i, rest; auto.
    + apply in_putdowns; left; split; [exact E | reflexivity].
  - destruct (column_at _ _ _ P) as [i [Hi [N Q]]]; right.
    exists (Position f (insert_cell c cs) (set_column cols i rest)).
    split; [|repeat split; simpl; auto; exact (perm_trans Pt (Permutation_sym (Q rest)))].
    apply in_moves; exists c, (FromColumn i), (Position f cs (set_column cols i rest)); split.
    + apply in_pickups; left; exists i, rest; auto.
    + apply in_putdowns; right; right; split; [exact E | reflexivity].
  - destruct (column_at _ _ _ P) as [i [Hi [N Q]]].
    pose proof (perm_trans (Q rest) P2) as Pr.
    assert (Y0 : In y (rest :: O1)) by exact (Permutation_in _ (Permutation_sym P2) (in_eq y O2)).
    destruct Y0 as [<- | Y].
    + (* the card put back where it was picked up *)
      left; refine (conj (eq_sym Eh) (conj (eq_sym Ec) _)); simpl.
      exact (perm_trans P (perm_trans (perm_skip _ (Permutation_cons_inv P2))
                                      (Permutation_sym Pt))).
    + destruct (other_column _ _ _ _ _ Hi N P Y) as [j [Hj [D Nj]]].
      set (r := set_column cols i rest).
      assert (Nr : nth j r [] = y) by (unfold r; rewrite nth_set_column, (proj2 (Nat.eqb_neq j i));
                                        auto).
      assert (Hr : j < length r) by (unfold r; rewrite length_set_column; auto).
      destruct (pick_column r j Hr) as [O' [P' Q']]; rewrite Nr in P'.
      right; exists (Position f cs (set_column r j (c :: y))); split.
      * apply in_moves; exists c, (FromColumn i), (Position f cs r); split.
        -- apply in_pickups; left; exists i, rest; auto.
        -- apply in_putdowns; right; left; exists j; rewrite Nr; repeat split; auto.
           simpl; rewrite (proj2 (Nat.eqb_neq i j)) by auto; exact L.
      * repeat split; auto; simpl; refine (perm_trans Pt (Permutation_sym (perm_trans (Q' _) _))).
        exact (perm_skip _ (Permutation_cons_inv (perm_trans (Permutation_sym P') Pr))).
  - right; exists (Position (set_home_count f (suit_of c) (S (rank c))) others cols).
    split; [|repeat split; auto].
    apply in_moves; exists c, FromCell, (Position f others cols); split.
    + apply in_pickups; right; left; split; [reflexivity | exists others; auto].
    + apply in_putdowns; left; split; [exact E | reflexivity].
  - destruct (column_at _ _ _ P) as [j [Hj [N Q]]]; right.
    exists (Position f others (set_column cols j (c :: y))).
    split; [|repeat split; simpl; auto; exact (perm_trans Pt (Permutation_sym (Q _)))].
    apply in_moves; exists c, FromCell, (Position f others cols); split.
    + apply in_pickups; right; left; split; [reflexivity | exists others; auto].
    + apply in_putdowns; right; left; exists j; rewrite N; repeat split; auto.
Qed.

(** * The cards of a position *)

Definition suit_cards (n : nat) (su : suit) : list card := map (fun r => Card r su) (seq 0 n).

Definition home_cards (f : foundations) : list card :=
  suit_cards (clubs f) Clubs ++ suit_cards (diamonds f) Diamonds
  ++ suit_cards (hearts f) Hearts ++ suit_cards (spades f) Spades.

Definition all_cards (s : position) : list card :=
  home_cards (home s) ++ cells s ++ concat (columns s).

Lemma in_home_cards f c : In c (home_cards f) <-> rank c < home_count f (suit_of c).
Proof.
  destruct c as [r su]; unfold home_cards, suit_cards; rewrite !in_app_iff, !in_map_iff.
  split.
  - intros [[r' [E H]] | [[r' [E H]] | [[r' [E H]] | [r' [E H]]]]];
      injection E as <- <-; apply in_seq in H; exact (proj2 H).
  - simpl; intros H; destruct su;
      [left | right; left | right; right; left | right; right; right];
      (exists r; split; [reflexivity | apply in_seq; split; [apply Nat.le_0_l | exact H]]).
Qed.

Lemma home_cards_split f su : exists pre post, forall n,
  home_cards (set_home_count f su n) = pre ++ suit_cards n su ++ post.
Proof.
  destruct f as [a b c d], su; unfold home_cards; simpl.
  - exists [], (suit_cards b Diamonds ++ suit_cards c Hearts ++ suit_cards d Spades); auto.
  - exists (suit_cards a Clubs), (suit_cards c Hearts ++ suit_cards d Spades); auto.
  - exists (suit_cards a Clubs ++ suit_cards b Diamonds), (suit_cards d Spades); intros n.
    rewrite <- app_assoc; reflexivity.
  - exists (suit_cards a Clubs ++ suit_cards b Diamonds ++ suit_cards c Hearts), []; intros n.
    rewrite app_nil_r, <- !app_assoc; reflexivity.
Qed.

Lemma set_home_count_same f su : set_home_count f su (home_count f su) = f.
Proof. destruct f, su; reflexivity. Qed.

Lemma home_cards_set f c :
  can_home f c = true ->
  Permutation (home_cards (set_home_count f (suit_of c) (S (rank c)))) (c :: home_cards f).
Proof.
  unfold can_home; intros E; apply Nat.eqb_eq in E.
  destruct (home_cards_split f (suit_of c)) as [pre [post H]].
  rewrite <- (set_home_count_same f (suit_of c)) at 2; rewrite !H, E.
  unfold suit_cards at 1; rewrite seq_S, map_app; fold (suit_cards (rank c) (suit_of c)).
  rewrite <- app_assoc; simpl; rewrite !app_assoc.
  destruct c; apply Permutation_sym, Permutation_middle.
Qed.

Lemma Permutation_concat {A} (l m : list (list A)) :
  Permutation l m -> Permutation (concat l) (concat m).
Proof.
  induction 1; simpl; auto.
  - apply Permutation_app_head; auto.
  - rewrite !app_assoc; apply Permutation_app_tail, Permutation_app_comm.
  - eapply perm_trans; eauto.
Qed.

Lemma insert_cell_perm c cs : Permutation (insert_cell c cs) (c :: cs).
Proof.
  induction cs as [|d rest IH]; simpl; auto.
  destruct (card_number c <=? card_number d); auto.
  exact (perm_trans (perm_skip d IH) (perm_swap c d rest)).
Qed.

Lemma picks_perm (l : list card) c others : In (c, others) (picks l) -> Permutation l (c :: others).
Proof.
  revert c others; induction l as [|a l IH]; simpl; intros c others; [tauto|].
  intros [E | H]; [injection E as <- <-; auto|].
  apply in_map_iff in H as [[y o] [E H]]; injection E as <- <-.
  exact (perm_trans (perm_skip a (IH _ _ H)) (perm_swap y a o)).
Qed.

Lemma in_picks (l : list card) c : In c l -> exists others, In (c, others) (picks l).
Proof.
  induction l as [|a l IH]; simpl; [tauto|]; intros [-> | H]; [exists l; left; auto|].
  destruct (IH H) as [o Ho]; exists (a :: o); right; apply in_map_iff; exists (c, o); auto.
Qed.

Lemma nodup_disjoint {A} (l m : list A) x : NoDup (l ++ m) -> In x l -> In x m -> False.
Proof.
  induction l as [|a l IH]; simpl; [tauto|]; intros N [-> | H] Hm.
  - apply NoDup_cons_iff in N as [N _]; apply N, in_app_iff; auto.
  - apply NoDup_cons_iff in N as [_ N]; exact (IH N H Hm).
Qed.

(** A card on the table is not home, in a position whose cards are distinct. *)
Lemma table_not_home s x :
  NoDup (all_cards s) -> In x (cells s ++ concat (columns s)) ->
  home_count (home s) (suit_of x) <= rank x.
Proof.
  intros N H; destruct (Nat.le_gt_cases (home_count (home s) (suit_of x)) (rank x)) as [L|L];
    [exact L|].
  apply in_home_cards in L; destruct (nodup_disjoint _ _ _ N L H).
Qed.

Lemma top_on_table s x rest O :
  Permutation (columns s) ((x :: rest) :: O) -> In x (cells s ++ concat (columns s)).
Proof.
  intros P; apply in_app_iff; right.
  apply (Permutation_in _ (Permutation_sym (Permutation_concat _ _ P))); left; auto.
Qed.

Lemma cell_on_table s x : In x (cells s) -> In x (cells s ++ concat (columns s)).
Proof. intros; apply in_app_iff; auto. Qed.

Lemma perm_all (h c l h' c' l' : list card) :
  Permutation h h' -> Permutation c c' -> Permutation l l' ->
  Permutation (h ++ c ++ l) (h' ++ c' ++ l').
Proof. intros; repeat apply Permutation_app; auto. Qed.

Lemma perm_out_column (h c l : list card) x : Permutation (h ++ c ++ x :: l) (x :: h ++ c ++ l).
Proof. rewrite app_assoc, app_assoc; apply Permutation_sym, Permutation_middle. Qed.

Lemma perm_out_cell (h c l : list card) x : Permutation (h ++ x :: c ++ l) (x :: h ++ c ++ l).
Proof. apply Permutation_sym, Permutation_middle. Qed.

(** Moves keep the cards (without foundation moves). *)
Lemma ustep_cards s t : ustep s t -> Permutation (all_cards s) (all_cards t).
Proof.
  unfold all_cards.
  destruct 1 as [c rest O P E Et Ct Pt | c rest O P E Et Ct Pt
                | c rest y O1 O2 P P2 L Et Ct Pt | c others Hin E Et Ct Pt
                | c others y O Hin P L Et Ct Pt]; rewrite ?Et, ?Ct;
    pose proof (Permutation_concat _ _ Pt) as PCt; simpl in PCt.
  - pose proof (Permutation_concat _ _ P) as PC; simpl in PC.
    eapply perm_trans; [apply perm_all; [reflexivity | reflexivity | exact PC]|].
    eapply perm_trans; [apply perm_out_column|].
    change (Permutation ((c :: home_cards (home s)) ++ cells s ++ rest ++ concat O)
                        (home_cards (set_home_count (home s) (suit_of c) (S (rank c)))
                         ++ cells s ++ concat (columns t))).
    apply perm_all; [apply Permutation_sym, home_cards_set, E | reflexivity |
                     apply Permutation_sym, PCt].
  - pose proof (Permutation_concat _ _ P) as PC; simpl in PC.
    eapply perm_trans; [apply perm_all; [reflexivity | reflexivity | exact PC]|].
    eapply perm_trans; [apply perm_out_column|].
    eapply perm_trans; [apply Permutation_sym, perm_out_cell|].
    apply (perm_all _ (c :: cells s)); [reflexivity | apply Permutation_sym, insert_cell_perm |
                     apply Permutation_sym, PCt].
  - pose proof (Permutation_concat _ _ P) as PC; simpl in PC.
    pose proof (Permutation_concat _ _ P2) as PC2; simpl in PC2.
    apply perm_all; [reflexivity | reflexivity|].
    exact (perm_trans PC (perm_trans (perm_skip c PC2) (Permutation_sym PCt))).
  - eapply perm_trans; [apply perm_all; [reflexivity | apply (picks_perm _ _ _ Hin) |
                                         reflexivity]|].
    eapply perm_trans; [apply perm_out_cell|].
    change (Permutation ((c :: home_cards (home s)) ++ others ++ concat (columns s))
                        (home_cards (set_home_count (home s) (suit_of c) (S (rank c)))
                         ++ others ++ concat (columns t))).
    apply perm_all; [apply Permutation_sym, home_cards_set, E | reflexivity |
                     apply Permutation_sym, PCt].
  - pose proof (Permutation_concat _ _ P) as PC; simpl in PC.
    eapply perm_trans; [apply perm_all; [reflexivity | apply (picks_perm _ _ _ Hin) |
                                         exact PC]|].
    eapply perm_trans; [apply perm_out_cell|].
    eapply perm_trans; [apply Permutation_sym, perm_out_column|].
    apply perm_all; [reflexivity | reflexivity | apply Permutation_sym, PCt].
Qed.

(** * Covering *)

(** [q] is [p] with some cards, each taken home in [f], off its top. *)
Definition colcov (f : foundations) (p q : list card) : Prop :=
  exists pre, p = pre ++ q /\ Forall (removed f) pre.

(** [Q] covers [P]: [Q] is [P] with some cards taken home, each safe in [Q]'s foundations;
    both positions' columns up to their order. *)
Definition covers (P Q : position) : Prop :=
  le_home (home P) (home Q) /\
  (exists D, Permutation (cells P) (cells Q ++ D) /\ Forall (removed (home Q)) D) /\
  (exists Pc Qc, Permutation (columns P) Pc /\ Permutation (columns Q) Qc /\
                 Forall2 (colcov (home Q)) Pc Qc).

Lemma colcov_mono f g p q : le_home f g -> colcov f p q -> colcov g p q.
Proof. intros L [pre [E F]]; exists pre; split; [exact E | exact (removed_all_mono _ _ _ L F)]. Qed.

Lemma cols_mono f g Pc Qc :
  le_home f g -> Forall2 (colcov f) Pc Qc -> Forall2 (colcov g) Pc Qc.
Proof. intros L; induction 1; constructor; eauto using colcov_mono. Qed.

Lemma covers_refl P : covers P P.
Proof.
  split; [apply le_home_refl | split].
  - exists []; rewrite app_nil_r; auto.
  - exists (columns P), (columns P); repeat split; auto.
    induction (columns P); constructor; auto; exists []; auto.
Qed.

Lemma covers_same P Q Q' : covers P Q -> same Q Q' -> covers P Q'.
Proof.
  intros [L [[D [PD FD]] [Pc [Qc [PP [PQ F]]]]]] [Eh [Ec Pq]]; unfold covers; rewrite <- Eh, <- Ec.
  split; [exact L | split; [exists D; auto|]].
  exists Pc, Qc; repeat split; auto; exact (perm_trans (Permutation_sym Pq) PQ).
Qed.

(** One column of [P] (of [Q]), and the column of [Q] (of [P]) it is paired with. *)
Lemma pick_l {A B} (R : A -> B -> Prop) Pc Qc p Po :
  Forall2 R Pc Qc -> Permutation Pc (p :: Po) ->
  exists q Qo, Permutation Qc (q :: Qo) /\ R p q /\ Forall2 R Po Qo.
Proof.
  intros F P; destruct (Permutation_Forall2 P F) as [Qc' [PQ F']].
  inversion F' as [|a b Po' Qo Rpq FPo]; subst; eauto.
Qed.

Lemma Forall2_flip {A B} (R : A -> B -> Prop) l m :
  Forall2 R l m -> Forall2 (fun b a => R a b) m l.
Proof. induction 1; constructor; auto. Qed.

Lemma pick_r {A B} (R : A -> B -> Prop) Pc Qc q Qo :
  Forall2 R Pc Qc -> Permutation Qc (q :: Qo) ->
  exists p Po, Permutation Pc (p :: Po) /\ R p q /\ Forall2 R Po Qo.
Proof.
  intros F P; destruct (pick_l _ _ _ _ _ (Forall2_flip _ _ _ F) P) as [p [Po [PP [Rpq F']]]].
  exists p, Po; repeat split; auto; apply Forall2_flip in F'; exact F'.
Qed.

Lemma covers_column P Q p Po :
  covers P Q -> Permutation (columns P) (p :: Po) ->
  exists q Qo, Permutation (columns Q) (q :: Qo) /\ colcov (home Q) p q /\
               Forall2 (colcov (home Q)) Po Qo.
Proof.
  intros [_ [_ [Pc [Qc [PP [PQ F]]]]]] Pp.
  destruct (pick_l _ _ _ p Po F (perm_trans (Permutation_sym PP) Pp)) as [q [Qo [Pq [R F']]]].
  exists q, Qo; repeat split; auto; exact (perm_trans PQ Pq).
Qed.

(** Where a card of [P]'s free cells is in [Q]: in [Q]'s free cells, or home. *)
Lemma covers_cell P Q x others :
  covers P Q -> In (x, others) (picks (cells P)) ->
  (exists othersQ, In (x, othersQ) (picks (cells Q)) /\
     exists D, Permutation others (othersQ ++ D) /\ Forall (removed (home Q)) D)
  \/ (removed (home Q) x /\
      exists D, Permutation others (cells Q ++ D) /\ Forall (removed (home Q)) D).
Proof.
  intros [_ [[D [PD FD]] _]] Hin; pose proof (picks_perm _ _ _ Hin) as Px.
  assert (I : In x (cells Q ++ D))
    by (apply (Permutation_in _ PD), (Permutation_in _ (Permutation_sym Px)); left; auto).
  apply in_app_or in I as [I | I].
  - left; destruct (in_picks _ _ I) as [oQ HoQ]; exists oQ; split; [exact HoQ|].
    exists D; split; [|exact FD].
    apply Permutation_cons_inv with x.
    exact (perm_trans (Permutation_sym Px) (perm_trans PD
             (Permutation_app_tail _ (picks_perm _ _ _ HoQ)))).
  - right; apply in_split in I as [D1 [D2 ->]].
    apply Forall_app in FD as [F1 F2]; inversion F2 as [|a b Rx F2']; subst.
    split; [exact Rx|]; exists (D1 ++ D2); split; [| apply Forall_app; auto].
    apply Permutation_cons_inv with x.
    refine (perm_trans (Permutation_sym Px) (perm_trans PD _)).
    rewrite !app_assoc; apply Permutation_sym, Permutation_middle.
Qed.

(** * Following a move *)

Lemma simulate P P' Q :
  covers P Q -> NoDup (all_cards Q) -> ustep P P' ->
  covers P' Q \/ exists Q', ustep Q Q' /\ covers P' Q'.
Proof.
  intros Cov N U; pose proof Cov as [Lh [[D [PD FD]] _]].
  destruct U as [x rest O P1 E Eh Ec Pt | x rest O P1 E Eh Ec Pt
                | x rest y O1 O2 P1 P2 L Eh Ec Pt | x others Hin E Eh Ec Pt
                | x others y O Hin P1 L Eh Ec Pt].
  - (* x from a column home *)
    destruct (covers_column _ _ _ _ Cov P1) as [q [Qo [Pq [[pre [Ep Fp]] F]]]].
    destruct pre as [|z pre]; simpl in Ep; [subst q|].
    + (* x is on its column in Q: it goes home there too *)
      assert (CH : can_home (home Q) x = true).
      { pose proof (table_not_home _ _ N (top_on_table _ _ _ _ Pq)) as T.
        pose proof (Lh (suit_of x)) as Ls; unfold can_home in *; bools.
        apply Nat.le_antisymm; [exact T | rewrite <- E; exact Ls]. }
      right; exists (Position (set_home_count (home Q) (suit_of x) (S (rank x))) (cells Q)
                               (rest :: Qo)); split.
      * eapply column_home; simpl; eauto.
      * pose proof (le_home_set _ _ CH) as LQ; unfold covers; simpl; rewrite Eh, Ec; split;
          [apply le_home_set_both, Lh | split].
        -- exists D; split; [exact PD | exact (removed_all_mono _ _ _ LQ FD)].
        -- exists (rest :: O), (rest :: Qo); repeat split; auto.
           constructor; [exists []; auto | exact (cols_mono _ _ _ _ LQ F)].
    + (* x was home in Q *)
      injection Ep as <- Er; apply Forall_cons_iff in Fp as [Rx Fp'].
      left; unfold covers; rewrite Eh, Ec; split;
        [apply le_home_set_l; [exact Lh | exact (proj1 Rx)] | split].
      * exists D; auto.
      * exists (rest :: O), (q :: Qo); repeat split; auto.
        constructor; [exists pre; auto | exact F].
  - (* x from a column to a free cell *)
    destruct (covers_column _ _ _ _ Cov P1) as [q [Qo [Pq [[pre [Ep Fp]] F]]]].
    destruct pre as [|z pre]; simpl in Ep; [subst q|].
    + right; exists (Position (home Q) (insert_cell x (cells Q)) (rest :: Qo)); split.
      * apply (column_cell Q _ x rest Qo Pq); [|reflexivity | reflexivity | apply Permutation_refl].
        apply Nat.ltb_lt; apply Nat.ltb_lt in E.
        pose proof (Permutation_length PD) as LD; rewrite app_length in LD; rewrite LD in E.
        exact (Nat.le_lt_trans _ _ _ (Nat.le_add_r _ _) E).
      * unfold covers; simpl; rewrite Eh, Ec; split; [exact Lh | split].
        -- exists D; split; [|exact FD].
           refine (perm_trans (insert_cell_perm _ _) (perm_trans (perm_skip x PD) _)).
           exact (Permutation_app_tail _ (Permutation_sym (insert_cell_perm _ _))).
        -- exists (rest :: O), (rest :: Qo); repeat split; auto.
           constructor; [exists []; auto | exact F].
    + injection Ep as <- Er; apply Forall_cons_iff in Fp as [Rx Fp'].
      left; unfold covers; rewrite Eh, Ec; split; [exact Lh | split].
      * exists (x :: D); split; [|constructor; auto].
        exact (perm_trans (insert_cell_perm _ _) (perm_trans (perm_skip x PD)
                 (Permutation_middle _ _ _))).
      * exists (rest :: O), (q :: Qo); repeat split; auto.
        constructor; [exists pre; auto | exact F].
  - (* x from a column onto a column *)
    destruct (covers_column _ _ _ _ Cov P1) as [q [Qo1 [Pq [[pre [Ep Fp]] F]]]].
    destruct pre as [|z pre]; simpl in Ep; [subst q|].
    + (* x is on its column in Q *)
      assert (F1 : Forall2 (colcov (home Q)) (rest :: O1) (rest :: Qo1))
        by (constructor; [exists []; auto | exact F]).
      destruct (pick_l _ _ _ _ _ F1 P2) as [qy [Qo2 [Py [[prey [Ey Fy]] F2]]]].
      destruct prey as [|e prey]; simpl in Ey; [subst qy|].
      * right; exists (Position (home Q) (cells Q) ((x :: y) :: Qo2)); split.
        -- eapply column_column; simpl; eauto.
        -- unfold covers; simpl; rewrite Eh, Ec; split; [exact Lh | split]; [exists D; auto|].
           exists ((x :: y) :: O2), ((x :: y) :: Qo2); repeat split; auto.
           constructor; [exists []; auto | exact F2].
      * (* x would land on e, which Q has taken home: x goes home in Q *)
        subst y; apply Forall_cons_iff in Fy as [Re Fy'].
        destruct (below_removed _ x e Re L
                    (table_not_home _ _ N (top_on_table _ _ _ _ Pq))) as [CH Rx].
        pose proof (le_home_set _ _ CH) as LQ.
        right; exists (Position (set_home_count (home Q) (suit_of x) (S (rank x))) (cells Q)
                                 (rest :: Qo1)); split.
        -- eapply column_home; simpl; eauto.
        -- unfold covers; simpl; rewrite Eh, Ec; split; [exact (le_home_trans _ _ _ Lh LQ) | split].
           ++ exists D; split; [exact PD | exact (removed_all_mono _ _ _ LQ FD)].
           ++ exists ((x :: e :: prey ++ qy) :: O2), (qy :: Qo2); repeat split; auto.
              constructor; [|exact (cols_mono _ _ _ _ LQ F2)].
              exists (x :: e :: prey); split; [reflexivity|].
              constructor; [exact Rx | constructor];
                [exact (removed_mono _ _ _ LQ Re) | exact (removed_all_mono _ _ _ LQ Fy')].
    + (* x was home in Q *)
      injection Ep as <- Er; apply Forall_cons_iff in Fp as [Rx Fp'].
      assert (F1 : Forall2 (colcov (home Q)) (rest :: O1) (q :: Qo1))
        by (constructor; [exists pre; auto | exact F]).
      destruct (pick_l _ _ _ _ _ F1 P2) as [qy [Qo2 [Py [[prey [Ey Fy]] F2]]]].
      left; unfold covers; rewrite Eh, Ec; split; [exact Lh | split]; [exists D; auto|].
      exists ((x :: y) :: O2), (qy :: Qo2); repeat split; auto.
      * exact (perm_trans Pq Py).
      * constructor; [|exact F2]; exists (x :: prey); subst y; split; auto.
  - (* x from a free cell home *)
    destruct (covers_cell _ _ _ _ Cov Hin) as [[oQ [HoQ [D' [PD' FD']]]] | [Rx [D' [PD' FD']]]].
    + assert (CH : can_home (home Q) x = true).
      { pose proof (table_not_home _ _ N (cell_on_table _ _ (Permutation_in _
          (Permutation_sym (picks_perm _ _ _ HoQ)) (in_eq _ _)))) as T.
        pose proof (Lh (suit_of x)) as Ls; unfold can_home in *; bools.
        apply Nat.le_antisymm; [exact T | rewrite <- E; exact Ls]. }
      pose proof (le_home_set _ _ CH) as LQ.
      right; exists (Position (set_home_count (home Q) (suit_of x) (S (rank x))) oQ
                               (columns Q)); split.
      * eapply cell_home; simpl; eauto.
      * destruct Cov as [_ [_ [Pc [Qc [PP [PQ F]]]]]].
        unfold covers; simpl; rewrite Eh, Ec; split; [apply le_home_set_both, Lh | split].
        -- exists D'; split; [exact PD' | exact (removed_all_mono _ _ _ LQ FD')].
        -- exists Pc, Qc; repeat split; auto; [exact (perm_trans Pt PP) |
                                               exact (cols_mono _ _ _ _ LQ F)].
    + destruct Cov as [_ [_ [Pc [Qc [PP [PQ F]]]]]].
      left; unfold covers; rewrite Eh, Ec; split;
        [apply le_home_set_l; [exact Lh | exact (proj1 Rx)] | split].
      * exists D'; auto.
      * exists Pc, Qc; repeat split; auto; exact (perm_trans Pt PP).
  - (* x from a free cell onto a column *)
    destruct (covers_column _ _ _ _ Cov P1) as [qy [Qo [Py [[prey [Ey Fy]] F]]]].
    destruct (covers_cell _ _ _ _ Cov Hin) as [[oQ [HoQ [D' [PD' FD']]]] | [Rx [D' [PD' FD']]]].
    + destruct prey as [|e prey]; simpl in Ey; [subst y|].
      * right; exists (Position (home Q) oQ ((x :: qy) :: Qo)); split.
        -- eapply cell_column; simpl; eauto.
        -- unfold covers; simpl; rewrite Eh, Ec; split; [exact Lh | split]; [exists D'; auto|].
           exists ((x :: qy) :: O), ((x :: qy) :: Qo); repeat split; auto.
           constructor; [exists []; auto | exact F].
      * subst y; apply Forall_cons_iff in Fy as [Re Fy'].
        destruct (below_removed _ x e Re L (table_not_home _ _ N (cell_on_table _ _
                    (Permutation_in _ (Permutation_sym (picks_perm _ _ _ HoQ)) (in_eq _ _)))))
          as [CH Rx].
        pose proof (le_home_set _ _ CH) as LQ.
        right; exists (Position (set_home_count (home Q) (suit_of x) (S (rank x))) oQ
                                 (columns Q)); split.
        -- eapply cell_home; simpl; eauto.
        -- unfold covers; simpl; rewrite Eh, Ec; split; [exact (le_home_trans _ _ _ Lh LQ) | split].
           ++ exists D'; split; [exact PD' | exact (removed_all_mono _ _ _ LQ FD')].
           ++ exists ((x :: e :: prey ++ qy) :: O), (qy :: Qo); repeat split; auto.
              constructor; [|exact (cols_mono _ _ _ _ LQ F)].
              exists (x :: e :: prey); split; [reflexivity|].
              constructor; [exact Rx | constructor];
                [exact (removed_mono _ _ _ LQ Re) | exact (removed_all_mono _ _ _ LQ Fy')].
    + left; unfold covers; rewrite Eh, Ec; split; [exact Lh | split]; [exists D'; auto|].
      exists ((x :: y) :: O), (qy :: Qo); repeat split; auto.
      constructor; [|exact F]; exists (x :: prey); subst y; split; auto.
Qed.

(** * Autoplay, as moves *)

(** One step of autoplay: a safe card, a column's top or in a free cell, goes home. *)
Inductive ap_step (s t : position) : Prop :=
  | ap_column c rest O :
      Permutation (columns s) ((c :: rest) :: O) -> safe (home s) c = true ->
      home t = set_home_count (home s) (suit_of c) (S (rank c)) -> cells t = cells s ->
      Permutation (columns t) (rest :: O) -> ap_step s t
  | ap_cell c others :
      In (c, others) (picks (cells s)) -> safe (home s) c = true ->
      home t = set_home_count (home s) (suit_of c) (S (rank c)) -> cells t = others ->
      Permutation (columns t) (columns s) -> ap_step s t.

Inductive aps : position -> position -> Prop :=
  | aps_refl s : aps s s
  | aps_next s t u : ap_step s t -> aps t u -> aps s u.

Lemma ap_step_ustep s t : ap_step s t -> ustep s t.
Proof.
  destruct 1 as [c rest O P S Eh Ec Pt | c others Hin S Eh Ec Pt];
    rewrite safe_andb in S; apply andb_true_iff in S as [S _].
  - eapply column_home; eauto.
  - eapply cell_home; eauto.
Qed.

Lemma aps_cards s t : aps s t -> Permutation (all_cards s) (all_cards t).
Proof.
  induction 1; auto.
  exact (perm_trans (ustep_cards _ _ (ap_step_ustep _ _ H)) IHaps).
Qed.

(** Autoplay keeps covering. *)
Lemma ap_step_covers P s t : covers P s -> ap_step s t -> covers P t.
Proof.
  intros [L [[D [PD FD]] [Pc [Qc [PP [PQ F]]]]]].
  destruct 1 as [c rest O P1 S Eh Ec Pt | c others Hin S Eh Ec Pt];
    pose proof S as S'; rewrite safe_andb in S'; apply andb_true_iff in S' as [CH _];
    pose proof (le_home_set _ _ CH) as LQ; pose proof (removed_homed _ _ S) as Rc;
    unfold covers; rewrite Eh, ?Ec; (split; [exact (le_home_trans _ _ _ L LQ) | split]).
  - exists D; split; [exact PD | exact (removed_all_mono _ _ _ LQ FD)].
  - destruct (pick_r _ _ _ _ _ F (perm_trans (Permutation_sym PQ) P1))
      as [p [Po [Pp [[pre [Ep Fp]] F']]]].
    exists (p :: Po), (rest :: O); repeat split; auto.
    + exact (perm_trans PP Pp).
    + constructor; [|exact (cols_mono _ _ _ _ LQ F')].
      exists (pre ++ [c]); rewrite <- app_assoc; split; [exact Ep|].
      apply Forall_app; split; [exact (removed_all_mono _ _ _ LQ Fp) | constructor; auto].
  - exists (c :: D); split; [|constructor; [exact Rc | exact (removed_all_mono _ _ _ LQ FD)]].
    exact (perm_trans PD (perm_trans (Permutation_app_tail _ (picks_perm _ _ _ Hin))
                                     (Permutation_middle _ _ _))).
  - exists Pc, Qc; repeat split; auto.
    + exact (perm_trans Pt PQ).
    + exact (cols_mono _ _ _ _ LQ F).
Qed.

Lemma aps_covers P s t : aps s t -> covers P s -> covers P t.
Proof. induction 1; eauto using ap_step_covers. Qed.

(** Positions whose columns are the same up to their order have the same cards. *)
Lemma same_cards s t : same s t -> Permutation (all_cards s) (all_cards t).
Proof.
  intros [Eh [Ec P]]; unfold all_cards; rewrite Eh, Ec.
  apply perm_all; auto; exact (Permutation_concat _ _ P).
Qed.

(** Distinct cards, as a boolean. *)
Fixpoint distinct (l : list card) : bool :=
  match l with
  | [] => true
  | c :: rest => negb (existsb (card_eqb c) rest) && distinct rest
  end.

Lemma distinct_nodup l : distinct l = true -> NoDup l.
Proof.
  induction l as [|c rest IH]; simpl; [constructor|]; rewrite andb_true_iff, negb_true_iff.
  intros [H D]; constructor; [|exact (IH D)].
  intros I; assert (E : existsb (card_eqb c) rest = true)
    by (apply existsb_exists; exists c; split; [exact I | apply card_eqb_eq; auto]).
  congruence.
Qed.

(** All four foundations full (or past it: a record that says so is refused). *)
Definition full (f : foundations) : bool :=
  (13 <=? home_count f Clubs) && (13 <=? home_count f Diamonds) && (13 <=? home_count f Hearts)
  && (13 <=? home_count f Spades).

Lemma won_full P Q : Won P -> covers P Q -> full (home Q) = true.
Proof.
  unfold Won; intros W [L _].
  assert (K : forall su, (13 <=? home_count (home Q) su) = true).
  { intros su; apply Nat.leb_le; pose proof (L su) as H; rewrite W in H; destruct su; exact H. }
  unfold full; rewrite !K; reflexivity.
Qed.

(** * The checker's autoplay, on the records' column ids *)

(** * Autoplay, computed

    The search's autoplay: a safe card home at a time, the first safe top card of a column,
    else the first safe card in a free cell, until none is safe (each step takes a card home,
    so 52 steps reach that).  The proof needs only that it makes safe moves home
    ([autoplay_aps]); that it makes all of them, as the certificate's writer does, shows in
    the count the search must end with. *)

Fixpoint take_safe_column (f : foundations) (cols : list (list card))
  : option (card * list (list card)) :=
  match cols with
  | [] => None
  | [] :: rest =>
      match take_safe_column f rest with
      | Some (c, rest') => Some (c, [] :: rest')
      | None => None
      end
  | (c :: below) :: rest =>
      if safe f c then Some (c, below :: rest)
      else match take_safe_column f rest with
           | Some (c', rest') => Some (c', (c :: below) :: rest')
           | None => None
           end
  end.

Fixpoint take_safe_cell (f : foundations) (cs : list card) : option (card * list card) :=
  match cs with
  | [] => None
  | c :: rest =>
      if safe f c then Some (c, rest)
      else match take_safe_cell f rest with
           | Some (c', rest') => Some (c', c :: rest')
           | None => None
           end
  end.

Fixpoint autoplay_steps (fuel : nat) (s : position) : position :=
  match fuel with
  | O => s
  | S fuel' =>
      let '(Position f cs cols) := s in
      match take_safe_column f cols with
      | Some (c, cols') =>
          autoplay_steps fuel' (Position (set_home_count f (suit_of c) (S (rank c))) cs cols')
      | None =>
          match take_safe_cell f cs with
          | Some (c, cs') =>
              autoplay_steps fuel' (Position (set_home_count f (suit_of c) (S (rank c))) cs' cols)
          | None => s
          end
      end
  end.

Definition autoplay (s : position) : position := autoplay_steps 52 s.

Lemma take_safe_column_spec f cols : forall c cols',
  take_safe_column f cols = Some (c, cols') ->
  exists rest O, Permutation cols ((c :: rest) :: O) /\ Permutation cols' (rest :: O) /\
                 safe f c = true.
Proof.
  induction cols as [|col cols IH]; intros c cols' H; [discriminate|].
  assert (Later : forall col', match take_safe_column f cols with
                               | Some (c', rest') => Some (c', col' :: rest')
                               | None => None
                               end = Some (c, cols') -> col' = col ->
    exists rest O, Permutation (col :: cols) ((c :: rest) :: O) /\
                   Permutation cols' (rest :: O) /\ safe f c = true).
  { intros col' H' ->; destruct (take_safe_column f cols) as [[c' r]|]; [|discriminate].
    injection H' as <- <-; destruct (IH _ _ eq_refl) as [rest [O [P [P' S]]]].
    exists rest, (col :: O); repeat split; auto.
    - exact (perm_trans (perm_skip col P) (perm_swap _ _ _)).
    - exact (perm_trans (perm_skip col P') (perm_swap _ _ _)). }
  destruct col as [|d below]; simpl in H; [exact (Later _ H eq_refl)|].
  destruct (safe f d) eqn:S; [|exact (Later _ H eq_refl)].
  injection H as <- <-; exists below, cols; auto.
Qed.

Lemma take_safe_cell_spec f cs : forall c cs',
  take_safe_cell f cs = Some (c, cs') -> In (c, cs') (picks cs) /\ safe f c = true.
Proof.
  induction cs as [|d rest IH]; simpl; intros c cs' H; [discriminate|].
  destruct (safe f d) eqn:S; [injection H as <- <-; auto|].
  destruct (take_safe_cell f rest) as [[c' r]|] eqn:E; [|discriminate].
  injection H as <- <-; destruct (IH _ _ eq_refl) as [I S']; split; [|exact S'].
  right; apply in_map_iff; exists (c', r); auto.
Qed.

Lemma autoplay_aps s : aps s (autoplay s).
Proof.
  unfold autoplay; generalize 52; intros fuel; revert s.
  induction fuel as [|fuel IH]; intros [f cs cols]; simpl; [constructor|].
  destruct (take_safe_column f cols) as [[c cols']|] eqn:E1.
  - destruct (take_safe_column_spec _ _ _ _ E1) as [rest [O [P [P' S]]]].
    eapply aps_next; [|apply IH]; eapply ap_column; simpl; eauto.
  - destruct (take_safe_cell f cs) as [[c cs']|] eqn:E2; [|constructor].
    destruct (take_safe_cell_spec _ _ _ _ E2) as [I S].
    eapply aps_next; [|apply IH]; eapply ap_cell; simpl; eauto.
Qed.

(** * Why a set closed under every move then autoplay covers everything reachable

    Closed: after each move, some safe moves home (autoplay, or none when autoplay has
    nothing to do) land in the set. *)

Theorem closed_under_autoplay (S : position -> Prop) :
  foundation_moves = false -> NoDup (all_cards start) ->
  S (canonical (autoplay start)) ->
  (forall p t, S p -> In t (moves p) -> exists u, aps t u /\ S (canonical u)) ->
  (forall p, S p -> full (home p) = false) ->
  forall s, Reachable s -> ~ Won s.
Proof.
  intros Fm N0 Hstart Hclosed Hnone.
  assert (Land : forall P t u, covers P t -> NoDup (all_cards t) -> aps t u -> S (canonical u) ->
                               exists Q, S Q /\ covers P Q /\ NoDup (all_cards Q)).
  { intros P t u C N A H; exists (canonical u); split; [exact H|]; split.
    - exact (covers_same _ _ _ (aps_covers _ _ _ A C) (same_canonical _)).
    - exact (Permutation_NoDup (perm_trans (aps_cards _ _ A) (same_cards _ _ (same_canonical _)))
                               N). }
  assert (Cover : forall P, Reachable P -> exists Q, S Q /\ covers P Q /\ NoDup (all_cards Q)).
  { intros P HP; induction HP as [|P P' HP [Q [HQ [C N]]] Ht].
    - exact (Land _ _ _ (covers_refl _) N0 (autoplay_aps _) Hstart).
    - destruct (simulate P P' Q C N (moves_ustep P P' Fm Ht)) as [C' | [Q' [U C']]].
      + exists Q; auto.
      + destruct (ustep_moves Q Q' U) as [E | [t [Ht' E]]].
        * exists Q; split; [exact HQ | split; [exact (covers_same _ _ _ C' (same_sym _ _ E)) | exact N]].
        * destruct (Hclosed Q t HQ Ht') as [u [A Hu]].
          apply (Land P' t u (covers_same _ _ _ C' E)); [|exact A | exact Hu].
          exact (Permutation_NoDup (perm_trans (ustep_cards _ _ U) (same_cards _ _ E)) N). }
  intros s Hs W; destruct (Cover s Hs) as [Q [HQ [C _]]].
  pose proof (won_full _ _ W C) as F; rewrite (Hnone Q HQ) in F; discriminate.
Qed.

(** * Ranks compared by table, for the virtual machine

    The search compares ranks (unary [nat]s) far more than it does anything else: a card
    landing on a column, going home, two positions found the same, columns sorted.  The
    virtual machine walks [Nat.eqb] one constructor a call; a [match] on the first thirteen
    values walks it as a chain of jumps, several times cheaper.  Past 12 (no card's rank, but
    the functions must agree everywhere) they fall back on [Nat.eqb] and [Nat.compare].  Each
    faster function below is proved equal to the one it stands for, so no proof about the
    search changes. *)

Definition rank_eqb (a b : nat) : bool :=
  match a, b with
  | 0, 0 | 1, 1 | 2, 2 | 3, 3 | 4, 4 | 5, 5 | 6, 6 | 7, 7 | 8, 8 | 9, 9 | 10, 10 | 11, 11
  | 12, 12 => true
  | S (S (S (S (S (S (S (S (S (S (S (S (S a)))))))))))),
    S (S (S (S (S (S (S (S (S (S (S (S (S b)))))))))))) => Nat.eqb a b
  | _, _ => false
  end.

Definition rank_compare (a b : nat) : comparison :=
  match a, b with
  | 0, 0 => Eq | 0, _ => Lt | _, 0 => Gt | 1, 1 => Eq | 1, _ => Lt | _, 1 => Gt
  | 2, 2 => Eq | 2, _ => Lt | _, 2 => Gt | 3, 3 => Eq | 3, _ => Lt | _, 3 => Gt
  | 4, 4 => Eq | 4, _ => Lt | _, 4 => Gt | 5, 5 => Eq | 5, _ => Lt | _, 5 => Gt
  | 6, 6 => Eq | 6, _ => Lt | _, 6 => Gt | 7, 7 => Eq | 7, _ => Lt | _, 7 => Gt
  | 8, 8 => Eq | 8, _ => Lt | _, 8 => Gt | 9, 9 => Eq | 9, _ => Lt | _, 9 => Gt
  | 10, 10 => Eq | 10, _ => Lt | _, 10 => Gt | 11, 11 => Eq | 11, _ => Lt | _, 11 => Gt
  | 12, 12 => Eq | 12, _ => Lt | _, 12 => Gt
  | S (S (S (S (S (S (S (S (S (S (S (S (S a)))))))))))),
    S (S (S (S (S (S (S (S (S (S (S (S (S b)))))))))))) => Nat.compare a b
  end.

(** Thirteen values of each side by hand, then the rest by computation. *)
Ltac by_table a b :=
  do 13 (destruct a as [|a]; [do 13 (destruct b as [|b]; [reflexivity|]); reflexivity|]);
  do 13 (destruct b as [|b]; [reflexivity|]); reflexivity.

Lemma rank_eqb_eq a b : rank_eqb a b = (a =? b).
Proof. by_table a b. Qed.

Lemma rank_compare_eq a b : rank_compare a b = Nat.compare a b.
Proof. by_table a b. Qed.

(** Equality of positions ([position_eqb]) with [rank_eqb]. *)

Definition ap_card_eqb (c d : card) : bool :=
  match suit_of c, suit_of d with
  | Clubs, Clubs | Diamonds, Diamonds | Hearts, Hearts | Spades, Spades =>
      rank_eqb (rank c) (rank d)
  | _, _ => false
  end.

Fixpoint ap_column_eqb (l m : list card) : bool :=
  match l, m with
  | [], [] => true
  | c :: l', d :: m' => if ap_card_eqb c d then ap_column_eqb l' m' else false
  | _, _ => false
  end.

Fixpoint ap_columns_eqb (l m : list (list card)) : bool :=
  match l, m with
  | [], [] => true
  | col :: l', col' :: m' => if ap_column_eqb col col' then ap_columns_eqb l' m' else false
  | _, _ => false
  end.

Definition ap_position_eqb (s t : position) : bool :=
  if ap_columns_eqb (columns s) (columns t) then
    if ap_column_eqb (cells s) (cells t) then home_eqb (home s) (home t) else false
  else false.

Fixpoint ap_has (s : position) (l : list position) : bool :=
  match l with
  | [] => false
  | p :: l' => if ap_position_eqb s p then true else ap_has s l'
  end.

Lemma ap_card_eqb_eq c d : ap_card_eqb c d = card_eqb c d.
Proof. unfold ap_card_eqb, card_eqb; rewrite rank_eqb_eq; reflexivity. Qed.

Lemma ap_column_eqb_eq l m : ap_column_eqb l m = column_eqb l m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; cbn [ap_column_eqb column_eqb]; auto.
  rewrite ap_card_eqb_eq, IH; reflexivity.
Qed.

Lemma ap_columns_eqb_eq l m : ap_columns_eqb l m = columns_eqb l m.
Proof.
  revert m; induction l as [|c l IH]; intros [|d m]; cbn [ap_columns_eqb columns_eqb]; auto.
  rewrite ap_column_eqb_eq, IH; reflexivity.
Qed.

Lemma ap_has_eq s l : ap_has s l = has s l.
Proof.
  induction l as [|p l IH]; cbn [ap_has has]; auto.
  unfold ap_position_eqb, position_eqb; rewrite ap_columns_eqb_eq, ap_column_eqb_eq, IH.
  reflexivity.
Qed.

(** The trie's [bucket], its keys' digits compared with [rank_eqb], a node's children looked
    up by [child] ([nth] without the two arguments it carries at every step). *)

Fixpoint child (d : nat) (l : list trie) : trie :=
  match l with
  | [] => Empty
  | t :: l' => match d with O => t | S d' => child d' l' end
  end.

Lemma child_nth d l : child d l = nth d l Empty.
Proof. revert d; induction l as [|t l IH]; intros [|d]; cbn [child nth]; auto. Qed.

Fixpoint ap_digits_eqb (k k' : list nat) : bool :=
  match k, k' with
  | [], [] => true
  | d :: k, d' :: k' => if rank_eqb d d' then ap_digits_eqb k k' else false
  | _, _ => false
  end.

Fixpoint ap_bucket (k : list nat) (t : trie) : list position :=
  match t with
  | Empty => []
  | Leaf rest p => if ap_digits_eqb k rest then [p] else []
  | Node here below =>
      match k with
      | [] => here
      | d :: k' => ap_bucket k' (child d below)
      end
  end.

Lemma ap_digits_eqb_eq k k' : ap_digits_eqb k k' = digits_eqb k k'.
Proof.
  revert k'; induction k as [|d k IH]; intros [|d' k']; cbn [ap_digits_eqb digits_eqb]; auto.
  rewrite rank_eqb_eq, IH; reflexivity.
Qed.

Lemma ap_bucket_eq k t : ap_bucket k t = bucket k t.
Proof.
  revert t; induction k as [|d k IH]; intros [|rest p|here below];
    cbn [ap_bucket bucket]; rewrite ?ap_digits_eqb_eq, ?child_nth; auto.
Qed.

(** The canonical order of columns ([canonical]) with [rank_compare]. *)

Definition ap_card_leb (c d : card) : bool :=
  match rank_compare (rank c) (rank d) with
  | Lt => true
  | Gt => false
  | Eq => suit_number (suit_of c) <=? suit_number (suit_of d)
  end.

Definition ap_top_leb (col col' : list card) : bool :=
  match col, col' with
  | [], _ => true
  | _, [] => false
  | c :: _, d :: _ => ap_card_leb c d
  end.

Fixpoint ap_insert_column (col : list card) (cols : list (list card)) : list (list card) :=
  match cols with
  | [] => [col]
  | col' :: rest => if ap_top_leb col col' then col :: cols else col' :: ap_insert_column col rest
  end.

Fixpoint ap_sort_columns (cols : list (list card)) : list (list card) :=
  match cols with
  | [] => []
  | col :: rest => ap_insert_column col (ap_sort_columns rest)
  end.

Definition ap_canonical (s : position) : position :=
  Position (home s) (cells s) (ap_sort_columns (columns s)).

Lemma ap_canonical_eq s : ap_canonical s = canonical s.
Proof.
  assert (Top : forall col col', ap_top_leb col col' = top_leb col col').
  { intros [|c col] [|d col']; auto; cbn [ap_top_leb top_leb].
    unfold ap_card_leb, card_leb; rewrite rank_compare_eq; reflexivity. }
  assert (Ins : forall col cols, ap_insert_column col cols = insert_column col cols).
  { intros col cols; induction cols as [|col' cols IH]; cbn [ap_insert_column insert_column];
      auto; rewrite Top, IH; reflexivity. }
  unfold ap_canonical, canonical; f_equal.
  induction (columns s) as [|col cols IH]; cbn [ap_sort_columns sort_columns]; auto.
  rewrite IH, Ins; reflexivity.
Qed.

(** A free cell put in its place ([insert_cell]) by rank then suit, which is the order of
    the card numbers that Rules.v compares, without multiplying unary numbers by 4. *)

Fixpoint ap_insert_cell (c : card) (cs : list card) : list card :=
  match cs with
  | [] => [c]
  | d :: rest => if ap_card_leb c d then c :: cs else d :: ap_insert_cell c rest
  end.

Lemma ap_card_leb_number c d : ap_card_leb c d = (card_number c <=? card_number d).
Proof.
  assert (B : forall su, suit_number su <= 3) by (intros []; cbn; repeat constructor).
  destruct c as [r s], d as [r' s']; unfold ap_card_leb, card_number; cbn [rank suit_of].
  pose proof (B s) as Bs; pose proof (B s') as Bs'.
  rewrite rank_compare_eq; destruct (Nat.compare_spec r r') as [<-|L|L]; symmetry.
  - destruct (Nat.leb_spec (suit_number s) (suit_number s')) as [H|H];
      [apply Nat.leb_le, Nat.add_le_mono_l, H | apply Nat.leb_gt, Nat.add_lt_mono_l, H].
  - apply Nat.leb_le, (Nat.le_trans _ (S r * 4)).
    + rewrite Nat.mul_succ_l; apply Nat.add_le_mono_l, (Nat.le_trans _ _ _ Bs), Nat.le_succ_diag_r.
    + apply (Nat.le_trans _ (r' * 4)); [apply Nat.mul_le_mono_r, L | apply Nat.le_add_r].
  - apply Nat.leb_gt, (Nat.le_trans _ (S r' * 4)).
    + rewrite Nat.mul_succ_l, <- Nat.add_succ_r; apply Nat.add_le_mono_l, le_n_S, Bs'.
    + apply (Nat.le_trans _ (r * 4)); [apply Nat.mul_le_mono_r, L | apply Nat.le_add_r].
Qed.

Lemma ap_insert_cell_eq c cs : ap_insert_cell c cs = insert_cell c cs.
Proof.
  induction cs as [|d cs IH]; cbn [ap_insert_cell insert_cell]; auto.
  rewrite ap_card_leb_number, IH; reflexivity.
Qed.

(** Whether a card may go home ([can_home]), the ranks compared by table. *)

Definition ap_can_home (f : foundations) (c : card) : bool :=
  rank_eqb (home_count f (suit_of c)) (rank c).

Lemma ap_can_home_eq f c : ap_can_home f c = can_home f c.
Proof. unfold ap_can_home, can_home; apply rank_eqb_eq. Qed.

(** * The moves, each with whether autoplay may have something to do after it

    The search follows moves from positions that autoplay has left with no safe card.
    Without a move home, the only card a move can make safe is the one it uncovers in the
    column it takes a card from: the card moved was not safe before, and no foundation
    changed.  So [ap_moves] pairs each move of [fast_moves] with [true] when it goes home or
    uncovers a safe card, and the search autoplays only those.  Skipping autoplay is always
    sound (no move home is a sequence of safe moves home); that it skips only where autoplay
    would do nothing shows in the count.  The search refuses foundation moves, so [ap_moves]
    leaves them out ([ap_moves_snd] holds without them).

    [ap_moves] is [fast_moves] written for the virtual machine, which runs it on every
    position the search finds: it walks the columns and then the free cells once, putting
    each move in front of the moves after it ([acc]) rather than in a list of its own that
    [++] and [flat_map] would copy; and where a card may land ([lands_on]) is tested with
    what it asks of the card (its colour, the rank it needs below it) computed once per
    card, not once per column, the colours first, then the ranks by table. *)

Definition uncovers_safe (f : foundations) (col : list card) : bool :=
  match col with [] => false | c :: _ => if ap_can_home f c then safe_rest f c else false end.

(** Column [i] of [cols] replaced by [col], in one pass ([set_column] makes three). *)
Fixpoint ap_set_column (cols : list (list card)) (i : nat) (col : list card) : list (list card) :=
  match cols, i with
  | [], _ => [col]
  | _ :: rest, O => col :: rest
  | c :: rest, S i' => c :: ap_set_column rest i' col
  end.

Lemma ap_set_column_eq cols i col : ap_set_column cols i col = set_column cols i col.
Proof.
  revert i; induction cols as [|c cols IH]; intros [|i]; cbn [ap_set_column]; try reflexivity.
  rewrite IH; reflexivity.
Qed.

(** The move of [c] onto column [j], when [from] allows it, before [more]. *)
Definition land (e : bool) (c : card) (from : source) (f : foundations) (cs : list card)
           (cols : list (list card)) (j : nat) (col : list card) (more : list (bool * position))
  : list (bool * position) :=
  if may_go_to_column from j then (e, Position f cs (ap_set_column cols j (c :: col))) :: more
  else more.

(** [landings], each move paired with [e], before [acc]; [red_c] is [red c] and [above] is
    [S (rank c)]. *)
Fixpoint ap_landings (e red_c : bool) (above : nat) (c : card) (from : source)
         (f : foundations) (cs : list card) (cols : list (list card)) (j : nat)
         (rest : list (list card)) (acc : list (bool * position)) : list (bool * position) :=
  match rest with
  | [] => acc
  | col :: rest' =>
      let more := ap_landings e red_c above c from f cs cols (S j) rest' acc in
      match col with
      | [] => land e c from f cs cols j col more
      | top :: _ =>
          match suit_of top with
          | Diamonds | Hearts =>
              if red_c then more
              else if rank_eqb (rank top) above then land e c from f cs cols j col more else more
          | Clubs | Spades =>
              if red_c then
                if rank_eqb (rank top) above then land e c from f cs cols j col more else more
              else more
          end
      end
  end.

(** [fast_putdowns c from (Position f cs cols)], each move paired with whether autoplay may
    have something to do after it ([e] unless it goes home), before [acc]. *)
Definition ap_putdowns (c : card) (from : source) (f : foundations) (cs : list card)
           (cols : list (list card)) (e : bool) (acc : list (bool * position))
  : list (bool * position) :=
  let others :=
    ap_landings e (red c) (S (rank c)) c from f cs cols 0 cols
      (if may_go_to_cell from then
         if length cs <? free_cells then (e, Position f (ap_insert_cell c cs) cols) :: acc
         else acc
       else acc) in
  if may_go_home from then
    if ap_can_home f c then
      (true, Position (set_home_count f (suit_of c) (S (rank c))) cs cols) :: others
    else others
  else others.

(** The moves of the top cards of the columns from [i] on ([rest]), before [acc]: a move
    may make safe the card it uncovers. *)
Fixpoint column_moves (f : foundations) (cs : list card) (cols : list (list card)) (i : nat)
         (rest : list (list card)) (acc : list (bool * position)) : list (bool * position) :=
  match rest with
  | [] => acc
  | [] :: rest' => column_moves f cs cols (S i) rest' acc
  | (c :: below) :: rest' =>
      ap_putdowns c (FromColumn i) f cs (ap_set_column cols i below) (uncovers_safe f below)
        (column_moves f cs cols (S i) rest' acc)
  end.

(** The moves of the cards in free cells ([picks]), before [acc]: none makes a card safe. *)
Fixpoint cell_moves (f : foundations) (cols : list (list card)) (l : list (card * list card))
         (acc : list (bool * position)) : list (bool * position) :=
  match l with
  | [] => acc
  | (c, others) :: l' => ap_putdowns c FromCell f others cols false (cell_moves f cols l' acc)
  end.

(** The search refuses foundation moves, so [ap_moves] leaves them out. *)
Definition ap_moves (s : position) : list (bool * position) :=
  let '(Position f cs cols) := s in column_moves f cs cols 0 cols (cell_moves f cols (picks cs) []).

Lemma ap_landings_snd e c from f cs cols rest acc : forall j,
  map snd (ap_landings e (red c) (S (rank c)) c from f cs cols j rest acc) =
  landings c from f cs cols j rest ++ map snd acc.
Proof.
  induction rest as [|col rest IH]; intros j; cbn [ap_landings landings]; [reflexivity|].
  revert IH; unfold land, lands_on, red; rewrite ap_set_column_eq; destruct col as [|top col];
    rewrite ?rank_eqb_eq; [|destruct (suit_of top), (suit_of c), (rank top =? S (rank c))];
    destruct (may_go_to_column from j); intros IH; cbn [map app snd xorb]; rewrite ?IH;
    reflexivity.
Qed.

Lemma ap_putdowns_snd c from f cs cols e acc :
  map snd (ap_putdowns c from f cs cols e acc) =
  fast_putdowns c from (Position f cs cols) ++ map snd acc.
Proof.
  unfold ap_putdowns, fast_putdowns; cbv zeta; rewrite ap_can_home_eq, ap_insert_cell_eq.
  destruct (may_go_home from), (can_home f c); cbn [map app]; rewrite ap_landings_snd, <- app_assoc;
    destruct (may_go_to_cell from), (length cs <? free_cells); reflexivity.
Qed.

Lemma column_moves_snd f cs cols rest acc : forall i,
  map snd (column_moves f cs cols i rest acc) =
  flat_map (fun '(c, from, r) => fast_putdowns c from r) (column_pickups f cs cols i rest)
  ++ map snd acc.
Proof.
  induction rest as [|[|c below] rest IH]; intros i; cbn [column_moves column_pickups flat_map];
    auto.
  rewrite ap_putdowns_snd, IH, ap_set_column_eq, app_assoc; reflexivity.
Qed.

Lemma cell_moves_snd f cols l acc :
  map snd (cell_moves f cols l acc) =
  flat_map (fun '(c, from, r) => fast_putdowns c from r)
           (map (fun '(c, others) => (c, FromCell, Position f others cols)) l) ++ map snd acc.
Proof.
  induction l as [|[c others] l IH]; cbn [cell_moves map flat_map]; auto.
  rewrite ap_putdowns_snd, IH, app_assoc; reflexivity.
Qed.

Lemma ap_moves_snd s : foundation_moves = false -> map snd (ap_moves s) = moves s.
Proof.
  intros Fm; rewrite <- fast_moves_eq; destruct s as [f cs cols].
  unfold ap_moves, fast_moves, fast_pickups; cbv beta iota zeta.
  rewrite Fm, column_moves_snd, cell_moves_snd.
  rewrite !flat_map_app; cbn [flat_map map]; rewrite !app_nil_r; reflexivity.
Qed.

(** Where a move lands: its position, autoplayed if marked so, columns in canonical order. *)
Definition landing (ht : bool * position) : position :=
  let '(h, t) := ht in ap_canonical (if h then autoplay t else t).

(** Stated with [canonical], so that no proof below meets [ap_canonical] (which the kernel
    would otherwise compute its way through, deal included, to compare with [canonical]). *)
Lemma landing_eq h t : landing (h, t) = canonical (if h then autoplay t else t).
Proof. exact (ap_canonical_eq _). Qed.

Lemma landing_aps h t : exists u, aps t u /\ landing (h, t) = canonical u.
Proof.
  rewrite landing_eq.
  destruct h; [exists (autoplay t); split; [apply autoplay_aps | reflexivity]|].
  exists t; split; [constructor | reflexivity].
Qed.

(** * The search's set of positions: NoWin.v's trie, on a shorter key

    [key] files a position under its foundations, its free cells and the top two cards of
    each column; the search files it under the top card of each column only ([ap_key]),
    which takes the trie fewer levels down for each move and leaves the few positions that
    share a key to [has].  Any key will do for the proof: [ap_member_insert] is
    [member_insert], word for word. *)

Fixpoint top_card_digits (cols : list (list card)) : list nat :=
  match cols with
  | [] => []
  | [] :: rest => 4 :: top_card_digits rest
  | (c :: _) :: rest => card_digits c (top_card_digits rest)
  end.

Definition ap_key (s : position) : list nat :=
  let f := home s in
  clubs f :: diamonds f :: hearts f :: spades f
    :: cell_digits (cells s) (top_card_digits (columns s)).

Definition ap_member (s : position) (t : trie) : bool := has s (bucket (ap_key s) t).

Lemma ap_member_empty s : ap_member s Empty = false.
Proof. reflexivity. Qed.

Lemma ap_member_insert s p t :
  ap_member s (insert (ap_key p) p t) = position_eqb s p || ap_member s t.
Proof.
  unfold ap_member; rewrite bucket_insert.
  destruct (digits_eqb (ap_key p) (ap_key s)) eqn:E; simpl.
  - destruct (position_eqb s p); reflexivity.
  - destruct (position_eqb s p) eqn:Q; [|reflexivity].
    apply position_eqb_eq in Q; subst; rewrite digits_eqb_refl in E; discriminate.
Qed.

(** * The search, run by the kernel's virtual machine, closed under every move then autoplay

    The plain closure's search, with each position found autoplayed (where [ap_moves] says
    so) before its columns are put in their canonical order: a depth-first search over
    positions in that form, [seen] holding every position found so far, [todo] those whose
    moves are still to be followed, [count] how many were found.  The seeds (the
    certificate's positions, when the file holds them) and the start are found first, each
    autoplayed.  [budget] only makes the recursion structural: [explore b] takes up to 2 ^ b
    steps, and stops early once nothing is left to do. *)

Inductive search :=
  | Searching (seen : trie) (todo : list position) (count : N)
  | Found_won (s : position).

Definition visit (acc : trie * list position * N) (ht : bool * position)
  : trie * list position * N :=
  let '(seen, todo, n) := acc in
  let u := landing ht in
  let k := ap_key u in
  if ap_has u (ap_bucket k seen) then acc else (insert k u seen, u :: todo, N.succ n).

Definition step (st : search) : search :=
  match st with
  | Searching seen (p :: todo) n =>
      if full (home p) then Found_won p
      else let '(seen', todo', n') := fold_left visit (ap_moves p) (seen, todo, n) in
           Searching seen' todo' n'
  | _ => st
  end.

Definition finished (st : search) : bool :=
  match st with Searching _ (_ :: _) _ => false | _ => true end.

Fixpoint explore (budget : nat) (st : search) : search :=
  match budget with
  | O => step st
  | S b => let st' := explore b st in if finished st' then st' else explore b st'
  end.

Definition initial_search (seeds : list position) : search :=
  let '(seen, todo, n) := fold_left visit (map (pair true) (start :: seeds)) (Empty, [], 0%N) in
  Searching seen todo n.

(** [Some (first, n)]: the rules have no foundation moves and the start's cards are
    distinct (what [closed_under_autoplay] needs besides the closure), and the search started
    with [first] positions (the seeds and the start, autoplayed, up to the order of columns)
    and ended with nothing left to do and no won position, after finding [n] positions in
    all; [first = n] says that the seeds were closed. *)
Definition search_result (budget : nat) (seeds : list position) : option (N * N) :=
  if foundation_moves then None
  else if negb (distinct (all_cards start)) then None
  else
    let st := initial_search seeds in
    match st, explore budget st with
    | Searching _ _ first, Searching _ [] n => Some (first, n)
    | _, _ => None
    end.

(** * Why the search's answer proves the theorem: induction, no computation *)

Definition closed_in (seen : trie) (q : position) : Prop :=
  full (home q) = false /\ forall ht, In ht (ap_moves q) -> ap_member (landing ht) seen = true.

Definition invariant (st : search) : Prop :=
  match st with
  | Searching seen todo _ =>
      ap_member (canonical (autoplay start)) seen = true /\
      forall q, ap_member q seen = true -> In q todo \/ closed_in seen q
  | Found_won _ => True
  end.

Lemma visit_cases seen todo n ht :
  (ap_member (landing ht) seen = true /\ visit (seen, todo, n) ht = (seen, todo, n)) \/
  (ap_member (landing ht) seen = false /\
   visit (seen, todo, n) ht =
   (insert (ap_key (landing ht)) (landing ht) seen, landing ht :: todo, N.succ n)).
Proof.
  unfold visit, ap_member; cbv zeta; rewrite ap_has_eq, ap_bucket_eq; destruct (has _ _); auto.
Qed.

Lemma visit_fold ts : forall seen todo n seen' todo' n',
  fold_left visit ts (seen, todo, n) = (seen', todo', n') ->
  (forall q, ap_member q seen = true -> ap_member q seen' = true) /\
  (forall t, In t ts -> ap_member (landing t) seen' = true) /\
  (forall q, ap_member q seen' = true -> ap_member q seen = true \/ In q todo') /\
  (forall q, In q todo -> In q todo').
Proof.
  induction ts as [|t ts IH]; intros seen todo n seen' todo' n' H; cbn [fold_left] in H.
  - injection H as <- <- <-; repeat split; auto; intros _ [].
  - destruct (visit_cases seen todo n t) as [[M V] | [M V]]; rewrite V in H;
      destruct (IH _ _ _ _ _ _ H) as [Mono [Has [New Keep]]].
    + repeat split; auto; intros t' [<-|T]; auto.
    + repeat split.
      * intros q Q; apply Mono; rewrite ap_member_insert, Q, orb_true_r; reflexivity.
      * intros t' [<-|T]; auto; apply Mono; rewrite ap_member_insert, position_eqb_refl.
        reflexivity.
      * intros q Q; destruct (New q Q) as [Q'|]; auto; rewrite ap_member_insert in Q'.
        apply orb_true_iff in Q' as [E|]; auto; apply position_eqb_eq in E; subst.
        right; apply Keep; left; reflexivity.
      * intros q Q; apply Keep; right; exact Q.
Qed.

Lemma step_invariant st : invariant st -> invariant (step st).
Proof.
  destruct st as [seen [|p todo] n|w]; simpl; auto.
  intros [Start Inv]; destruct (full (home p)) eqn:W; simpl; auto.
  destruct (fold_left visit (ap_moves p) (seen, todo, n)) as [[seen' todo'] n'] eqn:F.
  destruct (visit_fold _ _ _ _ _ _ _ F) as [Mono [Has [New Keep]]]; split; auto.
  intros q Q; destruct (New q Q) as [Q'|]; auto.
  destruct (Inv q Q') as [[<-|T] | [Wq Cq]].
  - right; split; [exact W | exact Has].
  - left; apply Keep, T.
  - right; split; [exact Wq | intros t T; apply Mono, Cq, T].
Qed.

Lemma explore_invariant budget st : invariant st -> invariant (explore budget st).
Proof.
  revert st; induction budget as [|b IH]; intros st H; simpl; auto using step_invariant.
  destruct (finished (explore b st)); auto.
Qed.

Lemma initial_search_invariant seeds : invariant (initial_search seeds).
Proof.
  unfold initial_search.
  destruct (fold_left visit (map (pair true) (start :: seeds)) (Empty, [], 0%N))
    as [[seen todo] n] eqn:F.
  destruct (visit_fold _ _ _ _ _ _ _ F) as [Mono [Has [New Keep]]]; split.
  - pose proof (Has (true, start) (or_introl eq_refl)) as H; rewrite landing_eq in H.
    exact H.
  - intros q Q; destruct (New q Q) as [Q'|]; auto; rewrite ap_member_empty in Q'; discriminate.
Qed.

Theorem search_sound budget seeds r :
  search_result budget seeds = Some r -> forall s, Reachable s -> ~ Won s.
Proof.
  unfold search_result; intros H.
  destruct foundation_moves eqn:Fm; [discriminate H|].
  destruct (distinct (all_cards start)) eqn:D; [|discriminate H]; cbn [negb] in H.
  pose proof (explore_invariant budget _ (initial_search_invariant seeds)) as Inv.
  destruct (initial_search seeds) as [seen0 todo0 n0|w0]; [|discriminate H].
  destruct (explore budget (Searching seen0 todo0 n0)) as [seen [|p todo] m|w]; try discriminate H.
  destruct Inv as [Start Closed].
  apply (closed_under_autoplay (fun q => ap_member q seen = true) Fm (distinct_nodup _ D) Start).
  - intros p t P T; destruct (Closed p P) as [[]|[_ C]].
    rewrite <- (ap_moves_snd p Fm) in T; apply in_map_iff in T as [[h t'] [<- T]].
    destruct (landing_aps h t') as [u [A E]]; exists u; split; [exact A|].
    rewrite <- E; exact (C _ T).
  - intros p P; destruct (Closed p P) as [[]|[W _]]; exact W.
Qed.

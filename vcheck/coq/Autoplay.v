(** The no-win check closed under safe autoplay (docs/certificate-format.md, section 8), and
    its theorem: the same claim as [nowin_sound], [Reachable] and [Won] those of [Rules].

    The records are closed under "every move, then safe autoplay": the autoplayed start is a
    record, and every move from a record, autoplayed, is a record.  The proof is section 8's:
    a position [Q] covers [P] when [Q] is [P] with some cards taken home, each of them safe in
    [Q]'s foundations ([covers]).  If [Q] covers [P] and [P] moves to [P'], then [Q] covers
    [P'], or one move takes [Q] to a [Q'] that covers [P'] ([simulate]); autoplay keeps
    covering ([aps_covers]).  So every reachable position is covered by a record
    ([covered_closed]); a won position is covered only by a record whose foundations are
    full, which the check refuses ([won_full]).  The card a move puts on a card [e] that [Q]
    has taken home goes home in [Q] instead; that it may go home uses that no card is twice
    in [Q] (its cards, [all_cards], are its start's, which the check finds to be distinct). *)

From VCheck Require Import Rules.
From VCheck Require Import Deal.
From VCheck Require Import Check.
From Coq Require Import Bool Arith List NArith Lia Sorting.Permutation.
Import ListNotations.

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
Definition safe (f : foundations) (c : card) : bool := can_home f c && safe_rest f c.

Definition le_home (f g : foundations) : Prop :=
  forall su, home_count f su <= home_count g su.

Lemma le_home_refl f : le_home f f.
Proof. intros su; lia. Qed.

Lemma le_home_trans f g h : le_home f g -> le_home g h -> le_home f h.
Proof. intros A B su; specialize (A su); specialize (B su); lia. Qed.

Lemma home_count_set_same f su n : home_count (set_home_count f su n) su = n.
Proof. destruct f, su; reflexivity. Qed.

Lemma home_count_set_other f su su' n :
  su <> su' -> home_count (set_home_count f su n) su' = home_count f su'.
Proof. destruct f, su, su'; simpl; congruence. Qed.

Lemma le_home_set_l f g su n :
  le_home f g -> n <= home_count g su -> le_home (set_home_count f su n) g.
Proof.
  intros L H su'; pose proof (L su') as Ls; destruct f, g, su, su'; simpl in *; lia.
Qed.

Lemma le_home_set_both f g su n : le_home f g -> le_home (set_home_count f su n)
                                                         (set_home_count g su n).
Proof. intros L su'; pose proof (L su') as Ls; destruct f, g, su, su'; simpl in *; lia. Qed.

Lemma le_home_set f c :
  can_home f c = true -> le_home f (set_home_count f (suit_of c) (S (rank c))).
Proof.
  unfold can_home; intros E su; apply Nat.eqb_eq in E.
  destruct f, (suit_of c), su; simpl in *; lia.
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

Lemma safe_rest_mono f g c : le_home f g -> safe_rest f c = true -> safe_rest g c = true.
Proof.
  intros L; pose proof (L Clubs); pose proof (L Diamonds); pose proof (L Hearts);
    pose proof (L Spades); destruct f, g; simpl in *.
  unfold safe_rest; destruct (suit_of c); simpl; intros; bools; lia.
Qed.

(** A card taken home in [Q] but still on the table in [P]: below its foundation's count,
    and safe. *)
Definition removed (f : foundations) (c : card) : Prop :=
  rank c < home_count f (suit_of c) /\ safe_rest f c = true.

Lemma removed_mono f g c : le_home f g -> removed f c -> removed g c.
Proof.
  intros L [H S]; split; [specialize (L (suit_of c)); lia | exact (safe_rest_mono _ _ _ L S)].
Qed.

Lemma removed_all_mono f g l : le_home f g -> Forall (removed f) l -> Forall (removed g) l.
Proof. intros L; apply Forall_impl; intros; eapply removed_mono; eauto. Qed.

(** A safe card, once home, is [removed]. *)
Lemma removed_homed f c :
  safe f c = true -> removed (set_home_count f (suit_of c) (S (rank c))) c.
Proof.
  unfold safe; rewrite andb_true_iff; intros [E S]; split.
  - rewrite home_count_set_same; lia.
  - exact (safe_rest_mono _ _ _ (le_home_set _ _ E) S).
Qed.

(** [x] would land on [e], which [Q] has taken home, and [x] is not home in [Q]: then [x] may go
    home in [Q], and is safe there. *)
Lemma below_removed f x e :
  removed f e -> can_stack x e = true -> home_count f (suit_of x) <= rank x ->
  can_home f x = true /\ removed (set_home_count f (suit_of x) (S (rank x))) x.
Proof.
  destruct x as [rx sx], e as [re se]; unfold removed, can_stack, can_home, safe_rest, red.
  destruct f as [a b c d]; simpl; intros [H1 H2] H3 H4; bools.
  destruct sx, se; simpl in *; try discriminate; bools; subst;
    (split; [bools; lia | split; [lia | bools; lia]]).
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
      injection E as <- <-; apply in_seq in H; simpl; lia.
  - simpl; intros H; destruct su;
      [left | right; left | right; right; left | right; right; right];
      exists r; split; auto; apply in_seq; simpl in H; lia.
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
Lemma ustep_cards fc s t : ustep fc false s t -> Permutation (all_cards s) (all_cards t).
Proof.
  unfold all_cards.
  destruct 1 as [c rest O P E Et Ct Pt | c rest O P E Et Ct Pt
                | c rest y O1 O2 P P2 L Et Ct Pt | c others Hin E Et Ct Pt
                | c others y O Hin P L Et Ct Pt | su r y O Fm E P L Et Ct Pt];
    [| | | | | discriminate]; rewrite ?Et, ?Ct;
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

Section Simulation.
Variable fc : nat.

Lemma simulate P P' Q :
  covers P Q -> NoDup (all_cards Q) -> ustep fc false P P' ->
  covers P' Q \/ exists Q', ustep fc false Q Q' /\ covers P' Q'.
Proof.
  intros Cov N U; pose proof Cov as [Lh [[D [PD FD]] _]].
  destruct U as [x rest O P1 E Eh Ec Pt | x rest O P1 E Eh Ec Pt
                | x rest y O1 O2 P1 P2 L Eh Ec Pt | x others Hin E Eh Ec Pt
                | x others y O Hin P1 L Eh Ec Pt | su r y O Fm E P1 L Eh Ec Pt];
    [| | | | | discriminate].
  - (* x from a column home *)
    destruct (covers_column _ _ _ _ Cov P1) as [q [Qo [Pq [[pre [Ep Fp]] F]]]].
    destruct pre as [|z pre]; simpl in Ep; [subst q|].
    + (* x is on its column in Q: it goes home there too *)
      assert (CH : can_home (home Q) x = true).
      { pose proof (table_not_home _ _ N (top_on_table _ _ _ _ Pq)); pose proof (Lh (suit_of x)).
        unfold can_home in *; bools; lia. }
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
        [apply le_home_set_l; [exact Lh | destruct Rx; lia] | split].
      * exists D; auto.
      * exists (rest :: O), (q :: Qo); repeat split; auto.
        constructor; [exists pre; auto | exact F].
  - (* x from a column to a free cell *)
    destruct (covers_column _ _ _ _ Cov P1) as [q [Qo [Pq [[pre [Ep Fp]] F]]]].
    destruct pre as [|z pre]; simpl in Ep; [subst q|].
    + right; exists (Position (home Q) (insert_cell x (cells Q)) (rest :: Qo)); split.
      * eapply column_cell; simpl; eauto.
        apply Nat.ltb_lt; apply Nat.ltb_lt in E.
        pose proof (Permutation_length PD) as LD; rewrite app_length in LD; lia.
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
          (Permutation_sym (picks_perm _ _ _ HoQ)) (in_eq _ _)))).
        pose proof (Lh (suit_of x)); unfold can_home in *; bools; lia. }
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
        [apply le_home_set_l; [exact Lh | destruct Rx; lia] | split].
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

End Simulation.

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

Lemma ap_step_ustep fc s t : ap_step s t -> ustep fc false s t.
Proof.
  destruct 1 as [c rest O P S Eh Ec Pt | c others Hin S Eh Ec Pt];
    unfold safe in S; apply andb_true_iff in S as [S _].
  - eapply column_home; eauto.
  - eapply cell_home; eauto.
Qed.

Lemma aps_cards s t : aps s t -> Permutation (all_cards s) (all_cards t).
Proof.
  induction 1; auto.
  exact (perm_trans (ustep_cards 0 _ _ (ap_step_ustep 0 _ _ H)) IHaps).
Qed.

(** Autoplay keeps covering. *)
Lemma ap_step_covers P s t : covers P s -> ap_step s t -> covers P t.
Proof.
  intros [L [[D [PD FD]] [Pc [Qc [PP [PQ F]]]]]].
  destruct 1 as [c rest O P1 S Eh Ec Pt | c others Hin S Eh Ec Pt];
    pose proof S as S'; unfold safe in S'; apply andb_true_iff in S' as [CH _];
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
  (13 <=? clubs f) && (13 <=? diamonds f) && (13 <=? hearts f) && (13 <=? spades f).

Lemma won_full P Q : Won P -> covers P Q -> full (home Q) = true.
Proof.
  unfold Won; intros W [L _]; pose proof (L Clubs); pose proof (L Diamonds);
    pose proof (L Hearts); pose proof (L Spades); rewrite W in *; destruct (home Q).
  unfold full; rewrite !andb_true_iff, !Nat.leb_le; simpl in *; lia.
Qed.

(** * The checker's autoplay, on the records' column ids *)

Section Data.
Variable T : table.
Variable R : records.
Variable sorted : bool.

(** The first column whose top card is safe, and the columns with it taken off (its parent,
    checked to be the column below it). *)
Fixpoint take_safe_column (f : foundations) (ids : list N) : option (card * list N) :=
  match ids with
  | [] => None
  | a :: after =>
      match depth T a with
      | O => option_map (fun '(c, r) => (c, a :: r)) (take_safe_column f after)
      | S n =>
          let c := top T a in
          if safe f c && (n =? depth T (parent T a)) then Some (c, parent T a :: after)
          else option_map (fun '(c', r) => (c', a :: r)) (take_safe_column f after)
      end
  end.

(** The first free cell card that is safe, and the other cells. *)
Fixpoint take_safe_cell (f : foundations) (cs : list card) : option (card * list card) :=
  match cs with
  | [] => None
  | c :: rest =>
      if safe f c then Some (c, rest)
      else option_map (fun '(c', r) => (c', c :: r)) (take_safe_cell f rest)
  end.

(** Autoplay: a safe card home at a time, a column's top first, until none is safe (each step
    takes a card home, so 52 steps reach that). *)
Fixpoint autoplay (fuel : nat) (f : foundations) (cs : list card) (ids : list N)
  : foundations * list card * list N :=
  match fuel with
  | O => (f, cs, ids)
  | S fuel' =>
      match take_safe_column f ids with
      | Some (c, ids') => autoplay fuel' (set_home_count f (suit_of c) (S (rank c))) cs ids'
      | None =>
          match take_safe_cell f cs with
          | Some (c, cs') => autoplay fuel' (set_home_count f (suit_of c) (S (rank c))) cs' ids
          | None => (f, cs, ids)
          end
      end
  end.

Definition autoplay_fuel : nat := 52.

Lemma take_safe_column_spec f ids : forall c ids',
  take_safe_column f ids = Some (c, ids') ->
  exists A a B, ids = A ++ a :: B /\ ids' = A ++ parent T a :: B /\
                column T a = c :: column T (parent T a) /\ safe f c = true.
Proof.
  induction ids as [|a after IH]; simpl; intros c ids' H; [discriminate|].
  assert (Later : option_map (fun '(c', r) => (c', a :: r)) (take_safe_column f after)
                  = Some (c, ids') ->
                  exists A a0 B, a :: after = A ++ a0 :: B /\ ids' = A ++ parent T a0 :: B /\
                    column T a0 = c :: column T (parent T a0) /\ safe f c = true).
  { destruct (take_safe_column f after) as [[c' r]|] eqn:E; simpl; [|discriminate].
    intros H'; injection H' as <- <-.
    destruct (IH _ _ eq_refl) as [A [a0 [B [-> [-> [Ec S]]]]]].
    exists (a :: A), a0, B; repeat split; auto. }
  destruct (depth T a) as [|n] eqn:D; [exact (Later H)|].
  destruct (safe f (top T a) && (n =? depth T (parent T a))) eqn:S; [|exact (Later H)].
  injection H as <- <-; apply andb_true_iff in S as [S En]; apply Nat.eqb_eq in En.
  exists [], a, after; repeat split; auto.
  unfold column at 1; rewrite D; simpl; rewrite En; reflexivity.
Qed.

Lemma take_safe_cell_spec f cs : forall c cs',
  take_safe_cell f cs = Some (c, cs') -> In (c, cs') (picks cs) /\ safe f c = true.
Proof.
  induction cs as [|d rest IH]; simpl; intros c cs' H; [discriminate|].
  destruct (safe f d) eqn:S; [injection H as <- <-; auto|].
  destruct (take_safe_cell f rest) as [[c' r]|] eqn:E; simpl in H; [|discriminate].
  injection H as <- <-; destruct (IH _ _ eq_refl) as [I S']; split; [|exact S'].
  right; apply in_map_iff; exists (c', r); auto.
Qed.

(** Whatever [autoplay] computes, it is reached from the position by safe moves home. *)
Lemma autoplay_spec fuel : forall f cs ids f' cs' ids' s,
  autoplay fuel f cs ids = (f', cs', ids') ->
  home s = f -> cells s = cs -> Permutation (columns s) (map (column T) ids) ->
  exists s', aps s s' /\ home s' = f' /\ cells s' = cs' /\
             Permutation (columns s') (map (column T) ids').
Proof.
  induction fuel as [|fuel IH]; simpl; intros f cs ids f' cs' ids' s H Eh Ec P.
  { injection H as <- <- <-; exists s; repeat split; auto; constructor. }
  destruct (take_safe_column f ids) as [[c ids1]|] eqn:E1.
  - destruct (take_safe_column_spec _ _ _ _ E1) as [A [a [B [-> [-> [Ea Sc]]]]]].
    set (t := Position (set_home_count f (suit_of c) (S (rank c))) cs
                       (map (column T) (A ++ parent T a :: B))).
    destruct (IH _ _ _ _ _ _ t H eq_refl eq_refl (Permutation_refl _))
      as [s' [As [Eh' [Ec' Ps']]]].
    exists s'; repeat split; auto.
    apply aps_next with t; auto.
    apply (ap_column s t c (column T (parent T a)) (map (column T) (A ++ B))); subst f cs;
      auto.
    + rewrite <- Ea; exact (perm_trans P (perm_middle T A B a)).
    + exact (perm_middle T A B (parent T a)).
  - destruct (take_safe_cell f cs) as [[c cs1]|] eqn:E2.
    + destruct (take_safe_cell_spec _ _ _ _ E2) as [I Sc].
      set (t := Position (set_home_count f (suit_of c) (S (rank c))) cs1 (columns s)).
      destruct (IH _ _ _ _ _ _ t H eq_refl eq_refl P) as [s' [As [Eh' [Ec' Ps']]]].
      exists s'; repeat split; auto.
      apply aps_next with t; auto.
      apply (ap_cell s t c cs1); subst f cs; auto.
    + injection H as <- <- <-; exists s; repeat split; auto; constructor.
Qed.

(** Is the position with these foundations, cells and columns, autoplayed, one of the
    records? *)
Definition member_ap (f : foundations) (cs : list card) (ids : list N) : bool :=
  let '(f', cs', ids') := autoplay autoplay_fuel f cs ids in member R sorted f' cs' ids'.

(** The position is autoplayed to one of the records. *)
Definition held_ap (s : position) : Prop := exists s', aps s s' /\ held T R s'.

Lemma member_ap_held f cs ids s :
  member_ap f cs ids = true -> home s = f -> cells s = cs ->
  Permutation (columns s) (map (column T) ids) -> held_ap s.
Proof.
  unfold member_ap; destruct (autoplay autoplay_fuel f cs ids) as [[f' cs'] ids'] eqn:E.
  intros M Eh Ec P; destruct (autoplay_spec _ _ _ _ _ _ _ _ E Eh Ec P)
    as [s' [As [Eh' [Ec' P']]]].
  exists s'; split; [exact As | exact (member_held T R sorted _ _ _ _ M Eh' Ec' P')].
Qed.

(** * The records closed under every move then autoplay

    As Check.v's [record_closed], with [member_ap] for [member], without foundation moves, and
    refusing a record whose foundations are full. *)

Section Closure.
Variable fc : nat.

Definition landings_held_ap (f : foundations) (cs : list card) (c : card) (ids : list N)
  : bool :=
  all_splits (fun before b after =>
                if lands T c b then
                  match pushed T b c with
                  | Some e => member_ap f cs (rev_append before (e :: after))
                  | None => false
                  end
                else true) [] ids.

Definition column_moves_held_ap (f : foundations) (cs : list card) (ids : list N) : bool :=
  all_splits (fun before a after =>
             match depth T a with
             | O => true
             | S n =>
                 let c := top T a in
                 let a' := parent T a in
                 let ids1 := rev_append before (a' :: after) in
                 (n =? depth T a')
                 && (if can_home f c
                     then member_ap (set_home_count f (suit_of c) (S (rank c))) cs ids1
                     else true)
                 && (if length cs <? fc then member_ap f (add_cell c cs) ids1 else true)
                 && landings_held_ap f cs c ids1
             end) [] ids.

Definition cell_moves_held_ap (f : foundations) (cs : list card) (ids : list N) : bool :=
  forallb (fun '(c, others) =>
             (if can_home f c
              then member_ap (set_home_count f (suit_of c) (S (rank c))) others ids else true)
             && landings_held_ap f others c ids) (picks cs).

(** Record [k]'s foundations are not full, and every move from it, autoplayed, leads to a
    record. *)
Definition record_closed_ap (k : N) : bool :=
  let f := rhome R k in
  let cs := rcells R k in
  let ids := rids R k in
  negb (full f) && column_moves_held_ap f cs ids && cell_moves_held_ap f cs ids.

Lemma landings_held_ap_spec f cs c ids t y O :
  landings_held_ap f cs c ids = true -> Permutation (map (column T) ids) (y :: O) ->
  can_land c y = true -> home t = f -> cells t = cs ->
  Permutation (columns t) ((c :: y) :: O) -> held_ap t.
Proof.
  intros H P L Eh Ec Pt; destruct (perm_split T _ _ _ P) as [A [b [B [-> [Eb PO]]]]].
  unfold landings_held_ap in H; apply all_splits_at in H; cbv beta iota in H.
  rewrite lands_eq, Eb, L in H; destruct (pushed T b c) as [e|] eqn:E; [|discriminate].
  rewrite rev_append_twice in H.
  apply (member_ap_held _ _ _ _ H Eh Ec).
  refine (perm_trans Pt (Permutation_sym (perm_trans (perm_middle T A B e) _))).
  rewrite (pushed_column T _ _ _ E), Eb; exact (perm_skip _ PO).
Qed.

Lemma record_closed_ap_spec k t :
  record_closed_ap k = true -> ustep fc false (record T R k) t -> held_ap t.
Proof.
  unfold record_closed_ap, record; rewrite !andb_true_iff.
  intros [[_ Hcol] Hcell] U.
  set (f := rhome R k) in *; set (cs := rcells R k) in *; set (ids := rids R k) in *.
  assert (Col : forall c rest O, Permutation (map (column T) ids) ((c :: rest) :: O) ->
    exists A a' B, Permutation (map (column T) (A ++ a' :: B)) (rest :: O) /\
      (can_home f c = true ->
       member_ap (set_home_count f (suit_of c) (S (rank c))) cs (A ++ a' :: B) = true) /\
      ((length cs <? fc) = true -> member_ap f (add_cell c cs) (A ++ a' :: B) = true) /\
      landings_held_ap f cs c (A ++ a' :: B) = true).
  { intros c rest O P; destruct (perm_split T _ _ _ P) as [A [a [B [Ei [Ea PO]]]]].
    unfold column_moves_held_ap in Hcol; rewrite Ei in Hcol; apply all_splits_at in Hcol.
    destruct (column_cons T _ _ _ Ea) as [n [Dn [Tc Rest]]]; cbv beta iota in Hcol.
    rewrite rev_append_twice in Hcol.
    rewrite Dn, Tc in Hcol; rewrite !andb_true_iff in Hcol.
    destruct Hcol as [[[En Hh] Hc] Hl]; apply Nat.eqb_eq in En.
    exists A, (parent T a), B; repeat split; auto.
    - refine (perm_trans (perm_middle T A B _) _).
      unfold column at 1; rewrite <- En, Rest; exact (perm_skip _ PO).
    - intros E; rewrite E in Hh; exact Hh.
    - intros E; rewrite E in Hc; exact Hc. }
  destruct U as [c rest O P E Eh Ec Pt | c rest O P E Eh Ec Pt
                | c rest y O1 O2 P P2 L Eh Ec Pt | c others Hin E Eh Ec Pt
                | c others y O Hin P L Eh Ec Pt | su r y O Fm E P L Eh Ec Pt];
    simpl in *.
  - destruct (Col c rest O P) as [A [a' [B [PA [Hh _]]]]].
    apply (member_ap_held _ _ _ _ (Hh E) Eh Ec); exact (perm_trans Pt (Permutation_sym PA)).
  - destruct (Col c rest O P) as [A [a' [B [PA [_ [Hc _]]]]]].
    rewrite <- add_cell_eq in Ec.
    apply (member_ap_held _ _ _ _ (Hc E) Eh Ec); exact (perm_trans Pt (Permutation_sym PA)).
  - destruct (Col c rest O1 P) as [A [a' [B [PA [_ [_ Hl]]]]]].
    exact (landings_held_ap_spec _ _ _ _ _ _ _ Hl (perm_trans PA P2) L Eh Ec Pt).
  - unfold cell_moves_held_ap in Hcell; rewrite forallb_forall in Hcell.
    specialize (Hcell _ Hin); cbv beta iota in Hcell; rewrite E in Hcell.
    apply andb_true_iff in Hcell as [Hh _].
    exact (member_ap_held _ _ _ _ Hh Eh Ec Pt).
  - unfold cell_moves_held_ap in Hcell; rewrite forallb_forall in Hcell.
    specialize (Hcell _ Hin); cbv beta iota in Hcell.
    apply andb_true_iff in Hcell as [_ Hl].
    exact (landings_held_ap_spec _ _ _ _ _ _ _ Hl P L Eh Ec Pt).
  - discriminate.
Qed.

Lemma record_closed_ap_full k : record_closed_ap k = true -> full (rhome R k) = false.
Proof.
  unfold record_closed_ap; rewrite !andb_true_iff; intros [[N _] _].
  destruct (full (rhome R k)); [discriminate | reflexivity].
Qed.

(** * Checking the records, or a slice of them (as Check.v's [sweep] and [slice_closed]) *)

Fixpoint sweep_ap (b : nat) (hi k : N) : option N :=
  match b with
  | O => if (k <? hi)%N then if record_closed_ap k then Some (N.succ k) else None else Some k
  | S b' =>
      if (hi <=? k)%N then Some k
      else match sweep_ap b' hi k with Some k' => sweep_ap b' hi k' | None => None end
  end.

Lemma sweep_ap_spec b : forall hi k k', sweep_ap b hi k = Some k' ->
  (k <= k')%N /\ forall j, (k <= j < k')%N -> record_closed_ap j = true.
Proof.
  induction b as [|b IH]; intros hi k k' H; simpl in H.
  - destruct (N.ltb_spec k hi); [|injection H as <-; split; [lia | intros; lia]].
    destruct (record_closed_ap k) eqn:C; [|discriminate]; injection H as <-.
    split; [lia|]; intros j Hj; replace j with k by lia; exact C.
  - destruct (N.leb_spec hi k); [injection H as <-; split; [lia | intros; lia]|].
    destruct (sweep_ap b hi k) as [m|] eqn:E; [|discriminate].
    destruct (IH _ _ _ E) as [L1 C1], (IH _ _ _ H) as [L2 C2]; split; [lia|].
    intros j Hj; destruct (N.ltb_spec j m); [apply C1 | apply C2]; lia.
Qed.

Definition slice_closed_ap (b : nat) (lo hi : N) : bool :=
  match sweep_ap b hi lo with Some k => N.eqb k hi | None => false end.

Theorem slice_closed_ap_spec b lo hi :
  slice_closed_ap b lo hi = true -> forall j, (lo <= j < hi)%N -> record_closed_ap j = true.
Proof.
  unfold slice_closed_ap; destruct (sweep_ap b hi lo) as [k|] eqn:E; [|discriminate].
  intros H; apply N.eqb_eq in H as ->; exact (proj2 (sweep_ap_spec _ _ _ _ E)).
Qed.

Fixpoint slices_closed_ap (fuel : nat) (lo : N) (bounds : list N) (hi : N) : bool :=
  match bounds with
  | [] => slice_closed_ap fuel lo hi
  | b :: rest => slice_closed_ap fuel lo b && slices_closed_ap fuel b rest hi
  end.

Theorem slices_closed_ap_spec fuel bounds : forall lo hi,
  slices_closed_ap fuel lo bounds hi = true ->
  forall j, (lo <= j < hi)%N -> record_closed_ap j = true.
Proof.
  induction bounds as [|b rest IH]; intros lo hi H j Hj; simpl in H.
  { exact (slice_closed_ap_spec _ _ _ H _ Hj). }
  apply andb_true_iff in H as [H1 H2]; destruct (N.ltb_spec j b).
  - apply (slice_closed_ap_spec _ _ _ H1); lia.
  - apply (IH _ _ H2); lia.
Qed.

End Closure.

Variable deal_number : N.

(** Without foundation moves, the start's cards distinct and the start, autoplayed, one of
    the records. *)
Definition start_held_ap (fm : bool) : bool :=
  let s := start_of deal_number in
  let ids := map (column_of T) (columns s) in
  negb fm && columns_match T ids (columns s) && distinct (all_cards s)
  && member_ap (home s) (cells s) ids.

Lemma start_held_ap_spec fm :
  start_held_ap fm = true ->
  fm = false /\ NoDup (all_cards (start deal_number)) /\ held_ap (start deal_number).
Proof.
  rewrite <- start_of_eq.
  unfold start_held_ap; rewrite !andb_true_iff, negb_true_iff; intros [[[F M] D] H].
  split; [exact F | split; [exact (distinct_nodup _ D)|]].
  apply (member_ap_held _ _ _ _ H eq_refl eq_refl); rewrite (columns_match_eq T _ _ M); auto.
Qed.

Section Unwinnable.
Variable fc : nat.

(** Every reachable position is covered by a record (whose cards are distinct). *)
Lemma covered_closed :
  (forall j, (j < count R)%N -> record_closed_ap fc j = true) ->
  NoDup (all_cards (start deal_number)) -> held_ap (start deal_number) ->
  forall P, Reachable deal_number fc false P ->
  exists k, (k < count R)%N /\ covers P (record T R k) /\ NoDup (all_cards (record T R k)).
Proof.
  intros Closed N0 H0.
  assert (Land : forall P Q, covers P Q -> NoDup (all_cards Q) -> held_ap Q ->
    exists k, (k < count R)%N /\ covers P (record T R k) /\ NoDup (all_cards (record T R k))).
  { intros P Q C N [s' [As [k [Hk Sk]]]]; exists k; split; [exact Hk | split].
    - exact (covers_same _ _ _ (aps_covers _ _ _ As C) Sk).
    - exact (Permutation_NoDup (perm_trans (aps_cards _ _ As) (same_cards _ _ Sk)) N). }
  intros P HP; induction HP as [|P P' HP [k [Hk [C N]]] Ht].
  - exact (Land _ _ (covers_refl _) N0 H0).
  - destruct (simulate fc P P' (record T R k) C N (moves_ustep fc false P P' Ht))
      as [C' | [Q' [U C']]].
    + exists k; auto.
    + apply (Land _ Q' C' (Permutation_NoDup (ustep_cards _ _ _ U) N)).
      exact (record_closed_ap_spec fc k Q' (Closed k Hk) U).
Qed.

End Unwinnable.
End Data.

(** * The no-win check closed under autoplay, and its theorem *)

Definition check_nowin_autoplay (deal_number : N) (fc : nat) (fm sorted : bool)
           (T : table) (R : records) : bool :=
  start_held_ap T R sorted deal_number fm && slice_closed_ap T R sorted fc 64 0 (count R).

Lemma nowin_autoplay_of deal_number fc fm sorted T R :
  start_held_ap T R sorted deal_number fm = true ->
  (forall j, (j < count R)%N -> record_closed_ap T R sorted fc j = true) ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  intros Start Closed s Hs W.
  destruct (start_held_ap_spec T R sorted deal_number fm Start) as [-> [N0 H0]].
  destruct (covered_closed T R sorted deal_number fc Closed N0 H0 s Hs) as [k [Hk [C _]]].
  pose proof (record_closed_ap_full T R sorted fc k (Closed k Hk)) as F.
  pose proof (won_full _ _ W C) as F'; unfold record in F'; cbn [home] in F'; congruence.
Qed.

Theorem nowin_autoplay_sound deal_number fc fm sorted T R :
  check_nowin_autoplay deal_number fc fm sorted T R = true ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  unfold check_nowin_autoplay; rewrite andb_true_iff; intros [Start Closed].
  apply (nowin_autoplay_of deal_number fc fm sorted T R Start).
  intros j Hj; apply (slice_closed_ap_spec T R sorted fc _ _ _ Closed); lia.
Qed.

(** The same, with the records checked in slices. *)
Definition check_nowin_autoplay_slices (deal_number : N) (fc : nat) (fm sorted : bool)
           (T : table) (R : records) (bounds : list N) : bool :=
  start_held_ap T R sorted deal_number fm
  && slices_closed_ap T R sorted fc 64 0 bounds (count R).

Theorem nowin_autoplay_slices_sound deal_number fc fm sorted T R bounds :
  check_nowin_autoplay_slices deal_number fc fm sorted T R bounds = true ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  unfold check_nowin_autoplay_slices; rewrite andb_true_iff; intros [Start Closed].
  apply (nowin_autoplay_of deal_number fc fm sorted T R Start).
  intros j Hj; apply (slices_closed_ap_spec T R sorted fc 64 bounds 0 (count R) Closed); lia.
Qed.

From FreeCell Require Import Rules Equality. (* template only *)
From Coq Require Import Bool Arith List NArith. (* template only *)
Import ListNotations. (* template only *)
From Coq Require Import Sorting.Permutation.

(** * The rules never look at the order of the columns

    [reordered sigma cols cols']: [cols'] holds the columns of [cols] in another order, column
    [i] of [cols] being column [sigma i] of [cols'].  Two positions are the same up to the
    order of their columns when they have the same foundations and free cells and their
    columns are reordered.  The lemma [moves_reordered] shows that [moves] commutes with
    reordering: each move from a position has a counterpart from the reordered one, the two
    results again the same up to order.  With [Won] looking at the foundations only, a set of
    positions closed up to order covers everything reachable ([closed_up_to_order]). *)

Definition reordered (sigma : nat -> nat) (cols cols' : list (list card)) : Prop :=
  length cols = length cols' /\
  (forall i, i < length cols -> sigma i < length cols) /\
  (forall i j, i < length cols -> j < length cols -> sigma i = sigma j -> i = j) /\
  (forall i, i < length cols -> nth i cols [] = nth (sigma i) cols' []).

Definition same_up_to_order (s t : position) : Prop :=
  home s = home t /\ cells s = cells t /\ exists sigma, reordered sigma (columns s) (columns t).

Lemma reordered_trans sigma tau a b c :
  reordered sigma a b -> reordered tau b c -> reordered (fun i => tau (sigma i)) a c.
Proof.
  intros [Lab [Bs [Is Ns]]] [Lbc [Bt [It Nt]]]; repeat split.
  - congruence.
  - intros i Hi; rewrite Lab; apply Bt; rewrite <- Lab; auto.
  - intros i j Hi Hj E; apply Is, It; try rewrite <- Lab; auto.
  - intros i Hi; rewrite Ns, Nt; try rewrite <- Lab; auto.
Qed.

Lemma same_up_to_order_trans s t u :
  same_up_to_order s t -> same_up_to_order t u -> same_up_to_order s u.
Proof.
  intros [H1 [C1 [sigma R1]]] [H2 [C2 [tau R2]]]; repeat split; try congruence.
  exists (fun i => tau (sigma i)); eapply reordered_trans; eauto.
Qed.

Lemma reordered_of_permutation cols cols' :
  Permutation cols' cols -> exists sigma, reordered sigma cols cols'.
Proof.
  intros P; apply (Permutation_nth _ _ []) in P as [L [f [Bf [If Nf]]]].
  exists f; repeat split; rewrite L in *; auto.
Qed.

Lemma set_column_0 c cols col : set_column (c :: cols) 0 col = col :: cols.
Proof. reflexivity. Qed.

Lemma set_column_S c cols i col : set_column (c :: cols) (S i) col = c :: set_column cols i col.
Proof. reflexivity. Qed.

Lemma length_set_column cols i col : i < length cols -> length (set_column cols i col) = length cols.
Proof.
  revert i; induction cols as [|c cols IH]; intros [|i] Hi; simpl in Hi;
    try (apply Nat.nlt_0_r in Hi; contradiction).
  - rewrite set_column_0; reflexivity.
  - rewrite set_column_S; simpl; rewrite IH; auto; apply Nat.succ_lt_mono, Hi.
Qed.

Lemma nth_set_column cols i col k :
  i < length cols -> nth k (set_column cols i col) [] = if k =? i then col else nth k cols [].
Proof.
  revert i k; induction cols as [|c cols IH]; intros [|i] [|k] Hi; simpl in Hi;
    try (apply Nat.nlt_0_r in Hi; contradiction); rewrite ?set_column_0, ?set_column_S; simpl; auto.
  apply IH, Nat.succ_lt_mono, Hi.
Qed.

Lemma eqb_injective sigma n i j :
  (forall i j, i < n -> j < n -> sigma i = sigma j -> i = j) -> i < n -> j < n ->
  (sigma i =? sigma j) = (i =? j).
Proof.
  intros Inj Hi Hj; destruct (Nat.eqb_spec i j) as [->|D]; [apply Nat.eqb_refl|].
  apply Nat.eqb_neq; intros E; apply D, Inj; auto.
Qed.

Lemma reordered_set_column sigma cols cols' i col :
  reordered sigma cols cols' -> i < length cols ->
  reordered sigma (set_column cols i col) (set_column cols' (sigma i) col).
Proof.
  intros [L [B [Inj N]]] Hi.
  assert (Hi' : sigma i < length cols') by (rewrite <- L; auto).
  unfold reordered; rewrite !length_set_column by auto.
  repeat split; auto.
  intros k Hk; rewrite !nth_set_column, (eqb_injective sigma (length cols)); auto.
  destruct (k =? i); auto.
Qed.

(** Membership in [pickups], [putdowns] and [moves], spelled out. *)

Lemma in_pickups f cs cols c from r :
  In (c, from, r) (pickups (Position f cs cols)) <->
  (exists i rest, from = FromColumn i /\ i < length cols /\ nth i cols [] = c :: rest /\
                  r = Position f cs (set_column cols i rest)) \/
  (from = FromCell /\ exists others, In (c, others) (picks cs) /\ r = Position f others cols) \/
  (from = FromHome /\ foundation_moves = true /\
   exists su k, home_count f su = S k /\ c = Card k su /\
                r = Position (set_home_count f su k) cs cols).
Proof.
  unfold pickups; rewrite !in_app_iff, in_flat_map, in_map_iff.
  split.
  - intros [[i [Hi H]] | [[[c' others] [E H]] | H]].
    + left; apply in_seq in Hi; destruct (nth i cols []) as [|c' rest] eqn:N; [contradiction|].
      destruct H as [E|[]]; injection E as <- <- <-; exists i, rest; repeat split; auto.
      apply Hi.
    + right; left; injection E as <- <- <-; eauto.
    + right; right; destruct foundation_moves; [|contradiction].
      apply in_flat_map in H as [su [_ H]]; destruct (home_count f su) as [|k] eqn:E;
        [contradiction|].
      destruct H as [E'|[]]; injection E' as <- <- <-; eauto 7.
  - intros [[i [rest [-> [Hi [N ->]]]]] | [[-> [others [H ->]]] | [-> [Fm [su [k [E [-> ->]]]]]]]].
    + left; exists i; rewrite in_seq, N; split; [split; [apply Nat.le_0_l | exact Hi] | left; reflexivity].
    + right; left; exists (c, others); auto.
    + right; right; rewrite Fm; apply in_flat_map; exists su; rewrite E; split;
        [destruct su; simpl; auto | left; reflexivity].
Qed.

Lemma in_putdowns c from f cs cols t :
  In t (putdowns c from (Position f cs cols)) <->
  (may_go_home from && can_home f c = true /\
   t = Position (set_home_count f (suit_of c) (S (rank c))) cs cols) \/
  (exists j, j < length cols /\ may_go_to_column from j && can_land c (nth j cols []) = true /\
             t = Position f cs (set_column cols j (c :: nth j cols []))) \/
  (may_go_to_cell from && (length cs <? free_cells) = true /\
   t = Position f (insert_cell c cs) cols).
Proof.
  unfold putdowns; rewrite !in_app_iff, in_flat_map.
  split.
  - intros [H | [[j [Hj H]] | H]].
    + left; destruct (may_go_home from && can_home f c); [|contradiction].
      destruct H as [<-|[]]; auto.
    + right; left; exists j; apply in_seq in Hj.
      destruct (may_go_to_column from j && can_land c (nth j cols [])); [|contradiction].
      destruct H as [<-|[]]; repeat split; auto; apply Hj.
    + right; right; destruct (may_go_to_cell from && (length cs <? free_cells)); [|contradiction].
      destruct H as [<-|[]]; auto.
  - intros [[E ->] | [[j [Hj [E ->]]] | [E ->]]].
    + left; rewrite E; left; reflexivity.
    + right; left; exists j; rewrite in_seq, E; split; [split; [apply Nat.le_0_l | exact Hj] | left; reflexivity].
    + right; right; rewrite E; left; reflexivity.
Qed.

Lemma in_moves s t :
  In t (moves s) <-> exists c from r, In (c, from, r) (pickups s) /\ In t (putdowns c from r).
Proof.
  unfold moves; rewrite in_flat_map; split.
  - intros [[[c from] r] H]; eauto.
  - intros [c [from [r H]]]; exists (c, from, r); auto.
Qed.

(** A card picked up from column [i] of a position comes from column [sigma i] of the
    reordered one; from a free cell or a foundation, from the same place. *)
Lemma pickups_reordered sigma f cs cols cols' c from r :
  reordered sigma cols cols' ->
  In (c, from, r) (pickups (Position f cs cols)) ->
  exists from' r',
    In (c, from', r') (pickups (Position f cs cols')) /\
    home r = home r' /\ cells r = cells r' /\ reordered sigma (columns r) (columns r') /\
    may_go_home from = may_go_home from' /\ may_go_to_cell from = may_go_to_cell from' /\
    (forall j, j < length (columns r) -> may_go_to_column from j = may_go_to_column from' (sigma j)).
Proof.
  intros R H; pose proof R as [L [B [Inj N]]]; apply in_pickups in H.
  destruct H as [[i [rest [-> [Hi [Ni ->]]]]] | [[-> [others [H ->]]] | [-> [Fm [su [k [E [-> ->]]]]]]]].
  - exists (FromColumn (sigma i)), (Position f cs (set_column cols' (sigma i) rest)).
    split; [apply in_pickups; left; exists (sigma i), rest; rewrite <- N, <- L; auto|].
    simpl; rewrite length_set_column by auto.
    refine (conj eq_refl (conj eq_refl (conj _ (conj eq_refl (conj eq_refl _))))).
    + apply reordered_set_column; auto.
    + intros j Hj; rewrite (eqb_injective sigma (length cols)); auto.
  - exists FromCell, (Position f others cols'); split; [apply in_pickups; right; left; eauto|].
    refine (conj eq_refl (conj eq_refl (conj R (conj eq_refl (conj eq_refl _))))); auto.
  - exists FromHome, (Position (set_home_count f su k) cs cols'); split.
    + apply in_pickups; right; right; eauto 7.
    + refine (conj eq_refl (conj eq_refl (conj R (conj eq_refl (conj eq_refl _))))); auto.
Qed.

Lemma putdowns_reordered sigma c from from' f cs cols cols' t :
  reordered sigma cols cols' ->
  may_go_home from = may_go_home from' -> may_go_to_cell from = may_go_to_cell from' ->
  (forall j, j < length cols -> may_go_to_column from j = may_go_to_column from' (sigma j)) ->
  In t (putdowns c from (Position f cs cols)) ->
  exists t', In t' (putdowns c from' (Position f cs cols')) /\ same_up_to_order t t'.
Proof.
  intros R Eh Ec Ecol H; pose proof R as [L [B [Inj N]]]; apply in_putdowns in H.
  destruct H as [[E ->] | [[j [Hj [E ->]]] | [E ->]]].
  - eexists; split; [apply in_putdowns; left; rewrite <- Eh; split; [exact E | reflexivity]|].
    exact (conj eq_refl (conj eq_refl (ex_intro _ sigma R))).
  - exists (Position f cs (set_column cols' (sigma j) (c :: nth (sigma j) cols' []))); split.
    + apply in_putdowns; right; left; exists (sigma j); rewrite <- L, <- N, <- Ecol; auto.
    + rewrite <- N by auto; refine (conj eq_refl (conj eq_refl (ex_intro _ sigma _))).
      apply reordered_set_column; auto.
  - eexists; split; [apply in_putdowns; right; right; rewrite <- Ec; split; [exact E | reflexivity]|].
    exact (conj eq_refl (conj eq_refl (ex_intro _ sigma R))).
Qed.

Theorem moves_reordered s p t :
  same_up_to_order s p -> In t (moves s) -> exists t', In t' (moves p) /\ same_up_to_order t t'.
Proof.
  destruct s as [f cs cols], p as [f' cs' cols']; intros [Eh [Ec [sigma R]]] H; simpl in *.
  subst f' cs'; apply in_moves in H as [c [from [[g ds rcols] [Hp Hd]]]].
  destruct (pickups_reordered _ _ _ _ _ _ _ _ R Hp)
    as [from' [[g' ds' rcols'] [Hp' [Eg [Eds [R' [Eh [Ec Ecol]]]]]]]].
  simpl in *; subst g' ds'.
  destruct (putdowns_reordered _ _ _ _ _ _ _ _ _ R' Eh Ec Ecol Hd) as [t' [Ht' E]].
  exists t'; split; auto; apply in_moves; eauto.
Qed.

(** * The same moves, computed faster

    [fast_moves] is [moves] reorganised for the virtual machine: it walks the columns once
    instead of looking each one up by its number, and tests with [if] rather than [&&] (which
    would evaluate both sides).  [fast_moves_eq] proves the two equal, so the search may
    compute either. *)

Fixpoint column_pickups (f : foundations) (cs : list card) (cols : list (list card)) (i : nat)
         (rest : list (list card)) : list (card * source * position) :=
  match rest with
  | [] => []
  | [] :: rest' => column_pickups f cs cols (S i) rest'
  | (c :: below) :: rest' =>
      (c, FromColumn i, Position f cs (set_column cols i below))
        :: column_pickups f cs cols (S i) rest'
  end.

Definition fast_pickups (s : position) : list (card * source * position) :=
  let '(Position f cs cols) := s in
  column_pickups f cs cols 0 cols
  ++ map (fun '(c, others) => (c, FromCell, Position f others cols)) (picks cs)
  ++ (if foundation_moves then
        flat_map (fun su => match home_count f su with
                            | 0 => []
                            | S r => [(Card r su, FromHome,
                                       Position (set_home_count f su r) cs cols)]
                            end) [Clubs; Diamonds; Hearts; Spades]
      else []).

(** [can_land], testing the rank before the colours. *)
Definition lands_on (c : card) (col : list card) : bool :=
  match col with
  | [] => true
  | top :: _ => if rank top =? S (rank c) then xorb (red c) (red top) else false
  end.

Lemma lands_on_eq c col : lands_on c col = can_land c col.
Proof.
  destruct col as [|top col]; [reflexivity|]; unfold lands_on, can_land, can_stack.
  destruct (rank top =? S (rank c)); reflexivity.
Qed.

Fixpoint landings (c : card) (from : source) (f : foundations) (cs : list card)
         (cols : list (list card)) (j : nat) (rest : list (list card)) : list position :=
  match rest with
  | [] => []
  | col :: rest' =>
      let more := landings c from f cs cols (S j) rest' in
      if lands_on c col then
        if may_go_to_column from j then Position f cs (set_column cols j (c :: col)) :: more
        else more
      else more
  end.

Definition fast_putdowns (c : card) (from : source) (s : position) : list position :=
  let '(Position f cs cols) := s in
  (if may_go_home from then
     if can_home f c then [Position (set_home_count f (suit_of c) (S (rank c))) cs cols] else []
   else [])
  ++ landings c from f cs cols 0 cols
  ++ (if may_go_to_cell from then
        if length cs <? free_cells then [Position f (insert_cell c cs) cols] else []
      else []).

Definition fast_moves (s : position) : list position :=
  flat_map (fun '(c, from, rest) => fast_putdowns c from rest) (fast_pickups s).

Lemma skipn_cons_nth {A} (l : list A) j x rest d :
  skipn j l = x :: rest -> nth j l d = x /\ skipn (S j) l = rest.
Proof.
  revert l; induction j as [|j IH]; intros [|y l] H; simpl in *; try discriminate.
  - injection H as -> ->; auto.
  - apply IH, H.
Qed.

Lemma column_pickups_eq f cs cols : forall rest i,
  skipn i cols = rest ->
  column_pickups f cs cols i rest =
  flat_map (fun i => match nth i cols [] with
                     | [] => []
                     | c :: below => [(c, FromColumn i, Position f cs (set_column cols i below))]
                     end) (seq i (length rest)).
Proof.
  induction rest as [|col rest IH]; intros i H; [reflexivity|].
  destruct (skipn_cons_nth _ _ _ _ [] H) as [N Skip]; simpl; rewrite N.
  destruct col as [|c below]; rewrite (IH (S i) Skip); reflexivity.
Qed.

Lemma landings_eq c from f cs cols : forall rest j,
  skipn j cols = rest ->
  landings c from f cs cols j rest =
  flat_map (fun j => if may_go_to_column from j && can_land c (nth j cols [])
                     then [Position f cs (set_column cols j (c :: nth j cols []))] else [])
           (seq j (length rest)).
Proof.
  induction rest as [|col rest IH]; intros j H; [reflexivity|].
  destruct (skipn_cons_nth _ _ _ _ [] H) as [N Skip]; simpl; rewrite N, (IH (S j) Skip).
  rewrite lands_on_eq; destruct (may_go_to_column from j), (can_land c col); reflexivity.
Qed.

Lemma fast_moves_eq s : fast_moves s = moves s.
Proof.
  unfold fast_moves, moves.
  replace (fast_pickups s) with (pickups s).
  - apply flat_map_ext; intros [[c from] [f cs cols]]; unfold fast_putdowns, putdowns.
    rewrite (landings_eq c from f cs cols cols 0 eq_refl).
    destruct (may_go_home from), (can_home f c), (may_go_to_cell from), (length cs <? free_cells);
      reflexivity.
  - destruct s as [f cs cols]; unfold fast_pickups, pickups.
    rewrite (column_pickups_eq f cs cols cols 0 eq_refl); reflexivity.
Qed.

(** * One order of the columns for each position: sorted by top card, empty columns first *)

Definition card_leb (c d : card) : bool :=
  match Nat.compare (rank c) (rank d) with
  | Lt => true
  | Gt => false
  | Eq => suit_number (suit_of c) <=? suit_number (suit_of d)
  end.

Definition top_leb (col col' : list card) : bool :=
  match col, col' with
  | [], _ => true
  | _, [] => false
  | c :: _, d :: _ => card_leb c d
  end.

Fixpoint insert_column (col : list card) (cols : list (list card)) : list (list card) :=
  match cols with
  | [] => [col]
  | col' :: rest => if top_leb col col' then col :: cols else col' :: insert_column col rest
  end.

Fixpoint sort_columns (cols : list (list card)) : list (list card) :=
  match cols with
  | [] => []
  | col :: rest => insert_column col (sort_columns rest)
  end.

Definition canonical (s : position) : position :=
  Position (home s) (cells s) (sort_columns (columns s)).

Lemma sort_columns_permutation cols : Permutation (sort_columns cols) cols.
Proof.
  assert (Hins : forall col l, Permutation (insert_column col l) (col :: l)).
  { intros col l; induction l as [|col' l IH]; simpl; auto.
    destruct (top_leb col col'); auto.
    eapply perm_trans; [apply perm_skip, IH | apply perm_swap]. }
  induction cols as [|col cols IH]; simpl; auto.
  eapply perm_trans; [apply Hins | apply perm_skip, IH].
Qed.

Lemma same_up_to_order_canonical s : same_up_to_order s (canonical s).
Proof.
  repeat split; apply reordered_of_permutation, sort_columns_permutation.
Qed.

Theorem closed_up_to_order (S : position -> Prop) :
  S (canonical start) ->
  (forall p t, S p -> In t (moves p) -> S (canonical t)) ->
  (forall p, S p -> ~ Won p) ->
  forall s, Reachable s -> ~ Won s.
Proof.
  intros Hstart Hclosed Hnone.
  assert (Hcover : forall s, Reachable s -> exists p, S p /\ same_up_to_order s p).
  { intros s Hs; induction Hs as [|s t Hs [p [Hp E]] Ht].
    - exists (canonical start); split; [exact Hstart | apply same_up_to_order_canonical].
    - destruct (moves_reordered _ _ _ E Ht) as [t' [Ht' E']].
      exists (canonical t'); split; [exact (Hclosed p t' Hp Ht')|].
      exact (same_up_to_order_trans _ _ _ E' (same_up_to_order_canonical t')). }
  intros s Hs W; destruct (Hcover s Hs) as [p [Hp [Eh _]]].
  apply (Hnone p Hp); unfold Won in *; congruence.
Qed.

(** * A set of positions: a trie on the foundations, free cells and top two cards of columns

    Each position is filed under its key, a list of small numbers; a node lists its children
    by the next number of the key, and a subtree that holds a single position is a leaf that
    keeps the rest of its key.  Only [bucket] and [insert] are used, and the proof needs one
    fact about them ([bucket_insert]), so the choice of key matters for speed only. *)

Definition card_digits (c : card) (more : list nat) : list nat :=
  suit_number (suit_of c) :: rank c :: more.

(** The top two cards of each column ([4]: no card). *)
Fixpoint top_digits (cols : list (list card)) : list nat :=
  match cols with
  | [] => []
  | [] :: rest => 4 :: top_digits rest
  | [c] :: rest => card_digits c (4 :: top_digits rest)
  | (c :: d :: _) :: rest => card_digits c (card_digits d (top_digits rest))
  end.

Fixpoint cell_digits (cs : list card) (more : list nat) : list nat :=
  match cs with
  | [] => more
  | c :: rest => card_digits c (cell_digits rest more)
  end.

Definition key (s : position) : list nat :=
  let f := home s in
  clubs f :: diamonds f :: hearts f :: spades f :: cell_digits (cells s) (top_digits (columns s)).

Inductive trie :=
  | Empty
  | Leaf (rest : list nat) (p : position)  (* one position, filed under the rest of its key *)
  | Node (here : list position) (below : list trie).

Fixpoint digits_eqb (k k' : list nat) : bool :=
  match k, k' with
  | [], [] => true
  | d :: k, d' :: k' => if d =? d' then digits_eqb k k' else false
  | _, _ => false
  end.

Fixpoint bucket (k : list nat) (t : trie) : list position :=
  match t with
  | Empty => []
  | Leaf rest p => if digits_eqb k rest then [p] else []
  | Node here below =>
      match k with
      | [] => here
      | d :: k' => bucket k' (nth d below Empty)
      end
  end.

Fixpoint replace_nth (d : nat) (x : trie) (l : list trie) : list trie :=
  match d, l with
  | O, [] => [x]
  | O, _ :: l' => x :: l'
  | S d', [] => Empty :: replace_nth d' x []
  | S d', y :: l' => y :: replace_nth d' x l'
  end.

(** A trie as a node: a leaf is moved one level down. *)
Definition as_node (t : trie) : list position * list trie :=
  match t with
  | Empty => ([], [])
  | Leaf [] p => ([p], [])
  | Leaf (d :: rest) p => ([], replace_nth d (Leaf rest p) [])
  | Node here below => (here, below)
  end.

Fixpoint insert (k : list nat) (p : position) (t : trie) : trie :=
  match t with
  | Empty => Leaf k p
  | _ =>
      let '(here, below) := as_node t in
      match k with
      | [] => Node (p :: here) below
      | d :: k' => Node here (replace_nth d (insert k' p (nth d below Empty)) below)
      end
  end.

Fixpoint has (s : position) (l : list position) : bool :=
  match l with
  | [] => false
  | p :: l' => if position_eqb s p then true else has s l'
  end.

Definition member (s : position) (t : trie) : bool := has s (bucket (key s) t).

Lemma digits_eqb_refl k : digits_eqb k k = true.
Proof. induction k as [|d k IH]; simpl; auto; rewrite Nat.eqb_refl; auto. Qed.

Lemma digits_eqb_sym k k' : digits_eqb k k' = digits_eqb k' k.
Proof.
  revert k'; induction k as [|d k IH]; intros [|d' k']; simpl; auto.
  rewrite Nat.eqb_sym; destruct (d' =? d); auto.
Qed.

Lemma nth_replace_nth d d' x l :
  nth d' (replace_nth d x l) Empty = if d =? d' then x else nth d' l Empty.
Proof.
  revert d' l; induction d as [|d IH]; intros [|d'] [|y l]; simpl; auto.
  - destruct d'; reflexivity.
  - rewrite IH; destruct (d =? d'); auto; destruct d'; reflexivity.
Qed.

Lemma bucket_Empty k : bucket k Empty = [].
Proof. destruct k; reflexivity. Qed.

Lemma bucket_Leaf k rest p : bucket k (Leaf rest p) = if digits_eqb k rest then [p] else [].
Proof. destruct k; reflexivity. Qed.

Lemma bucket_as_node k t :
  bucket k t = bucket k (Node (fst (as_node t)) (snd (as_node t))).
Proof.
  destruct t as [|[|d rest] p|here below]; cbn [as_node fst snd]; rewrite ?bucket_Leaf.
  - rewrite bucket_Empty; destruct k as [|[|d] k]; simpl; rewrite ?bucket_Empty; reflexivity.
  - destruct k as [|[|d] k]; simpl; rewrite ?bucket_Empty; reflexivity.
  - destruct k as [|d' k]; [reflexivity|]; cbn [bucket digits_eqb]; rewrite nth_replace_nth.
    destruct (Nat.eqb_spec d' d) as [<-|N].
    + rewrite Nat.eqb_refl, bucket_Leaf; reflexivity.
    + rewrite (proj2 (Nat.eqb_neq d d')) by auto; destruct d'; simpl; rewrite bucket_Empty;
        reflexivity.
  - reflexivity.
Qed.

Lemma bucket_insert k k' p t :
  bucket k' (insert k p t) = if digits_eqb k k' then p :: bucket k' t else bucket k' t.
Proof.
  revert k' t; induction k as [|d k IH]; intros k' t.
  - destruct t as [|rest q|here below].
    + simpl; rewrite bucket_Leaf, bucket_Empty, digits_eqb_sym; destruct (digits_eqb k' []); auto.
    + rewrite (bucket_as_node k' (Leaf rest q)).
      destruct rest as [|e rest]; destruct k'; reflexivity.
    + destruct k'; reflexivity.
  - assert (Hnode : forall here below, insert (d :: k) p (Node here below) =
                                       Node here (replace_nth d (insert k p (nth d below Empty)) below))
      by reflexivity.
    destruct t as [|rest q|here below].
    + simpl; rewrite bucket_Leaf, bucket_Empty, digits_eqb_sym; destruct (digits_eqb k' (d :: k)); auto.
    + rewrite (bucket_as_node k' (Leaf rest q)).
      replace (insert (d :: k) p (Leaf rest q))
        with (insert (d :: k) p (Node (fst (as_node (Leaf rest q))) (snd (as_node (Leaf rest q)))))
        by (destruct rest; reflexivity).
      rewrite Hnode; destruct k' as [|d' k']; [reflexivity|]; cbn [bucket digits_eqb].
      rewrite nth_replace_nth; destruct (Nat.eqb_spec d d') as [<-|]; [rewrite IH|]; reflexivity.
    + rewrite Hnode; destruct k' as [|d' k']; [reflexivity|]; cbn [bucket digits_eqb].
      rewrite nth_replace_nth; destruct (Nat.eqb_spec d d') as [<-|]; [rewrite IH|]; reflexivity.
Qed.

Lemma member_empty s : member s Empty = false.
Proof. reflexivity. Qed.

Lemma member_insert s p t : member s (insert (key p) p t) = position_eqb s p || member s t.
Proof.
  unfold member; rewrite bucket_insert.
  destruct (digits_eqb (key p) (key s)) eqn:E; simpl.
  - destruct (position_eqb s p); reflexivity.
  - destruct (position_eqb s p) eqn:Q; [|reflexivity].
    apply position_eqb_eq in Q; subst; rewrite digits_eqb_refl in E; discriminate.
Qed.

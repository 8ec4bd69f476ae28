"""A certificate as one self-contained Coq file (Coq 8.16, standard library only).

The file has two halves. The first is what a reader must trust and is written to be read: cards,
the deal (regenerated from its number with the Microsoft rand() arithmetic, or a custom start
position spelled out), positions, `moves`, `Reachable`, `Won`. The second need not be trusted:
the data and a boolean check that the kernel evaluates with its virtual machine; lemmas proved
by induction (not by computation) turn the check's `true` into the theorem, so a wrong decoder
or tree only makes the check fail.

No-win: `forall s, Reachable s -> ~ Won s`, from the certificate's positions (columns in fixed
places, so no lemma about permuting columns is needed; certify/export.py re-runs the search
with fixed columns when the certificate was taken up to column permutation) stored as a
balanced search tree. Sharing keeps the file small and fast to check: every distinct column is
named once (top card first, so most columns are one card on top of another named column), and
so is every distinct (foundations, free cells) pair and every distinct half (columns 1-4, 5-8)
of a position's columns. Deal 11982 (84,767 positions): 3 MB, about 30 s of CPU and 1 GB in
coqc (benchmarks/bench_coq.py).

Win: `exists s, Reachable s /\\ Won s`, from the positions after each move of the line.
"""

import textwrap
from string import Template

from .board import describe

# The part of the file a reader must trust; rules_section() fills in the $placeholders.
RULES = Template(r"""$header

From Coq Require Import Bool Arith List NArith.
Import ListNotations.

(** * Cards *)

Inductive suit := Clubs | Diamonds | Hearts | Spades.

(** A card's rank is 0 .. 12 for A 2 3 4 5 6 7 8 9 T J Q K. *)
Record card := Card { rank : nat; suit_of : suit }.

Definition red (c : card) : bool :=
  match suit_of c with Diamonds | Hearts => true | Clubs | Spades => false end.

(** Card numbers as in the certificate format: rank * 4 + suit, suits in the order C D H S. *)
Definition suit_number (s : suit) : nat :=
  match s with Clubs => 0 | Diamonds => 1 | Hearts => 2 | Spades => 3 end.

Definition card_number (c : card) : nat := rank c * 4 + suit_number (suit_of c).

Definition card_of_number (n : nat) : card :=
  Card (n / 4) (match n mod 4 with 0 => Clubs | 1 => Diamonds | 2 => Hearts | _ => Spades end).

(** * Positions *)

(** How many cards of each suit are home: a foundation holds the ranks below its count. *)
Record foundations := Home { clubs : nat; diamonds : nat; hearts : nat; spades : nat }.

Definition home_count (f : foundations) (s : suit) : nat :=
  match s with
  | Clubs => clubs f | Diamonds => diamonds f | Hearts => hearts f | Spades => spades f
  end.

Definition set_home_count (f : foundations) (s : suit) (n : nat) : foundations :=
  match s with
  | Clubs => Home n (diamonds f) (hearts f) (spades f)
  | Diamonds => Home (clubs f) n (hearts f) (spades f)
  | Hearts => Home (clubs f) (diamonds f) n (spades f)
  | Spades => Home (clubs f) (diamonds f) (hearts f) n
  end.

(** A column is the list of its cards from the top (the only card that can move) down to the
    bottom.  The free cells are a set, kept as a list in ascending card number, so that a set
    of cards has one form.  The columns are in their fixed places 1 .. 8. *)
Record position := Position {
  home : foundations;
  cells : list card;
  columns : list (list card)
}.

(** Won: all 52 cards are home. *)
Definition Won (s : position) : Prop := home s = Home 13 13 13 13.

$start_section

(** * The rules: single-card moves *)

Definition free_cells : nat := $free_cells.

(** May a foundation's top card move back onto a column?  (A variant of the rules.) *)
Definition foundation_moves : bool := $foundation_moves.

(** [c] may lie on [onto] in a column: one rank lower and the other colour. *)
Definition can_stack (c onto : card) : bool :=
  (rank onto =? S (rank c)) && xorb (red c) (red onto).

(** [c] may go home when its foundation holds exactly the ranks below it. *)
Definition can_home (f : foundations) (c : card) : bool :=
  home_count f (suit_of c) =? rank c.

(** [c] may land on a column that is empty or whose top card it stacks on. *)
Definition can_land (c : card) (column : list card) : bool :=
  match column with [] => true | top :: _ => can_stack c top end.

Fixpoint insert_cell (c : card) (cs : list card) : list card :=
  match cs with
  | [] => [c]
  | d :: rest => if card_number c <=? card_number d then c :: cs else d :: insert_cell c rest
  end.

Definition set_column (cols : list (list card)) (i : nat) (col : list card) :=
  firstn i cols ++ col :: skipn (S i) cols.

(** Each element of a list, with the list of the others. *)
Fixpoint picks {A} (l : list A) : list (A * list A) :=
  match l with
  | [] => []
  | x :: rest => (x, rest) :: map (fun '(y, others) => (y, x :: others)) (picks rest)
  end.

(** Where a moving card comes from. *)
Inductive source := FromColumn (i : nat) | FromCell | FromHome.

(** Every card that may be picked up, where it comes from, and the position without it:
    the top card of a non-empty column, any card in a free cell, and (only with
    [foundation_moves]) the top card of a non-empty foundation. *)
Definition pickups (s : position) : list (card * source * position) :=
  let '(Position f cs cols) := s in
  flat_map (fun i => match nth i cols [] with
                     | [] => []
                     | c :: rest => [(c, FromColumn i, Position f cs (set_column cols i rest))]
                     end) (seq 0 (length cols))
  ++ map (fun '(c, others) => (c, FromCell, Position f others cols)) (picks cs)
  ++ (if foundation_moves then
        flat_map (fun su => match home_count f su with
                            | 0 => []
                            | S r => [(Card r su, FromHome,
                                       Position (set_home_count f su r) cs cols)]
                            end) [Clubs; Diamonds; Hearts; Spades]
      else []).

Definition may_go_home (from : source) : bool :=
  match from with FromHome => false | _ => true end.

Definition may_go_to_column (from : source) (j : nat) : bool :=
  match from with FromColumn i => negb (i =? j) | _ => true end.

Definition may_go_to_cell (from : source) : bool :=
  match from with FromColumn _ => true | _ => false end.

(** Every position reached by putting [c], picked up from [from], down in [s] (the position
    without [c]): on its foundation, on another column, or in an empty free cell. *)
Definition putdowns (c : card) (from : source) (s : position) : list position :=
  let '(Position f cs cols) := s in
  (if may_go_home from && can_home f c
   then [Position (set_home_count f (suit_of c) (S (rank c))) cs cols] else [])
  ++ flat_map (fun j => if may_go_to_column from j && can_land c (nth j cols [])
                        then [Position f cs (set_column cols j (c :: nth j cols []))] else [])
              (seq 0 (length cols))
  ++ (if may_go_to_cell from && (length cs <? free_cells)
      then [Position f (insert_cell c cs) cols] else []).

(** Every position one single-card move away.  Nothing else is a move. *)
Definition moves (s : position) : list position :=
  flat_map (fun '(c, from, rest) => putdowns c from rest) (pickups s).

Inductive Reachable : position -> Prop :=
  | reach_start : Reachable start
  | reach_move : forall s t, Reachable s -> In t (moves s) -> Reachable t.

(** * Why a closed set suffices: induction on [Reachable], no computation *)

Theorem closed_set_covers_reachable (S : position -> Prop) :
  S start ->
  (forall s t, S s -> In t (moves s) -> S t) ->
  (forall s, S s -> ~ Won s) ->
  forall s, Reachable s -> S s /\ ~ Won s.
Proof.
  intros Hstart Hclosed Hnone s Hs.
  assert (S s) as HS by (induction Hs; eauto).
  auto.
Qed.

(** ------------------------------------------------------------------------------------
    Nothing below this line needs to be trusted, only the final theorem's statement.
    ------------------------------------------------------------------------------------ *)

""")

COMPARE = r"""(** * Comparing positions *)

Definition compare_card (c d : card) : comparison :=
  match Nat.compare (rank c) (rank d) with
  | Eq => Nat.compare (suit_number (suit_of c)) (suit_number (suit_of d))
  | other => other
  end.

Fixpoint compare_list {A} (cmp : A -> A -> comparison) (l m : list A) : comparison :=
  match l, m with
  | [], [] => Eq
  | [], _ => Lt
  | _, [] => Gt
  | x :: l', y :: m' => match cmp x y with Eq => compare_list cmp l' m' | other => other end
  end.

Definition compare_home (f g : foundations) : comparison :=
  match Nat.compare (clubs f) (clubs g) with
  | Eq => match Nat.compare (diamonds f) (diamonds g) with
          | Eq => match Nat.compare (hearts f) (hearts g) with
                  | Eq => Nat.compare (spades f) (spades g)
                  | other => other
                  end
          | other => other
          end
  | other => other
  end.

Definition compare_top (col col' : list card) : comparison :=
  match col, col' with
  | [], [] => Eq
  | [], _ => Lt
  | _, [] => Gt
  | c :: _, c' :: _ => compare_card c c'
  end.

(** Positions are ordered by foundations, then free cells, then the columns' top cards (cheap
    to compare, and usually decisive), then the columns in full. *)
Definition compare_position (s t : position) : comparison :=
  match compare_home (home s) (home t) with
  | Eq =>
    match compare_list compare_card (cells s) (cells t) with
    | Eq =>
      match compare_list compare_top (columns s) (columns t) with
      | Eq => compare_list (compare_list compare_card) (columns s) (columns t)
      | other => other
      end
    | other => other
    end
  | other => other
  end.

Lemma compare_card_eq c d : compare_card c d = Eq -> c = d.
Proof.
  destruct c as [r s], d as [r' s']; unfold compare_card; simpl.
  destruct (Nat.compare r r') eqn:E; try discriminate.
  apply Nat.compare_eq in E; subst.
  destruct s, s'; simpl; congruence.
Qed.

Lemma compare_list_eq {A} (cmp : A -> A -> comparison) :
  (forall x y, cmp x y = Eq -> x = y) -> forall l m, compare_list cmp l m = Eq -> l = m.
Proof.
  intros Hcmp l; induction l as [|x l IH]; intros [|y m]; simpl; try congruence.
  destruct (cmp x y) eqn:E; try discriminate.
  intros H; rewrite (Hcmp _ _ E), (IH _ H); reflexivity.
Qed.

Lemma compare_home_eq f g : compare_home f g = Eq -> f = g.
Proof.
  destruct f as [a b c d], g as [a' b' c' d']; unfold compare_home; simpl.
  destruct (Nat.compare a a') eqn:Ea; try discriminate.
  destruct (Nat.compare b b') eqn:Eb; try discriminate.
  destruct (Nat.compare c c') eqn:Ec; try discriminate.
  intros Ed; apply Nat.compare_eq in Ea, Eb, Ec, Ed; subst; reflexivity.
Qed.

Lemma compare_position_eq s t : compare_position s t = Eq -> s = t.
Proof.
  destruct s as [f cs cols], t as [f' cs' cols']; unfold compare_position; simpl.
  destruct (compare_home f f') eqn:E1; try discriminate.
  destruct (compare_list compare_card cs cs') eqn:E2; try discriminate.
  destruct (compare_list compare_top cols cols'); try discriminate.
  intros E3.
  apply compare_home_eq in E1.
  apply (compare_list_eq _ compare_card_eq) in E2.
  apply (compare_list_eq _ (compare_list_eq _ compare_card_eq)) in E3.
  subst; reflexivity.
Qed.

Definition won (s : position) : bool :=
  let f := home s in (clubs f =? 13) && (diamonds f =? 13) && (hearts f =? 13) && (spades f =? 13).

Lemma not_won s : won s = false -> ~ Won s.
Proof. unfold won, Won; intros H E; rewrite E in H; discriminate. Qed.

Lemma is_won s : won s = true -> Won s.
Proof.
  destruct s as [[a b c d] cs cols]; unfold won, Won; simpl.
  rewrite !andb_true_iff, !Nat.eqb_eq; intros [[[-> ->] ->] ->]; reflexivity.
Qed.

"""

NO_WIN_CHECK = Template(r"""(** * A set of positions as a search tree, and the check *)

Inductive tree := Leaf | Node (left : tree) (p : position) (right : tree).

(** The first [n] positions of [l] as a balanced tree, and the positions after them.  ([fuel]
    only makes the recursion structural; [length l] is plenty.) *)
Fixpoint take_tree (fuel n : nat) (l : list position) : tree * list position :=
  match fuel, n with
  | O, _ | _, O => (Leaf, l)
  | S fuel', S n' =>
      let (left, rest) := take_tree fuel' (Nat.div2 n') l in
      match rest with
      | [] => (left, [])
      | p :: rest' =>
          let (right, rest'') := take_tree fuel' (n' - Nat.div2 n') rest' in
          (Node left p right, rest'')
      end
  end.

Definition balanced (l : list position) : tree := fst (take_tree (length l) (length l) l).

Fixpoint member (s : position) (t : tree) : bool :=
  match t with
  | Leaf => false
  | Node l p r => match compare_position s p with
                  | Eq => true
                  | Lt => member s l
                  | Gt => member s r
                  end
  end.

Fixpoint all_nodes (ok : position -> bool) (t : tree) : bool :=
  match t with
  | Leaf => true
  | Node l p r => ok p && all_nodes ok l && all_nodes ok r
  end.

Lemma all_nodes_member ok t s : all_nodes ok t = true -> member s t = true -> ok s = true.
Proof.
  induction t as [|l IHl p r IHr]; simpl; [discriminate|].
  intros Hall; apply andb_true_iff in Hall as [Hall Hr]; apply andb_true_iff in Hall as [Hp Hl].
  destruct (compare_position s p) eqn:E; auto.
  intros _; rewrite (compare_position_eq _ _ E); exact Hp.
Qed.

(** The start is in the tree; no position in it is won; every move from one leads to one. *)
Definition check_cert (t : tree) : bool :=
  member start t &&
  all_nodes (fun s => negb (won s) && forallb (fun u => member u t) (moves s)) t.

Theorem cert_sound t : check_cert t = true -> forall s, Reachable s -> ~ Won s.
Proof.
  unfold check_cert; intros H; apply andb_true_iff in H as [Hstart Hall]; intros s Hs.
  apply (closed_set_covers_reachable (fun s => member s t = true)); auto.
  - intros u v Hu Hv.
    pose proof (all_nodes_member _ _ _ Hall Hu) as Hok; cbn beta in Hok.
    apply andb_true_iff in Hok as [_ Hmoves]; rewrite forallb_forall in Hmoves; auto.
  - intros u Hu.
    pose proof (all_nodes_member _ _ _ Hall Hu) as Hok; cbn beta in Hok.
    apply andb_true_iff in Hok as [Hw _]; apply not_won, negb_true_iff, Hw.
Qed.

(** * The certificate's positions

    Data, not to be read: cards by number (see [card_of_number]); each column named once, top
    card first; each (foundations, free cells) pair named once as a partial [Position]; each
    half (columns 1-4 and 5-8) of a position's columns named once; then the positions, in the
    order of [compare_position], in parts of at most $part_size. *)

Definition cards (numbers : list nat) (below : list card) : list card :=
  map card_of_number numbers ++ below.

Definition P (g : list (list card) -> position) (a b : list (list card)) : position := g (a ++ b).
""")

WIN_CHECK = r"""(** * A line of play, and the check *)

(** [s] and then each position of [line] in turn are one move apart, and the last is won. *)
Fixpoint follows (s : position) (line : list position) : bool :=
  match line with
  | [] => won s
  | t :: rest =>
      existsb (fun u => match compare_position t u with Eq => true | _ => false end) (moves s)
      && follows t rest
  end.

Theorem line_sound line : follows start line = true -> exists s, Reachable s /\ Won s.
Proof.
  cut (forall s, Reachable s -> follows s line = true -> exists w, Reachable w /\ Won w).
  { intros H; apply H, reach_start. }
  induction line as [|t rest IH]; simpl; intros s Hs H.
  - exists s; split; [exact Hs | apply is_won, H].
  - apply andb_true_iff in H as [Hmove Hrest]; apply existsb_exists in Hmove as [u [Hu Heq]].
    destruct (compare_position t u) eqn:E; try discriminate.
    apply compare_position_eq in E; subst u.
    exact (IH t (reach_move s t Hs Hu) Hrest).
Qed.

(** * The line of play

    Data, not to be read: the positions after each move, from the start to a won position.
    Cards by number (see [card_of_number]), columns 1 .. 8 from the top card down. *)

Definition pos (f : foundations) (cs : list nat) (cols : list (list nat)) : position :=
  Position f (map card_of_number cs) (map (map card_of_number) cols).
"""

DEAL_START = r"""(** * The deal, regenerated from its number

    As in docs/certificate-format.md, "The deal": Microsoft's rand() on unsigned 32-bit
    integers, as numbered by FreeCell Pro (deals 1 .. 2^33 - 1). *)

Open Scope N_scope.

Definition next_state (x : N) : N := (x * 214013 + 2531011) mod 2 ^ 32.

(** The value rand() returns for deal [n] once the state has become [x]. *)
Definition rand_value (n x : N) : N :=
  if n <? 2 ^ 31 then (x / 2 ^ 16) mod 2 ^ 15
  else if n <? 2 ^ 32 then (x / 2 ^ 16) mod 2 ^ 15 + 2 ^ 15
  else (x / 2 ^ 16) mod 2 ^ 16 + 1.

Definition first_state (n : N) : N := if n <? 2 ^ 32 then n else n - 2 ^ 32.

Close Scope N_scope.

(** The cards in the order they are dealt: draw deck[j] with j = rand() mod (cards left),
    then move the deck's last card into its place. *)
Fixpoint shuffle (k : nat) (n x : N) (deck : list nat) : list nat :=
  match k with
  | O => []
  | S k' =>
      let x' := next_state x in
      let j := N.to_nat (N.modulo (rand_value n x') (N.of_nat (length deck))) in
      nth j deck 0
        :: shuffle k' n x' (removelast (firstn j deck ++ last deck 0 :: skipn (S j) deck))
  end.

(** Card [i] of the shuffle goes on top of column [i mod 8]; the first eight are the bottoms. *)
Definition dealt_column (dealt : list nat) (i : nat) : list card :=
  rev (map (fun '(_, c) => card_of_number c)
           (filter (fun '(k, _) => k mod 8 =? i) (combine (seq 0 52) dealt))).

Definition deal (n : N) : list (list card) :=
  map (dealt_column (shuffle 52 n (first_state n) (seq 0 52))) (seq 0 8).

Definition deal_number : N := $deal.

Definition start : position := Position (Home 0 0 0 0) [] (deal deal_number)."""

BOARD_START = r"""(** * The start position, spelled out

    Card numbers as in [card_of_number]; columns 1 .. 8 from the bottom card to the top:
$board_text *)

Definition start : position :=
  Position (Home $home) (map card_of_number [$cells])
    (map (fun bottom_up => rev (map card_of_number bottom_up))
      [$columns])."""

FINAL = Template(r"""
(** The computation: the kernel evaluates [check_cert certificate] with its virtual machine
    (the engine of [vm_compute]) when it checks this proof at [Qed].  [vm_cast_no_check] only
    skips a first, identical evaluation by the tactic ([vm_compute. reflexivity.] would run
    the same check twice); it adds nothing to what is trusted. *)
Lemma check_cert_ok : check_cert certificate = true.
Proof. vm_cast_no_check (eq_refl true). Qed.

Theorem $theorem : forall s, Reachable s -> ~ Won s.
Proof. exact (cert_sound certificate check_cert_ok). Qed.

Print Assumptions $theorem.
""")

WIN_FINAL = Template(r"""
Lemma line_ok : follows start line = true.
Proof. vm_compute. reflexivity. Qed.

Theorem $theorem : exists s, Reachable s /\ Won s.
Proof. exact (line_sound line line_ok). Qed.

Print Assumptions $theorem.
""")

PART_SIZE = 1000


def header_comment(title, filename, start_what, untrusted, note):
    paragraphs = [
        f"Written by certify export --coq for Coq 8.16 (Debian's coq package), standard "
        f"library only.  Check it with:  coqc {filename}",
        f"What a reader must trust is the first half of this file, up to the line that says "
        f"nothing below it needs to be trusted: the cards, {start_what}, positions, [moves] "
        f"(the rules), [Reachable], [Won], and the statement of the final theorem.",
        untrusted + "  Print Assumptions at the end shows that the theorem depends on no axiom.",
        note]
    body = "\n\n".join(textwrap.fill(p, 92, initial_indent="    ", subsequent_indent="    ",
                                      break_on_hyphens=False)
                        for p in paragraphs)
    return f"(** {title}\n\n{body} *)"


def theorem_name(deal, claim="no-win"):
    what = f"deal_{deal}" if deal is not None else "board"
    return f"{what}_unwinnable" if claim == "no-win" else f"{what}_winnable"


def numbers(cards):
    return "; ".join(str(c) for c in cards)


def start_section(deal, start):
    if deal is not None:
        return Template(DEAL_START).substitute(deal=deal)
    found, cells, cols = start
    board_text = describe(start, "      ")
    return Template(BOARD_START).substitute(
        board_text=board_text, home=" ".join(str(n) for n in found), cells=numbers(cells),
        columns=";\n       ".join(f"[{numbers(col)}]" for col in cols))


def rules_section(head, start, title, filename, untrusted, note):
    deal = head["deal"]
    setting = (f"{head['cells']} free cells, single-card moves" +
               (", foundation moves allowed" if head["foundation_moves"] else ""))
    start_what = ("the deal (regenerated from its number)" if deal is not None else
                  "the start position")
    return RULES.substitute(
        header=header_comment(f"{title}  ({setting})", filename, start_what, untrusted, note),
        start_section=start_section(deal, start),
        free_cells=head["cells"],
        foundation_moves="true" if head["foundation_moves"] else "false")


def coq_order(position):
    """The order of compare_position: foundations, cells, top cards, then columns top first."""
    found, cells, cols = position
    return (tuple(found), tuple(cells), tuple(tuple(c[-1:]) for c in cols),
            tuple(tuple(reversed(c)) for c in cols))


def column_definitions(columns):
    """Name every column (top card first), building each on a named column below it if any."""
    names = {}
    lines = []
    for col in sorted(columns, key=lambda c: (len(c), c)):  # what lies below is named first
        name_ = names[col] = f"k{len(names)}"
        depth = next((d for d in range(1, len(col)) if col[:-d] in names), len(col))
        below = names[col[:-depth]] if depth < len(col) else "[]"
        lines.append(f"Definition {name_} := cards [{numbers(reversed(col[-depth:]))}] {below}.")
    return names, lines


def data_section(positions):
    positions = sorted(positions, key=coq_order)
    columns = {c for p in positions for c in p[2]}
    col_names, lines = column_definitions(columns)
    groups, halves = {}, [{}, {}]
    texts = []
    for found, cells, cols in positions:
        g = groups.setdefault((bytes(found), bytes(cells)), f"g{len(groups)}")
        a = halves[0].setdefault(cols[:4], f"a{len(halves[0])}")
        b = halves[1].setdefault(cols[4:], f"b{len(halves[1])}")
        texts.append(f"P {g} {a} {b}")
    for (found, cells), g in groups.items():
        lines.append(f"Definition {g} := Position (Home {' '.join(map(str, found))}) "
                     f"(cards [{numbers(cells)}] []).")
    for h in range(2):
        for part, n in halves[h].items():
            lines.append(f"Definition {n} := [{'; '.join(col_names[c] for c in part)}].")
    parts = []
    for i in range(0, len(texts), PART_SIZE):
        parts.append(f"part{len(parts)}")
        lines.append(f"Definition {parts[-1]} : list position :=\n  [" +
                     ";\n   ".join(texts[i:i + PART_SIZE]) + "].")
    lines.append(f"Definition certificate : tree :=\n  balanced (concat [{'; '.join(parts)}]).")
    return "\n".join(lines)


def coq_file(head, start, positions, symmetry_note, filename):
    """The text of the Coq file proving that no position reachable from `start` is won.

    `positions`: (foundations, cells, columns) triples, columns in fixed places, bottom to top.
    """
    deal = head["deal"]
    title = (f"FreeCell deal {deal} cannot be won." if deal is not None else
             "This FreeCell layout cannot be won.")
    untrusted = (
        f"The second half need not be trusted: the certificate's {len(positions):,} positions "
        f"as data, a search tree over them, and a boolean [check_cert].  The kernel computes "
        f"[check_cert] with its virtual machine (the engine of vm_compute), and the lemmas "
        f"that turn the result into the theorem are proved by induction, so a wrong decoder "
        f"or a wrong tree could only make the check fail.")
    rules = rules_section(head, start, title, filename, untrusted, symmetry_note)
    return (rules + "\n" + COMPARE + "\n" + NO_WIN_CHECK.substitute(part_size=PART_SIZE) + "\n"
            + data_section(positions) + "\n" + FINAL.substitute(theorem=theorem_name(deal)))


def coq_position(position):
    found, cells, cols = position
    columns = "; ".join(f"[{numbers(reversed(col))}]" for col in cols)
    return f"pos (Home {' '.join(map(str, found))}) [{numbers(cells)}] [{columns}]"


def coq_win_file(head, start, line, note, filename):
    """The text of the Coq file proving that a won position is reachable from `start`.

    `line`: the positions after each move (columns bottom to top), the last one won.
    """
    deal = head["deal"]
    title = (f"FreeCell deal {deal} can be won." if deal is not None else
             "This FreeCell layout can be won.")
    untrusted = (
        f"The second half need not be trusted: the {len(line)} positions after each move of "
        f"the certificate's line as data, and a boolean [follows] that the kernel computes; "
        f"the lemma that turns its result into the theorem is proved by induction, so wrong "
        f"data could only make the check fail.")
    rules = rules_section(head, start, title, filename, untrusted, note)
    data = ("Definition line : list position := [\n  " +
            ";\n  ".join(coq_position(p) for p in line) + "].")
    return (rules + "\n" + COMPARE + "\n" + WIN_CHECK + "\n" + data + "\n"
            + WIN_FINAL.substitute(theorem=theorem_name(deal, "win")))

(** The trusted part of every proof that `certify export --coq` writes: cards, the deal,
    positions, the rules ([moves]), [Reachable] and [Won].  This template compiles on its own
    (coqc Rules.v) with the values of deal 11982 under the default rules; the exporter puts a
    header in place of this comment and sets [deal_number] (or spells out a start position),
    [free_cells] and [foundation_moves].  Nothing else in it changes from file to file. *)

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

(** * The deal, regenerated from its number

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

Definition deal_number : N := 11982.

Definition start : position := Position (Home 0 0 0 0) [] (deal deal_number).

(** * The rules: single-card moves *)

Definition free_cells : nat := 4.

(** May a foundation's top card move back onto a column?  (A variant of the rules.) *)
Definition foundation_moves : bool := false.

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

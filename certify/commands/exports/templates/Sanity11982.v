(** Sanity checks on the rules of the exported proof for deal 11982: they show that its
    statement is about the game as published, and not vacuous.

    Compile the proof first, then this file, in the same folder:

      certify export --coq certificates/11982.msgpack.zst -o FreeCell11982.v
      coqc FreeCell11982.v && coqc Sanity11982.v

    The layout below is deal 11982 as published (the output of Rosetta Code's "Deal cards for
    FreeCell" in Python, and articles on the deal; ten is T), in the rows in which it is
    dealt: row 1 holds the bottom card of each column. *)

Require Import FreeCell11982.
From Coq Require Import String Ascii List.
Import ListNotations.
Open Scope string_scope.

(** Cards by name: "AH" is the ace of hearts, "TS" the ten of spades. *)
Definition rank_named (r : ascii) : nat :=
  match r with
  | "A" => 0 | "2" => 1 | "3" => 2 | "4" => 3 | "5" => 4 | "6" => 5 | "7" => 6
  | "8" => 7 | "9" => 8 | "T" => 9 | "J" => 10 | "Q" => 11 | "K" => 12
  | _ => 99
  end%char.

Definition suit_named (s : ascii) : suit :=
  match s with "C" => Clubs | "D" => Diamonds | "H" => Hearts | _ => Spades end%char.

Definition named (name : string) : card :=
  match name with
  | String r (String s EmptyString) => Card (rank_named r) (suit_named s)
  | _ => Card 99 Spades
  end.

(** Columns written from the bottom card to the top, as they are dealt. *)
Definition laid_out (cols : list (list string)) : list (list card) :=
  map (fun col => rev (map named col)) cols.

(** The eight columns of rows dealt one card a column, row 1 first. *)
Definition columns_of_rows (rows : list (list string)) : list (list string) :=
  map (fun j => flat_map (fun row => match nth_error row j with Some c => [c] | None => [] end)
                         rows)
      (seq 0 8).

Example deal_11982_is_the_published_layout :
  start = Position (Home 0 0 0 0) [] (laid_out (columns_of_rows [
    ["AH"; "AS"; "4H"; "AC"; "2D"; "6S"; "TS"; "JS"];
    ["3D"; "3H"; "QS"; "QC"; "8S"; "7H"; "AD"; "KS"];
    ["KD"; "6H"; "5S"; "4D"; "9H"; "JH"; "9S"; "3C"];
    ["JC"; "5D"; "5C"; "8C"; "9D"; "TD"; "KH"; "7C"];
    ["6C"; "2C"; "TH"; "QH"; "6D"; "TC"; "4S"; "7S"];
    ["JD"; "7D"; "8H"; "9C"; "2H"; "QD"; "4C"; "5H"];
    ["KC"; "8D"; "2S"; "3S"]])).
Proof. vm_compute. reflexivity. Qed.

(** [Won] can hold: the position with every card home is won. *)
Example won_is_satisfiable : exists s, Won s.
Proof. exists (Position (Home 13 13 13 13) [] [[]; []; []; []; []; []; []; []]). reflexivity. Qed.

(** From the deal there are exactly 11 moves: each of the eight top cards to a free cell,
    the 2H onto the 3S, the QD onto the KC, and the 4C onto the 5H. *)
Example the_deal_has_11_moves : length (moves start) = 11.
Proof. vm_compute. reflexivity. Qed.

(** A legal move: the 2H (top of column 5) onto the 3S (top of column 4), red on black. *)
Example two_of_hearts_onto_three_of_spades :
  In (Position (Home 0 0 0 0) [] (laid_out [
        ["AH"; "3D"; "KD"; "JC"; "6C"; "JD"; "KC"];
        ["AS"; "3H"; "6H"; "5D"; "2C"; "7D"; "8D"];
        ["4H"; "QS"; "5S"; "5C"; "TH"; "8H"; "2S"];
        ["AC"; "QC"; "4D"; "8C"; "QH"; "9C"; "3S"; "2H"];
        ["2D"; "8S"; "9H"; "9D"; "6D"];
        ["6S"; "7H"; "JH"; "TD"; "TC"; "QD"];
        ["TS"; "AD"; "9S"; "KH"; "4S"; "4C"];
        ["JS"; "KS"; "3C"; "7C"; "7S"; "5H"]]))
     (moves start).
Proof. vm_compute. repeat (first [left; reflexivity | right]). Qed.

(** Not a move: the 2S (top of column 3) onto the 3S (top of column 4), black on black. *)
Example no_two_of_spades_onto_three_of_spades :
  ~ In (Position (Home 0 0 0 0) [] (laid_out [
          ["AH"; "3D"; "KD"; "JC"; "6C"; "JD"; "KC"];
          ["AS"; "3H"; "6H"; "5D"; "2C"; "7D"; "8D"];
          ["4H"; "QS"; "5S"; "5C"; "TH"; "8H"];
          ["AC"; "QC"; "4D"; "8C"; "QH"; "9C"; "3S"; "2S"];
          ["2D"; "8S"; "9H"; "9D"; "6D"; "2H"];
          ["6S"; "7H"; "JH"; "TD"; "TC"; "QD"];
          ["TS"; "AD"; "9S"; "KH"; "4S"; "4C"];
          ["JS"; "KS"; "3C"; "7C"; "7S"; "5H"]]))
       (moves start).
Proof. vm_compute. intros H; repeat destruct H as [H|H]; try discriminate H; exact H. Qed.

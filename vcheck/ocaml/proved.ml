(* The proved checker, extracted from Coq, in its two forms: a numbered deal (Vcheck_core),
   or a start position given as data (Vcheck_board). *)

module type CORE = sig
  type nat = O | S of nat
  type suit = Clubs | Diamonds | Hearts | Spades
  type card = { rank : nat; suit_of : suit }
  type foundations = { clubs : nat; diamonds : nat; hearts : nat; spades : nat }
  type position = { home : foundations; cells : card list; columns : card list list }
  type table = { depth : int -> nat; top : int -> card; parent : int -> int;
                 push : int -> card -> int; column_of : card list -> int }
  type records = { count : int; rhome : int -> foundations; rcells : int -> card list;
                   rids : int -> int list; find : foundations -> card list -> int list -> int }
  type start
  type data =
    | Line of (card * nat) list
    | Records of bool * bool * table * records * int list * (int -> int -> bool) option
  val start_ok : start -> bool -> bool -> bool -> table -> records -> bool
  val slice_ok : bool -> bool -> nat -> bool -> table -> records -> int -> int -> bool
  (* Coq's strings (a list of 8-bit characters), last: the name shadows OCaml's. *)
  type ascii = Ascii of bool * bool * bool * bool * bool * bool * bool * bool
  type string = EmptyString | String of ascii * string
  val verdict : start -> string -> nat -> bool -> data -> string option
end

module Numbered = struct
  include Vcheck_core
  type start = int
end

module Custom = struct
  include Vcheck_board
  type start = position
end


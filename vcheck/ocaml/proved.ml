(* The proved checker, extracted from Coq, in its two forms: a numbered deal (Vcheck_core),
   or a start position given as data (Vcheck_board). *)

module type CORE = sig
  type nat = O | S of nat
  type suit = Clubs | Diamonds | Hearts | Spades
  type card = { rank : nat; suit_of : suit }
  type foundations = { clubs : nat; diamonds : nat; hearts : nat; spades : nat }
  type position = { home : foundations; cells : card list; columns : card list list }
  (* (Coq's [N] is [Num.t]: OCaml's int here, JavaScript's numbers in the page.) *)
  type table = { depth : Num.t -> nat; top : Num.t -> card; parent : Num.t -> Num.t;
                 push : Num.t -> card -> Num.t; column_of : card list -> Num.t }
  type records = { count : Num.t; rhome : Num.t -> foundations; rcells : Num.t -> card list;
                   rids : Num.t -> Num.t list;
                   find : foundations -> card list -> Num.t list -> Num.t }
  type start
  type data =
    | Line of (card * nat) list
    | Records of bool * bool * table * records * Num.t list * (Num.t -> Num.t -> bool) option
  val start_ok : start -> bool -> bool -> bool -> table -> records -> bool
  val slice_ok : bool -> bool -> nat -> bool -> table -> records -> Num.t -> Num.t -> bool
  (* Coq's strings (a list of 8-bit characters), last: the name shadows OCaml's. *)
  type ascii = Ascii of bool * bool * bool * bool * bool * bool * bool * bool
  type string = EmptyString | String of ascii * string
  val verdict : start -> string -> nat -> bool -> data -> string option
end

module Numbered = struct
  include Vcheck_core
  type start = Num.t
end

module Custom = struct
  include Vcheck_board
  type start = position
end


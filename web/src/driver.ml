(* The web page's driver: reads a FreeCell certificate in the browser and hands its data to the
   checker proved in Coq, extracted by web/coq/ExtractWeb.v and compiled to JavaScript.

   It reads the file as vcheck/ocaml/vcheck.ml does, and refuses what vcheck refuses with the
   same line, but under js_of_ocaml, where OCaml's [int] is 32 bits wide: every number that can
   pass 2 ^ 30 (a deal, a count, a length, a place in the data) is an [Int64.t] or a [float]
   holding a whole number (exact below 2 ^ 53), never an [int].  The core's numbers are floats
   (web/coq/ExtractWeb.v).

   Trusted here: only the lines marked TRUSTED, which say which deal (or start position) and
   which rules the proved function was applied to, and print its theorem from those same
   values.  Everything else (decompression, msgpack, the column tree, the hash table that
   finds a record, the picture's facts) is data and hints for the proved checker: a wrong
   answer there can only make the check fail. *)

open Js_of_ocaml

module type CORE = sig
  type nat = O | S of nat
  type suit = Clubs | Diamonds | Hearts | Spades
  type card = { rank : nat; suit_of : suit }
  type foundations = { clubs : nat; diamonds : nat; hearts : nat; spades : nat }
  type position = { home : foundations; cells : card list; columns : card list list }
  type table = { depth : float -> nat; top : float -> card; parent : float -> float;
                 push : float -> card -> float; column_of : card list -> float }
  type records = { count : float; rhome : float -> foundations; rcells : float -> card list;
                   rids : float -> float list;
                   find : foundations -> card list -> float list -> float }
  type start
  val check_nowin : start -> nat -> bool -> bool -> table -> records -> bool
  val check_win : start -> nat -> bool -> (card * nat) list -> bool
  val check_nowin_autoplay : start -> nat -> bool -> bool -> table -> records -> bool
end

module Numbered = struct
  include Vcheck_core
  type start = float
end

module Custom = struct
  include Vcheck_board
  type start = position
end

(* ---- Errors: one line each ---- *)

exception Unreadable of string
exception Rejected of string

let unreadable fmt = Printf.ksprintf (fun s -> raise (Unreadable s)) fmt
let rejected fmt = Printf.ksprintf (fun s -> raise (Rejected s)) fmt

(* A whole float as vcheck prints an int. *)
let num (x : float) = Printf.sprintf "%.0f" x

(* ---- What the page's JavaScript gives: the file, its decompression, XXH3 ---- *)

type buf = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t
type js = Js.Unsafe.any

let host () : js = Js.Unsafe.get Js.Unsafe.global "vcheckHost"
let call name (args : js array) = Js.Unsafe.meth_call (host ()) name args
let typed (b : buf) : js = Js.Unsafe.get b "data"   (* the Uint8Array behind a Bigarray *)
let int_arg (n : int) : js = Js.Unsafe.inject n

let now () : float = call "now" [||]    (* (a JavaScript number is an OCaml float) *)

(* A zstd stream over the file (web/src/host.js): up to [len] bytes of the data into [win] at
   [off], fewer only at its end; a refusal as zstd's own words, raised as Failure. *)
let stream_read (z : js) (win : buf) off len =
  let got : int = Js.Unsafe.meth_call z "read" [| typed win; int_arg off; int_arg len |] in
  if got < 0 then failwith (Js.to_string (Js.Unsafe.get z "error"));
  got

let xxh3_begin () : js = call "xxh3" [||]
let xxh3_add (h : js) (win : buf) off len =
  if len > 0 then ignore (Js.Unsafe.meth_call h "add" [| typed win; int_arg off; int_arg len |])
let xxh3_end (h : js) : string = Js.to_string (Js.Unsafe.meth_call h "end" [||])

(* Progress: at most a few times a second. *)
let progress_next = ref 0.0
let progress text =
  let t = now () in
  if t >= !progress_next then begin
    progress_next := t +. 0.25;
    ignore (call "progress" [| Js.Unsafe.inject (Js.string text) |])
  end

(* ---- Keyed hashing: simple tabulation under a key drawn at random each run ----

   Where a lookup starts, in the records' table and the column tree's: the XOR of one random
   word for each byte and its place.  The words come from the browser's crypto.getRandomValues,
   so no file can be made to crowd one stretch of a table (vcheck uses SipHash under a random
   key for the same end).  Membership is always decided by comparing bytes. *)

let key_words = 64 * 256
let key = Array.make key_words 0
let draw_key () =
  let words : js = call "randomWords" [| int_arg key_words |] in   (* a Uint32Array *)
  for i = 0 to key_words - 1 do
    key.(i) <- (Js.Unsafe.get words i : int) land 0x3fffffff
  done

let hash_string (s : string) =
  let h = ref key.(63 * 256 + (String.length s land 255)) in
  String.iteri (fun j ch -> h := !h lxor key.(((j land 63) lsl 8) lor Char.code ch)) s;
  !h

let hash_int (n : int) =
  key.(n land 255) lxor key.(256 lor ((n lsr 8) land 255))
  lxor key.(512 lor ((n lsr 16) land 255)) lxor key.(768 lor ((n lsr 24) land 255))

module Strings = Hashtbl.Make (struct
    type t = string
    let equal = String.equal
    let hash = hash_string
  end)

let get (d : buf) i = Char.code (Bigarray.Array1.unsafe_get d i)

(* ---- The data, a window of it at a time ---- *)

(* As vcheck's [source]: [win] holds the data from [pos] to [lim]; [taken] bytes of the data
   are read (a float: a range's data may pass 2 ^ 31 bytes). *)
type source = { z : js; mutable win : buf; mutable pos : int; mutable lim : int;
                mutable ended : bool; mutable hash : js option; mutable taken : float }

let source_open (file : js) =
  { z = call "zstd" [| file |]; win = Bigarray.(Array1.create char c_layout (1 lsl 20));
    pos = 0; lim = 0; ended = false; hash = None; taken = 0.0 }

let ensure s n =
  let open Bigarray in
  if s.lim - s.pos < n then begin
    if s.pos > 0 then begin
      let kept = s.lim - s.pos in
      Array1.blit (Array1.sub s.win s.pos kept) (Array1.sub s.win 0 kept);
      s.pos <- 0; s.lim <- kept
    end;
    if Array1.dim s.win < n then begin
      let bigger = Array1.create char c_layout (max n (2 * Array1.dim s.win)) in
      Array1.blit (Array1.sub s.win 0 s.lim) (Array1.sub bigger 0 s.lim);
      s.win <- bigger
    end;
    while s.lim < n && not s.ended do
      let got = stream_read s.z s.win s.lim (Array1.dim s.win - s.lim) in
      Option.iter (fun h -> xxh3_add h s.win s.lim got) s.hash;
      if got = 0 then s.ended <- true else s.lim <- s.lim + got
    done
  end;
  s.lim - s.pos >= n

(* ---- msgpack, decoded by hand: only what the format uses ---- *)

type value =
  | Nil | Bool of bool | Int of Int64.t | Str of string
  | Bin of int * int                      (* offset and length in the window *)
  | Arr of value array | Map of (value * value) list

type cursor = { data : buf; mutable pos : int; limit : int }

let byte c =
  if c.pos >= c.limit then unreadable "the data is cut short inside a msgpack value";
  let b = get c.data c.pos in
  c.pos <- c.pos + 1;
  b

let uint c n =
  let r = ref 0L in
  for i = 1 to n do
    let b = byte c in
    if i = 1 && n = 8 && b >= 0x40 then unreadable "a msgpack number is too large";
    r := Int64.logor (Int64.shift_left !r 8) (Int64.of_int b)
  done;
  !r

let sint c n =
  let u = uint c n in
  if n < 8 && Int64.compare u (Int64.shift_left 1L (8 * n - 1)) >= 0
  then Int64.sub u (Int64.shift_left 1L (8 * n)) else u

(* (Every length here is below 2 ^ 32: as a float, exact.) *)
let room c (n : float) what =
  if n < 0.0 || n > float (c.limit - c.pos) then
    unreadable "the data is cut short inside %s" what

let rec value c depth =
  if depth > 4 then unreadable "msgpack values nest too deeply";
  let b = byte c in
  let len n = Int64.to_float (uint c n) in
  if b <= 0x7f then Int (Int64.of_int b)
  else if b >= 0xe0 then Int (Int64.of_int (b - 256))
  else if b land 0xf0 = 0x80 then map c (float (b land 0x0f)) depth
  else if b land 0xf0 = 0x90 then arr c (float (b land 0x0f)) depth
  else if b land 0xe0 = 0xa0 then str c (float (b land 0x1f))
  else
    match b with
    | 0xc0 -> Nil
    | 0xc2 -> Bool false
    | 0xc3 -> Bool true
    | 0xc4 -> bin c (len 1)
    | 0xc5 -> bin c (len 2)
    | 0xc6 -> bin c (len 4)
    | 0xcc -> Int (uint c 1)
    | 0xcd -> Int (uint c 2)
    | 0xce -> Int (uint c 4)
    | 0xcf -> Int (uint c 8)
    | 0xd0 -> Int (sint c 1)
    | 0xd1 -> Int (sint c 2)
    | 0xd2 -> Int (sint c 4)
    | 0xd3 -> Int (sint c 8)
    | 0xd9 -> str c (len 1)
    | 0xda -> str c (len 2)
    | 0xdb -> str c (len 4)
    | 0xdc -> arr c (len 2) depth
    | 0xdd -> arr c (len 4) depth
    | 0xde -> map c (len 2) depth
    | 0xdf -> map c (len 4) depth
    | _ -> unreadable "msgpack type 0x%02x is not used by the format" b

and bin c n =
  room c n "a bin";
  let p = c.pos and n = int_of_float n in
  c.pos <- p + n;
  Bin (p, n)

and str c n =
  room c n "a str";
  let n = int_of_float n in
  let s = String.init n (fun i -> Char.chr (get c.data (c.pos + i))) in
  c.pos <- c.pos + n;
  Str s

and arr c n depth =
  if n > 16.0 then unreadable "the header holds a msgpack array of %s values (at most 16)" (num n);
  room c n "an array";
  let n = int_of_float n in
  let a = Array.make n Nil in
  for i = 0 to n - 1 do a.(i) <- value c (depth + 1) done;
  Arr a

and map c n depth =
  if n > 16.0 then unreadable "the header holds a msgpack map of %s pairs (at most 16)" (num n);
  room c (2.0 *. n) "a map";
  let l = ref [] in
  for _ = 1 to int_of_float n do
    let k = value c (depth + 1) in
    let v = value c (depth + 1) in
    l := (k, v) :: !l
  done;
  Map (List.rev !l)

let rec show = function
  | Nil -> "None" | Bool b -> if b then "True" else "False" | Int n -> Int64.to_string n
  | Str s -> Printf.sprintf "%S" s | Bin (_, n) -> Printf.sprintf "<%d bytes>" n
  | Arr a -> "[" ^ String.concat ", " (Array.to_list (Array.map show a)) ^ "]"
  | Map _ -> "{...}"

(* ---- Headers ---- *)

type header = {
  claim : string; hversion : int; deal : float option; board : (int * int) option;
  cells : int; fm : bool; symmetry : string; count : Int64.t; hash : string;
  first : float; last : float; closure : string;
}

let single_keys = ["board"; "cells"; "claim"; "count"; "deal"; "format"; "foundation_moves";
                   "symmetry"; "version"; "xxh3_64"]
let range_keys = ["cells"; "claim"; "count"; "first"; "format"; "foundation_moves"; "last";
                  "symmetry"; "version"; "xxh3_64"]

let is_hex s = String.length s = 16 &&
               String.for_all (fun ch -> (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')) s

let max_deal = Int64.sub (Int64.shift_left 1L 33) 1L

let python_repr = function
  | Str s when String.for_all (fun ch -> ch >= ' ' && ch < '\127' && ch <> '\'' && ch <> '\\') s ->
      let n = String.length s in
      if n <= 28 then "'" ^ s ^ "'"
      else "'" ^ String.sub s 0 12 ^ "..." ^ String.sub s (n - 13) 13 ^ "'"
  | v -> show v

let read_header c =
  let h = match value c 0 with Map l -> l | _ -> unreadable "the header is not a msgpack map" in
  let keys = List.map (function (Str k, _) -> k | _ -> "?") h in
  let field k = try List.assoc (Str k) h with Not_found -> Nil in
  let bad k = unreadable "header %s = %s" k (show (field k)) in
  if field "format" <> Str "freecell-certificate" then bad "format";
  let hversion = match field "version" with
    | Int v when v = 1L || v = 2L || v = 3L -> Int64.to_int v | _ -> bad "version" in
  let claim = match field "claim" with
    | Str ("no-win" | "win" as s) -> s | Str "range" when hversion >= 2 -> "range"
    | _ -> bad "claim" in
  let expected = if claim = "range" then range_keys else single_keys in
  let named = List.filter (( <> ) "closure") keys in
  if List.sort compare named <> expected || List.length keys <> List.length h
     || List.length keys > List.length named + 1 then
    unreadable "the header keys are not exactly: %s" (String.concat ", " expected);
  let int_in k lo hi = match field k with
    | Int n when Int64.compare n lo >= 0 && Int64.compare n hi <= 0 -> n | _ -> bad k in
  let cells = Int64.to_int (int_in "cells" 0L 8L) in
  let fm = match field "foundation_moves" with Bool b -> b | _ -> bad "foundation_moves" in
  let symmetry = match field "symmetry" with
    | Str ("columns" | "none" as s) -> s | _ -> bad "symmetry" in
  let hash = match field "xxh3_64" with Str s when is_hex s -> s | _ -> bad "xxh3_64" in
  let closure () =
    if List.length named = List.length keys then "moves"
    else match field "closure" with
      | Str "autoplay" when hversion = 3 && claim <> "win" && not fm -> "autoplay"
      | v -> unreadable "header closure = %s is not allowed" (python_repr v) in
  if claim = "range" then begin
    let first = int_in "first" 1L max_deal in
    let last = int_in "last" first max_deal in
    let count = int_in "count" 0L (Int64.shift_left 1L 33) in
    if count <> Int64.add (Int64.sub last first) 1L then bad "count";
    let closure = closure () in
    { claim; hversion; deal = None; board = None; cells; fm; symmetry; count; hash;
      first = Int64.to_float first; last = Int64.to_float last; closure }
  end else begin
    let deal, board = match field "deal", field "board" with
      | Int n, Nil when Int64.compare n 1L >= 0 && Int64.compare n max_deal <= 0 ->
          Some (Int64.to_float n), None
      | Nil, Bin (o, n) -> None, Some (o, n)
      | Int _, _ | Nil, Nil -> bad "deal"
      | _, _ -> bad "board" in
    let count = int_in "count" 0L (if hversion = 3 then Int64.max_int
                                   else Int64.shift_left 1L 32) in
    let closure = closure () in
    { claim; hversion; deal; board; cells; fm; symmetry; count; hash; first = 0.0; last = 0.0;
      closure }
  end

(* ---- Limits (vcheck's defaults) ---- *)

let max_positions = ref 4_000_000
let max_columns = ref 1_000_000
let max_moves = ref 100_000

(* ---- Words ---- *)

let printable s =
  String.concat "" (List.map (fun ch -> if ch >= ' ' && ch <> '\127' then String.make 1 ch
                               else Printf.sprintf "\\x%02x" (Char.code ch))
                      (List.init (String.length s) (String.get s)))

(* Digits grouped by threes, of a whole number given as its decimal digits. *)
let commas_of s =
  let b = Buffer.create 16 in
  String.iteri (fun i ch ->
      if i > 0 && (String.length s - i) mod 3 = 0 then Buffer.add_char b ',';
      Buffer.add_char b ch) s;
  Buffer.contents b

let commas n = commas_of (string_of_int n)
let commas_f x = commas_of (num x)

(* Called now and then with k, as record k is about to be closed. *)
let record_reached = ref (fun (_ : int) -> ())

(* ---- The proved checker's data, built from the certificate (untrusted) ---- *)

module Data (C : CORE) = struct
  open C

  (* TRUSTED: [nat_of n] is the Coq number n (the free cells given to the proved function). *)
  let rec nat_of n = if n = 0 then O else S (nat_of (n - 1))
  let nats = Array.init 64 nat_of
  let suits = [| Clubs; Diamonds; Hearts; Spades |]
  let cards = Array.init 52 (fun i -> { rank = nats.(i lsr 2); suit_of = suits.(i land 3) })

  let rec int_of_nat acc = function O -> acc | S n -> int_of_nat (acc + 1) n
  let suit_number = function Clubs -> 0 | Diamonds -> 1 | Hearts -> 2 | Spades -> 3
  let card_number c = 4 * int_of_nat 0 c.rank + suit_number c.suit_of
  let nat n = if n >= 0 && n < 64 then nats.(n) else O

  (* A column id the core asks about, as an int (ids below 2 ^ 30; others are no column). *)
  let id_of (e : float) = if e >= 0.0 && e < 1073741824.0 then int_of_float e else -1

  (* The column tree, as vcheck's: the table's entries keep their ids, every prefix of an entry
     that is not itself one is added after them.  [push b c]'s answers: a flat array while the
     tree is small, else an open-addressing table keyed by (b, c). *)
  let table ?(autoplay = false) (entries : string array) =
    let ids = Strings.create (2 * Array.length entries + 16) in
    let all = ref [||] and nodes = ref 0 in
    let add s =
      if !nodes = Array.length !all then begin
        let a = Array.make (2 * !nodes + 16) "" in
        Array.blit !all 0 a 0 !nodes; all := a
      end;
      !all.(!nodes) <- s; Strings.replace ids s !nodes; incr nodes; !nodes - 1 in
    Array.iter (fun s -> ignore (add s)) entries;
    let parents = ref [] and i = ref 0 in
    while !i < !nodes do
      let s = !all.(!i) in
      let n = String.length s in
      let p = if n = 0 then 0 else
          let below = String.sub s 0 (n - 1) in
          match Strings.find_opt ids below with Some p -> p | None -> add below in
      parents := p :: !parents;
      incr i
    done;
    let nodes = !nodes in
    let all = Array.sub !all 0 nodes in
    let parent = Array.of_list (List.rev !parents) in
    let flat = nodes <= 1 lsl 16 in
    let push_flat = Array.make (if flat then 52 * nodes else 0) nodes in
    (* (b, c) -> e, by linear probing from a keyed hash of both. *)
    let size = ref 16 in
    if not flat then while !size < 2 * nodes do size := 2 * !size done;
    let mask = !size - 1 in
    let slots = if flat then 0 else !size in
    let slot_b = Array.make slots (-1) and slot_c = Array.make slots 0
    and slot_val = Array.make slots 0 in
    let start b c = (hash_int b lxor key.(1024 lor c)) land mask in
    let put_key b c e =
      let i = ref (start b c) in
      while slot_b.(!i) >= 0 && (slot_b.(!i) <> b || slot_c.(!i) <> c) do
        i := (!i + 1) land mask done;
      slot_b.(!i) <- b; slot_c.(!i) <- c; slot_val.(!i) <- e in
    let find_key b c =
      let i = ref (start b c) in
      while slot_b.(!i) >= 0 && (slot_b.(!i) <> b || slot_c.(!i) <> c) do
        i := (!i + 1) land mask done;
      if slot_b.(!i) >= 0 then slot_val.(!i) else nodes in
    Array.iteri (fun e s -> let n = String.length s in
                  if n > 0 then begin
                    let c = Char.code s.[n - 1] in
                    if flat then push_flat.(parent.(e) * 52 + c) <- e
                    else put_key parent.(e) c e
                  end) all;
    let tops = Array.map (fun s -> let n = String.length s in
                           if n = 0 then cards.(0) else cards.(Char.code s.[n - 1])) all in
    let depths = Array.map (fun s -> nat (String.length s)) all in
    let valid e = e >= 0 && e < nodes in
    let fnodes = float nodes in
    (* Columns the tree does not hold (autoplay, section 8): as vcheck's [push] and
       [column_of], ids from [nodes] on. *)
    let x_parent = ref [| 0.0 |] and x_top = ref [| cards.(0) |] and x_depth = ref [| O |] in
    let extra = ref 1 in
    let known e = e >= fnodes && e < fnodes +. float !extra in
    let depth (e : float) =
      let i = id_of e in
      if valid i then depths.(i) else if known e then !x_depth.(i - nodes) else O in
    let extend i (b : float) c =
      if i = Array.length !x_parent then begin
        let grow a x = Array.append a (Array.make (Array.length a) x) in
        x_parent := grow !x_parent 0.0; x_top := grow !x_top c; x_depth := grow !x_depth O
      end;
      !x_parent.(i) <- b; !x_top.(i) <- c; !x_depth.(i) <- S (depth b);
      fnodes +. float i in
    let push_plain (b : float) c =
      let b = id_of b in
      if not (valid b) then fnodes
      else if flat then float push_flat.(b * 52 + card_number c)
      else float (find_key b (card_number c)) in
    let spelled col = String.concat "" (List.rev_map (fun c ->
        String.make 1 (Char.chr (card_number c land 255))) col) in
    let column_of_plain col =
      match Strings.find_opt ids (spelled col) with Some e -> float e | None -> fnodes in
    if not autoplay then
      { depth = (fun e -> let i = id_of e in if valid i then depths.(i) else O);
        top = (fun e -> let i = id_of e in if valid i then tops.(i) else cards.(0));
        parent = (fun e -> let i = id_of e in if valid i then float parent.(i) else 0.0);
        push = push_plain; column_of = column_of_plain }
    else
    { depth;
      top = (fun e -> let i = id_of e in
              if valid i then tops.(i) else if known e then !x_top.(i - nodes) else cards.(0));
      parent = (fun e -> let i = id_of e in
                 if valid i then float parent.(i) else if known e then !x_parent.(i - nodes)
                 else 0.0);
      push = (fun b c -> let e = push_plain b c in if e = fnodes then extend 0 b c else e);
      column_of = (fun col ->
          let s = spelled col in
          let rec id n =
            match Strings.find_opt ids (String.sub s 0 n) with
            | Some e -> Some (float e)
            | None when n = 0 || Char.code s.[n - 1] >= 52 -> None
            | None ->
                Option.map (fun b -> incr extra; extend (!extra - 1) b cards.(Char.code s.[n - 1]))
                  (id (n - 1)) in
          match id (String.length s) with Some e -> e | None -> fnodes +. 1073741824.0) }

  (* Flat records: row k at k * width of [rows], found through a table of record numbers
     (linear probing from the row's keyed hash), as vcheck's flat store. *)
  let records ~cells ~w ~count (rows : Bytes.t) =
    let width = 4 + cells + 8 * w in
    let hash b off =
      let h = ref 0 in
      for j = 0 to width - 1 do
        h := !h lxor key.((j lsl 8) lor Char.code (Bytes.unsafe_get b (off + j)))
      done;
      !h in
    let size = ref 16 in
    while !size < 2 * count do size := 2 * !size done;
    let slots = Array.make !size 0 in
    let mask = !size - 1 in
    for k = 0 to count - 1 do
      let i = ref (hash rows (k * width) land mask) in
      while Array.unsafe_get slots !i <> 0 do i := (!i + 1) land mask done;
      Array.unsafe_set slots !i (k + 1)
    done;
    let scratch = Bytes.create width in
    let same k =
      let base = k * width in
      let rec go j =
        j = width
        || (Bytes.unsafe_get rows (base + j) = Bytes.unsafe_get scratch j && go (j + 1)) in
      go 0 in
    let lookup () =
      let i = ref (hash scratch 0 land mask) and found = ref count in
      while !found = count && Array.unsafe_get slots !i <> 0 do
        let k = Array.unsafe_get slots !i - 1 in
        if same k then found := k else i := (!i + 1) land mask
      done;
      !found in
    let put j v = Bytes.unsafe_set scratch j (Char.unsafe_chr v) in
    let home_byte j n = let v = int_of_nat 0 n in v <= 13 && (put j v; true) in
    let rec fill_cells j = function
      | [] -> for i = j to cells - 1 do put (4 + i) 0xff done; true
      | c :: rest -> j < cells && (put (4 + j) (card_number c); fill_cells (j + 1) rest) in
    let limit = 2.0 ** float (8 * w) in
    let rec fill_ids j = function
      | [] -> j = 8
      | (e : float) :: rest ->
          j < 8 && e >= 0.0 && e < limit &&
          (let off = 4 + cells + w * j and e = int_of_float e in
           (* (ids of 4 bytes are below 2 ^ 30 here: a larger table is refused) *)
           for i = 0 to w - 1 do put (off + i) ((e lsr (8 * (w - 1 - i))) land 0xff) done;
           fill_ids (j + 1) rest) in
    let encode f cs ids =
      home_byte 0 f.clubs && home_byte 1 f.diamonds && home_byte 2 f.hearts &&
      home_byte 3 f.spades && fill_cells 0 cs && fill_ids 0 ids in
    let row base j = Char.code (Bytes.unsafe_get rows (base + j)) in
    let id base j =
      let off = base + 4 + cells + w * j in
      let v = ref 0 in
      for i = 0 to w - 1 do v := (!v lsl 8) lor row off i done;
      float !v in
    let fcount = float count in
    let index (k : float) = if k >= 0.0 && k < fcount then int_of_float k else -1 in
    let after_find = ref false and closing = ref 0 in
    let reached k =
      if !after_find then after_find := false
      else (incr closing; if !closing land 4095 = 0 then !record_reached k) in
    { count = fcount;
      rhome = (fun k ->
          let k = index k in
          reached k;
          if k >= 0 then
            let b = k * width in
            { clubs = nats.(row b 0); diamonds = nats.(row b 1);
              hearts = nats.(row b 2); spades = nats.(row b 3) }
          else { clubs = O; diamonds = O; hearts = O; spades = O });
      rcells = (fun k ->
          let k = index k in
          if k < 0 then [] else
            let b = k * width and l = ref [] in
            for j = cells - 1 downto 0 do
              let c = row b (4 + j) in if c < 52 then l := cards.(c) :: !l
            done;
            !l);
      rids = (fun k ->
          let k = index k in
          if k < 0 then []
          else let b = k * width in
            [id b 0; id b 1; id b 2; id b 3; id b 4; id b 5; id b 6; id b 7]);
      find = (fun f cs ids ->
          after_find := true; if encode f cs ids then float (lookup ()) else fcount) }

  (* A custom start position from the header's board (TRUSTED: it is the position the
     theorem is about; its meaning is docs/certificate-format.md, "Custom boards"). *)
  let board_position (d : buf) (off, len) ~cells =
    let fail () = rejected "the board is not a position: the 52 cards are not each in one place" in
    if len < 4 + cells then fail ();
    let at i = get d (off + i) in
    let seen = Array.make 52 false in
    let take c = if c >= 52 || seen.(c) then fail () else seen.(c) <- true in
    for s = 0 to 3 do
      if at s > 13 then fail ();
      for r = 0 to at s - 1 do take (4 * r + s) done
    done;
    let cs = ref [] and last = ref (-1) and ended = ref false in
    for j = 0 to cells - 1 do
      let b = at (4 + j) in
      if b = 0xff then ended := true
      else if !ended || b <= !last then fail ()
      else (take b; last := b; cs := cards.(b) :: !cs)
    done;
    let pos = ref (4 + cells) and cols = ref [] in
    for _ = 1 to 8 do
      let col = ref [] in
      while !pos < len && at !pos <> 0xff do
        take (at !pos); col := cards.(at !pos) :: !col; incr pos
      done;
      if !pos >= len then fail ();
      incr pos;
      cols := !col :: !cols
    done;
    if !pos <> len || Array.exists not seen then fail ();
    { home = { clubs = nats.(at 0); diamonds = nats.(at 1); hearts = nats.(at 2);
               spades = nats.(at 3) };
      cells = List.rev !cs; columns = List.rev !cols }

  (* Version 3 move indices as (card, destination) moves, vcheck's [line_of_indices]: not
     trusted ([check_win] checks every move it is given). *)
  let line_of_indices ~start:(home, held, cols) ~cells ~fm (d : buf) off count =
    let held = ref held in
    let ncols = Array.length cols in
    let red x = let su = x land 3 in su = 1 || su = 2 in
    let stacks x onto = onto lsr 2 = (x lsr 2) + 1 && red x <> red onto in
    let card_of = Array.make 24 0 and from_of = Array.make 24 0 and movable = ref 0 in
    let add_source x from =
      let i = ref !movable in
      while !i > 0 && card_of.(!i - 1) > x do
        card_of.(!i) <- card_of.(!i - 1); from_of.(!i) <- from_of.(!i - 1); decr i
      done;
      card_of.(!i) <- x; from_of.(!i) <- from; incr movable in
    let line = ref [] in
    for i = 0 to count - 1 do
      let wanted = get d (off + i) in
      movable := 0;
      Array.iteri (fun j col -> match col with x :: _ -> add_source x j | [] -> ()) cols;
      List.iter (fun x -> add_source x 8) !held;
      if fm then Array.iteri (fun su n -> if n > 0 then add_source (4 * (n - 1) + su) 9) home;
      let listed = ref 0 and chosen = ref (-1, -1, -1) in
      let offer x from dest = (if !listed = wanted then chosen := (x, from, dest)); incr listed in
      let each keep dest =
        for m = 0 to !movable - 1 do
          if keep card_of.(m) from_of.(m) then offer card_of.(m) from_of.(m) dest
        done in
      each (fun x from -> from <> 9 && home.(x land 3) = x lsr 2) 9;
      for j = 0 to ncols - 1 do
        each (fun x from -> from <> j &&
                            (match cols.(j) with [] -> true | onto :: _ -> stacks x onto)) j
      done;
      if List.length !held < cells then each (fun _ from -> from < 8) 8;
      let x, from, dest = !chosen in
      if x < 0 then
        rejected "move %d: index %d, but there are only %d legal moves" (i + 1) wanted !listed;
      if from < 8 then cols.(from) <- List.tl cols.(from)
      else if from = 8 then held := List.filter (( <> ) x) !held
      else home.(x land 3) <- home.(x land 3) - 1;
      if dest < 8 then cols.(dest) <- x :: cols.(dest)
      else if dest = 8 then held := x :: !held
      else home.(x land 3) <- home.(x land 3) + 1;
      line := (cards.(x), nats.(dest)) :: !line
    done;
    List.rev !line
end

module DN = Data (Numbered)
module DC = Data (Custom)

(* Where the moves of version 3 indices start, and what the picture draws (not trusted):
   foundation counts, free cells and columns (top card first) as numbers. *)
let start_of_position (s : Custom.position) =
  let number c = 4 * DC.int_of_nat 0 c.Custom.rank + DC.suit_number c.Custom.suit_of in
  ([| DC.int_of_nat 0 s.home.clubs; DC.int_of_nat 0 s.home.diamonds;
      DC.int_of_nat 0 s.home.hearts; DC.int_of_nat 0 s.home.spades |],
   List.map number s.cells, Array.of_list (List.map (List.map number) s.columns))

(* Deal [n], dealt by docs/certificate-format.md section 2, in whole floats (the state below
   2 ^ 32, its products below 2 ^ 50: exact). *)
let start_of_deal (n : float) =
  let two32 = 4294967296.0 in
  let state = ref (if n < two32 then n else n -. two32) in
  let deck = Array.init 52 (fun i -> i) and left = ref 52 and cols = Array.make 8 [] in
  for i = 0 to 51 do
    state := Float.rem (214013.0 *. !state +. 2531011.0) two32;
    let high = Float.floor (!state /. 65536.0) in
    let r = if n < 2147483648.0 then Float.rem high 32768.0
      else if n < two32 then Float.rem high 32768.0 +. 32768.0
      else Float.rem high 65536.0 +. 1.0 in
    let j = int_of_float (Float.rem r (float !left)) in
    cols.(i land 7) <- deck.(j) :: cols.(i land 7);
    deck.(j) <- deck.(!left - 1);
    decr left
  done;
  ([| 0; 0; 0; 0 |], [], cols)

(* ---- A no-win body: the column table and the records, checked for form ---- *)

(* A set of cards as two ints of 26 bits (js_of_ocaml's ints are 32 bits wide). *)
type cards_set = { mutable lo : int; mutable hi : int }
let all_lo = (1 lsl 26) - 1

let home_cards s n = (* the cards of suit s, ranks below n, as (lo, hi) *)
  let lo = ref 0 and hi = ref 0 in
  for r = 0 to n - 1 do
    let c = 4 * r + s in
    if c < 26 then lo := !lo lor (1 lsl c) else hi := !hi lor (1 lsl (c - 26))
  done;
  (!lo, !hi)
let home_mask = Array.init 4 (fun s -> Array.init 14 (fun n -> home_cards s n))

type nowin = { entries : string array; w : int; rows : Bytes.t; column_lo : int array;
               column_hi : int array }

let chunk_records = 1 lsl 20

let check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks_lo ~masks_hi
    ~used ~symmetry =
  let acc = { lo = 0; hi = 0 } in
  for i = 0 to n - 1 do
    let k = first + i and base = (at + i) * width in
    let at j = Char.code (Bytes.unsafe_get rows (base + j)) in
    if k > 0 then begin
      let earlier j = if i > 0 then Bytes.unsafe_get rows (base - width + j)
        else Bytes.unsafe_get before j
      and here j = Bytes.unsafe_get rows (base + j) in
      let j = ref 0 in
      while !j < width && earlier !j = here !j do incr j done;
      if !j = width || earlier !j > here !j then
        rejected "records: record %d does not sort strictly after record %d" (k + 1) k
    end;
    acc.lo <- 0; acc.hi <- 0;
    let add lo hi =
      if acc.lo land lo <> 0 || acc.hi land hi <> 0 then
        rejected "record %d: a card is in two places" (k + 1);
      acc.lo <- acc.lo lor lo; acc.hi <- acc.hi lor hi in
    let add_card c = if c < 26 then add (1 lsl c) 0 else add 0 (1 lsl (c - 26)) in
    for s = 0 to 3 do
      if at s > 13 then rejected "record %d: a foundation holds %d cards" (k + 1) (at s);
      let lo, hi = home_mask.(s).(at s) in add lo hi
    done;
    let last = ref (-1) and ended = ref false in
    for j = 0 to cells - 1 do
      let b = at (4 + j) in
      if b = 0xff then ended := true
      else if !ended || b >= 52 || b <= !last then
        rejected "record %d: the free cells are not ascending cards then empty cells" (k + 1)
      else (add_card b; last := b)
    done;
    let prev = ref (-1) in
    for j = 0 to 7 do
      (* (an id of 4 bytes at or past 2 ^ 30 is past every table this page reads) *)
      let e = ref 0 and big = ref false in
      for b = 0 to w - 1 do
        if !e >= 1 lsl 22 then big := true;
        e := ((!e lsl 8) lor at (4 + cells + w * j + b)) land 0x3fffffff
      done;
      if !big || !e >= ncols then begin
        let v = ref 0.0 in
        for b = 0 to w - 1 do v := !v *. 256.0 +. float (at (4 + cells + w * j + b)) done;
        rejected "record %d: column id %s is not in the table" (k + 1) (num !v)
      end;
      if symmetry = "columns" && !e < !prev then
        rejected "record %d: the column ids are not ascending" (k + 1);
      prev := !e;
      used.(!e) <- true;
      add masks_lo.(!e) masks_hi.(!e)
    done;
    if acc.lo <> all_lo || acc.hi <> all_lo then
      rejected "record %d: the 52 cards are not each in one place" (k + 1)
  done

type reader = { need : int -> string -> cursor; seen : cursor -> unit; left : unit -> float;
                at_end : unit -> bool; finished : string -> unit }

let decoded f = try f () with Failure m -> unreadable "%s" m    (* zstd's refusals *)

(* The body from here up to [stop] bytes into the data (infinity: to the data's end). *)
let stream_reader src ~(stop : float) =
  let left () = stop -. src.taken in
  { need = (fun n what ->
        if float n > left () || not (decoded (fun () -> ensure src n)) then
          unreadable "the data is cut short inside %s" what;
        let avail = src.lim - src.pos in
        let lim = if float avail > left () then src.pos + int_of_float (left ()) else src.lim in
        { data = src.win; pos = src.pos; limit = lim });
    seen = (fun c -> src.taken <- src.taken +. float (c.pos - src.pos); src.pos <- c.pos);
    left; at_end = (fun () -> left () = 0.0 || not (decoded (fun () -> ensure src 1)));
    finished = ignore }

let hash_from_here src =
  let h = xxh3_begin () in
  xxh3_add h src.win src.pos (src.lim - src.pos);
  src.hash <- Some h;
  h

let more src = decoded (fun () -> ensure src 1)

(* The next [k] bytes (k <= 8), as a big-endian number. *)
let take64 r k what =
  let c = r.need k what in
  let n = uint c k in
  r.seen c;
  n

(* ... as a float, for k <= 4 (exact). *)
let take r k what = Int64.to_float (take64 r k what)

let bin_header r what ~not_bin =
  match int_of_float (take r 1 what) with
  | 0xc4 -> take r 1 what | 0xc5 -> take r 2 what | 0xc6 -> take r 4 what
  | _ -> not_bin ()

let int_value r what ~otherwise : Int64.t =
  let signed k = let u = take64 r k what in
    if k < 8 && Int64.compare u (Int64.shift_left 1L (8 * k - 1)) >= 0
    then Int64.sub u (Int64.shift_left 1L (8 * k)) else u in
  match int_of_float (take r 1 what) with
  | b when b <= 0x7f -> Int64.of_int b
  | b when b >= 0xe0 -> Int64.of_int (b - 256)
  | 0xcc -> take64 r 1 what | 0xcd -> take64 r 2 what | 0xce -> take64 r 4 what
  | 0xcf -> take64 r 8 what
  | 0xd0 -> signed 1 | 0xd1 -> signed 2 | 0xd2 -> signed 4 | 0xd3 -> signed 8
  | _ -> otherwise ()

let array_header r what ~otherwise =
  match int_of_float (take r 1 what) with
  | b when b land 0xf0 = 0x90 -> float (b land 0x0f)
  | 0xdc -> take r 2 what
  | 0xdd -> take r 4 what
  | _ -> otherwise ()

let str_value r what ~most ~otherwise =
  let n = match int_of_float (take r 1 what) with
    | b when b land 0xe0 = 0xa0 -> float (b land 0x1f)
    | 0xd9 -> take r 1 what | 0xda -> take r 2 what | 0xdb -> take r 4 what
    | _ -> -1.0 in
  if n < 0.0 || n > float most then otherwise ()
  else begin
    let n = int_of_float n in
    let c = r.need n what in
    let s = String.init n (fun i -> Char.chr (get c.data (c.pos + i))) in
    c.pos <- c.pos + n;
    r.seen c;
    s
  end

(* [count] is at most --max-positions here (checked by the caller). *)
let read_nowin r ~version ~cells ~symmetry ~count =
  if version < 3 && take r 1 "the body" <> 146.0 then
    rejected "the body is not an array of two values";
  let b = int_of_float (take r 1 "the column table") in
  let ncols = if b land 0xf0 = 0x90 then float (b land 0x0f)
    else if b = 0xdc then take r 2 "the column table"
    else if b = 0xdd then take r 4 "the column table"
    else rejected "the column table is not an array" in
  if ncols > float !max_columns then
    unreadable "%s columns is more than --max-columns %d" (num ncols) !max_columns;
  if ncols > 8.0 *. float count then rejected "the column table has more entries than 8 x count";
  let ncols = int_of_float ncols in
  let entries = Array.make ncols "" in
  let masks_lo = Array.make ncols 0 and masks_hi = Array.make ncols 0 in
  for i = 0 to ncols - 1 do
    let n = bin_header r "the column table"
        ~not_bin:(fun () -> rejected "column %d is not a bin" i) in
    if n > 52.0 then rejected "column %d has %s cards" i (num n);
    let n = int_of_float n in
    let c = r.need n "the column table" in
    let s = String.init n (fun j -> Char.chr (get c.data (c.pos + j))) in
    c.pos <- c.pos + n;
    r.seen c;
    String.iter (fun ch -> let x = Char.code ch in
                  if x >= 52 then rejected "column %d holds %d, not a card" i x;
                  let lo, hi = if x < 26 then 1 lsl x, 0 else 0, 1 lsl (x - 26) in
                  if masks_lo.(i) land lo <> 0 || masks_hi.(i) land hi <> 0 then
                    rejected "column %d repeats a card" i;
                  masks_lo.(i) <- masks_lo.(i) lor lo; masks_hi.(i) <- masks_hi.(i) lor hi) s;
    if i > 0 && compare entries.(i - 1) s >= 0 then
      rejected "the column table is not in strictly ascending order at entry %d" i;
    entries.(i) <- s
  done;
  let w = if ncols <= 1 lsl 16 then 2 else if version < 3 || ncols <= 1 lsl 24 then 3 else 4 in
  let width = 4 + cells + 8 * w in
  let rows = Bytes.create (width * count) in
  let used = Array.make ncols false in
  let before = Bytes.create width in
  let batch ~at ~first n =
    check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks_lo ~masks_hi ~used
      ~symmetry;
    if n > 0 then Bytes.blit rows ((at + n - 1) * width) before 0 width in
  (* [n] records as byte planes at [roff] of [d] into the rows from row [first] on. *)
  let unplane (d : buf) roff n first =
    for j = 0 to width - 1 do
      let base = roff + j * n and row = first * width + j in
      for k = 0 to n - 1 do
        Bytes.unsafe_set rows (row + k * width) (Bigarray.Array1.unsafe_get d (base + k))
      done
    done in
  if version = 3 then begin
    let chunks = (count + chunk_records - 1) / chunk_records in
    for i = 0 to chunks - 1 do
      let first = i * chunk_records in
      let n = min chunk_records (count - first) in
      if r.at_end () then
        rejected "records: there are %d chunks, not ceil(count / 2^20) = %d" i chunks;
      let rlen = bin_header r "a chunk of records"
          ~not_bin:(fun () -> rejected "records: chunk %d is not a bin" i) in
      if rlen <> float (n * width) then
        rejected "records: chunk %d has %s bytes, not its %d records x %d = %d" i (num rlen) n
          width (n * width);
      let rlen = int_of_float rlen in
      let c = r.need rlen "a chunk of records" in
      unplane c.data c.pos n first;
      c.pos <- c.pos + rlen;
      r.seen c;
      batch ~at:first ~first n
    done;
    r.finished (Printf.sprintf "the body has data after its ceil(count / 2^20) = %d chunks of \
                                records" chunks)
  end else begin
    let rlen = bin_header r "the records"
        ~not_bin:(fun () -> rejected "the records are not a bin") in
    if version = 2 && rlen <> float (count * width) then
      rejected "records: there are %s bytes, not count x %d = %d" (num rlen) width (count * width);
    if version = 1 && rlen > float (count * (width + 1)) then
      rejected "records: %s bytes is more than %d records take front-coded" (num rlen) count;
    let rlen = int_of_float rlen in
    let c = r.need rlen "the records" in
    let d = c.data and roff = c.pos in
    c.pos <- c.pos + rlen;
    r.seen c;
    if not (r.at_end ()) then rejected "the body has bytes after the records";
    if version = 2 then (unplane d roff count 0; batch ~at:0 ~first:0 count)
    else begin
      let p = ref roff and stop = roff + rlen in
      for k = 0 to count - 1 do
        if !p >= stop then rejected "records: there are fewer than %d" count;
        let shared = get d !p in
        incr p;
        if shared >= width || (k = 0 && shared <> 0) then
          rejected "records: record %d shares %d bytes" (k + 1) shared;
        if stop - !p < width - shared then rejected "records: record %d is cut short" (k + 1);
        if k > 0 then Bytes.blit rows ((k - 1) * width) rows (k * width) shared;
        for j = shared to width - 1 do
          Bytes.unsafe_set rows (k * width + j) (Bigarray.Array1.unsafe_get d !p); incr p
        done;
        if k > 0 && Bytes.get rows ((k - 1) * width + shared) = Bytes.get rows (k * width + shared)
        then
          rejected "records: record %d does not give its whole shared prefix" (k + 1)
      done;
      if !p <> stop then rejected "records: there are more than %d" count;
      batch ~at:0 ~first:0 count
    end;
    r.finished "the data decompresses to more than its header and body"
  end;
  Array.iteri (fun i u ->
      if not u then rejected "column %d of the table is used by no record" i) used;
  { entries; w; rows; column_lo = masks_lo; column_hi = masks_hi }

(* ---- The theorem's words (TRUSTED: printed from the values the proved function was given) *)

let rules cells fm =
  Printf.sprintf "%d free cell%s, single-card moves, %s" cells (if cells = 1 then "" else "s")
    (if fm then "a foundation's top card may go back onto a column" else "no moves off foundations")

let who path = function
  | None -> Printf.sprintf "the layout in %s" path
  | Some n when n >= 2147483648.0 -> Printf.sprintf "FreeCell Pro's extended deal %s" (num n)
  | Some n -> Printf.sprintf "Microsoft FreeCell deal %s" (num n)

(* ---- What the page shows beside the verdict (not trusted: it decides nothing) ---- *)

type picture = {
  mutable start : (int array * int list * int list array) option;  (* home, cells, columns *)
  mutable frozen : int array option;     (* per dealt column, how many cards never move *)
}
let picture = { start = None; frozen = None }

(* The cards that never move in the certificate's positions (certify explain's facts): for
   each dealt column, the fewest of its cards, from the bottom, that lie in their starting
   place (on the same cards) in any record; with symmetry "none" only in the same column. *)
let frozen_runs nw ~cells ~count ~symmetry (cols : int list array) =
  let dealt = Array.map (fun c -> Array.of_list (List.rev c)) cols in   (* bottom first *)
  let on_bottom = Array.make 52 (-1) in
  Array.iteri (fun j d -> if Array.length d > 0 then on_bottom.(d.(0)) <- j) dealt;
  let places = Array.map (fun s ->
      let n = String.length s in
      let j = if n = 0 then -1 else on_bottom.(Char.code s.[0]) in
      if j < 0 then (-1, 0)
      else begin
        let k = ref 0 in
        while !k < n && !k < Array.length dealt.(j) && Char.code s.[!k] = dealt.(j).(!k) do
          incr k done;
        (j, !k)
      end) nw.entries in
  let width = 4 + cells + 8 * nw.w in
  let runs = Array.map Array.length dealt in
  let depth = Array.make 8 0 in
  for k = 0 to count - 1 do
    Array.fill depth 0 8 0;
    for where = 0 to 7 do
      let off = k * width + 4 + cells + nw.w * where in
      let e = ref 0 in
      for b = 0 to nw.w - 1 do e := (!e lsl 8) lor Char.code (Bytes.get nw.rows (off + b)) done;
      let j, d = places.(!e) in
      if j >= 0 && (symmetry <> "none" || j = where) then depth.(j) <- d
    done;
    for j = 0 to 7 do if depth.(j) < runs.(j) then runs.(j) <- depth.(j) done
  done;
  runs

(* ---- One certificate ---- *)

let moves = ref (Bigarray.(Array1.create char c_layout 4096))

(* Check one claim about one start under one set of rules, its body read through [r]; the
   theorem's sentence, or Rejected.  TRUSTED: [start], [cells], [fm] and the symmetry below
   are passed to the proved function and, the same values, to the sentence. *)
let check_one (r : reader) ~path ~claim ~version ~deal ~board ~cells ~fm ~symmetry ~closure
    ~(count : Int64.t) ~draw =
  (* TRUSTED: with closure "autoplay" the proved function is [check_nowin_autoplay], and the
     sentence says so. *)
  let autoplay = closure = "autoplay" in
  let under = if autoplay then "every legal move then safe autoplay" else "every legal move" in
  let counted = Int64.to_string count in
  let sentence_nowin () =
    Printf.sprintf "%s (%s) cannot be won: %s positions closed under %s, none won"
      (who path deal) (rules cells fm) (commas_of counted) under in
  let sentence_win () =
    Printf.sprintf "%s (%s) can be won: %s single-card moves replay to a won position"
      (who path deal) (rules cells fm) counted in
  let starting () = match deal, board with
    | Some n, _ -> start_of_deal n
    | None, Some (bd, b) -> start_of_position (DC.board_position bd b ~cells)
    | None, None -> rejected "no deal and no board" in
  if claim = "win" then begin
    if symmetry <> "none" then rejected "a win certificate must have symmetry \"none\"";
    if Int64.compare count (Int64.of_int !max_moves) > 0 then
      unreadable "%s moves is more than --max-moves %d" counted !max_moves;
    let count = Int64.to_int count in
    let len = if version < 3 then begin
        if r.left () <> float (2 * count) then
          rejected "the body has %s bytes, not 2 x count = %d" (num (r.left ())) (2 * count);
        2 * count
      end else begin
        let l = bin_header r "the moves"
            ~not_bin:(fun () -> rejected "the moves are not a msgpack bin") in
        if l <> float count then rejected "the moves are %s bytes, not count = %d" (num l) count;
        count
      end in
    let c = r.need len "the moves" in
    if Bigarray.Array1.dim !moves < len then moves := Bigarray.(Array1.create char c_layout len);
    let d = !moves and off = 0 in
    Bigarray.Array1.(blit (sub c.data c.pos len) (sub d 0 len));
    c.pos <- c.pos + len;
    r.seen c;
    r.finished "the body has data after the moves";
    if draw then picture.start <- Some (starting ());
    let pairs (type c) (cards : c array) (nats : _ array) =
      List.init count (fun i ->
          let c = get d (off + 2 * i) and dest = get d (off + 2 * i + 1) in
          if c >= 52 || dest > 9 then rejected "move %d is not a card and a destination" (i + 1);
          (cards.(c), nats.(dest))) in
    let ok = match deal, board with
      | Some n, _ ->
          let line = if version < 3 then pairs DN.cards DN.nats
            else DN.line_of_indices ~start:(start_of_deal n) ~cells ~fm d off count in
          Numbered.check_win n DN.nats.(cells) fm line
      | None, Some (bd, b) ->
          let s = DC.board_position bd b ~cells in
          let line = if version < 3 then pairs DC.cards DC.nats
            else DC.line_of_indices ~start:(start_of_position s) ~cells ~fm d off count in
          Custom.check_win s DC.nats.(cells) fm line
      | None, None -> rejected "no deal and no board" in
    if ok then sentence_win ()
    else rejected "the moves do not replay to a won position: %s"
        "one is illegal or the last position is not won"
  end else begin
    let start = match deal, board with
      | None, Some (bd, b) -> `Board (DC.board_position bd b ~cells)
      | Some n, _ -> `Deal n
      | None, None -> rejected "no deal and no board" in
    if Int64.compare count (Int64.of_int !max_positions) > 0 then
      unreadable "%s positions is more than --max-positions %d" counted !max_positions;
    let count = Int64.to_int count in
    let nw = read_nowin r ~version ~cells ~symmetry ~count in
    if draw then picture.start <- Some (starting ());
    let sorted = symmetry = "columns" in
    let ok = match start with
      | `Deal n when autoplay ->
          let t = DN.table ~autoplay nw.entries in
          let r = DN.records ~cells ~w:nw.w ~count nw.rows in
          Numbered.check_nowin_autoplay n DN.nats.(cells) fm sorted t r
      | `Deal n ->
          let t = DN.table nw.entries in
          let r = DN.records ~cells ~w:nw.w ~count nw.rows in
          Numbered.check_nowin n DN.nats.(cells) fm sorted t r
      | `Board s when autoplay ->
          let t = DC.table ~autoplay nw.entries in
          let r = DC.records ~cells ~w:nw.w ~count nw.rows in
          Custom.check_nowin_autoplay s DC.nats.(cells) fm sorted t r
      | `Board s ->
          let t = DC.table nw.entries in
          let r = DC.records ~cells ~w:nw.w ~count nw.rows in
          Custom.check_nowin s DC.nats.(cells) fm sorted t r in
    if ok then begin
      (match picture.start with
       | Some (_, _, cols) when draw && count > 0 ->
           picture.frozen <- Some (frozen_runs nw ~cells ~count ~symmetry cols)
       | _ -> ());
      sentence_nowin ()
    end
    else rejected "the records are not closed under %s from the %s" under
        "starting position, or one is won"
  end

(* ---- A range certificate ---- *)

let open_data file =
  let src = source_open file in
  decoded (fun () -> ignore (ensure src 65536));
  let c = { data = src.win; pos = 0; limit = min src.lim 65536 } in
  let h = read_header c in
  src.pos <- c.pos;
  src.taken <- float c.pos;
  src, h

let read_entries src (h : header) ~reached =
  let hash = hash_from_here src in
  let r = stream_reader src ~stop:infinity in
  let lost = ref [] and failed = ref None and i = ref 0.0 in
  let count = Int64.to_float h.count in
  let fail i verdict m = failed := Some (i, verdict, m) in
  while !failed = None && !i < count do
    let i' = !i in
    (* TRUSTED: entry i is checked, and counted, as the theorem of deal first + i. *)
    let number = h.first +. i' in
    reached i';
    (try
       let values = if h.hversion = 3 then 3.0 else 4.0 in
       let not_entry () = rejected "entry %s is not an array of %s values" (num i')
           (if values = 3.0 then "three" else "four") in
       if r.at_end () then not_entry ();
       if array_header r "an entry" ~otherwise:not_entry <> values then not_entry ();
       let not_deal () = rejected "entry %s is not about deal %s" (num i') (num number) in
       if int_value r "an entry" ~otherwise:not_deal <> Int64.of_float number then not_deal ();
       let bad_claim () = rejected "entry %s: its claim is not \"win\" or \"no-win\"" (num i') in
       let claim = match str_value r "an entry" ~most:6 ~otherwise:bad_claim with
         | "win" | "no-win" as s -> s | _ -> bad_claim () in
       let bad_count () = rejected "entry %s: count" (num i') in
       let count = int_value r "an entry" ~otherwise:bad_count in
       if Int64.compare count 0L < 0 then bad_count ();
       let body = if h.hversion = 3 then r else
           let n = bin_header r "an entry"
               ~not_bin:(fun () -> rejected "entry %s: body" (num i')) in
           stream_reader src ~stop:(src.taken +. n) in
       let symmetry = if claim = "win" then "none" else h.symmetry in
       (try ignore (check_one body ~path:"" ~claim ~version:h.hversion ~deal:(Some number)
                      ~board:None ~cells:h.cells ~fm:h.fm ~symmetry ~closure:h.closure ~count
                      ~draw:false)
        with Rejected m -> rejected "deal %s: %s" (num number) m);
       if claim = "no-win" then lost := number :: !lost
     with Rejected m -> fail i' "rejected" m
        | Unreadable m -> fail i' "unreadable" m
        | Failure m -> fail i' "unreadable" m);
    i := !i +. 1.0
  done;
  (match !failed with
   | Some (_, "rejected", m) -> raise (Rejected m)
   | Some (_, _, m) -> raise (Unreadable m)
   | None -> ());
  if more src then rejected "there are bytes after the last entry"
  else if xxh3_end hash <> h.hash then rejected "the entries do not match its xxh3_64";
  List.rev !lost

let check_range src (h : header) =
  let say i = Printf.sprintf "deal %s (%s of %s)" (commas_f (h.first +. i))
      (commas_f (i +. 1.0)) (commas_of (Int64.to_string h.count)) in
  let lost = read_entries src h ~reached:(fun i -> progress (say i)) in
  let whose = if h.last < 2147483648.0 then "Microsoft FreeCell deals"
    else if h.first >= 2147483648.0 then "FreeCell Pro's extended deals"
    else "FreeCell Pro's deals" in
  let others = Int64.to_float h.count -. float (List.length lost) in
  Printf.sprintf "of %s %s..%s (%s) exactly %s cannot be won%s%s; %s"
    whose (commas_f h.first) (commas_f h.last) (rules h.cells h.fm) (commas (List.length lost))
    (if lost = [] then "" else ": ") (String.concat ", " (List.map num lost))
    (Printf.sprintf "each of the other %s is won by a line that replays" (commas_f others))

(* ---- A file ---- *)

let single path src (h : header) =
  let board = match h.board with
    | None -> None
    | Some (o, l) ->
        let b = Bigarray.(Array1.create char c_layout (max l 1)) in
        Bigarray.Array1.(blit (sub src.win o l) (sub b 0 l));
        Some (b, (0, l)) in
  let stop = if h.hversion = 3 then infinity else
      let n = bin_header (stream_reader src ~stop:infinity) "the body"
          ~not_bin:(fun () -> unreadable "the body is not a msgpack bin") in
      src.taken +. n in
  let hash = hash_from_here src in
  let r = { (stream_reader src ~stop) with
            finished = (fun why ->
                if more src then unreadable "%s" why;
                if xxh3_end hash <> h.hash then rejected "the body does not match its xxh3_64") } in
  record_reached := (fun k -> progress (Printf.sprintf "record %s of %s closed"
                                          (commas k) (commas_of (Int64.to_string h.count))));
  check_one r ~path ~claim:h.claim ~version:h.hversion ~deal:h.deal ~board ~cells:h.cells
    ~fm:h.fm ~symmetry:h.symmetry ~closure:h.closure ~count:h.count ~draw:true

(* The verdict and its line's text for one file, as vcheck prints them. *)
let verify path (file : js) =
  picture.start <- None; picture.frozen <- None;
  let got = ref None in
  let verdict, text =
    try
      let src, h = open_data file in
      got := Some h;
      if h.claim = "range" then "verified", check_range src h
      else "verified", single path src h
    with
    | Unreadable m | Failure m -> "unreadable", m
    | Rejected m -> "rejected", m
    | Out_of_memory -> "unreadable", "out of memory"
    | Stack_overflow -> "unreadable", "out of stack"
    | e -> "unreadable", "internal error: " ^ Printexc.to_string e in
  (verdict, text, !got)

(* ---- To JavaScript ---- *)

let jstr s : js = Js.Unsafe.inject (Js.string s)
let jint (n : int) : js = Js.Unsafe.inject n
let jarray (a : js array) : js = Js.Unsafe.inject (Js.array a)

let run (name : Js.js_string Js.t) (file : js) : js =
  draw_key ();
  progress_next := now () +. 0.25;
  let path = Js.to_string name in
  let verdict, text, h = verify path file in
  let line = printable (String.uppercase_ascii verdict ^ ": " ^ text) in
  let fields = ref [ "verdict", jstr verdict; "line", jstr line; "text", jstr text ] in
  let add k v = fields := (k, v) :: !fields in
  Option.iter (fun (h : header) ->
      add "claim" (jstr h.claim); add "cells" (jint h.cells);
      add "foundationMoves" (Js.Unsafe.inject (Js.bool h.fm));
      add "symmetry" (jstr h.symmetry); add "closure" (jstr h.closure);
      add "count" (jstr (Int64.to_string h.count));
      Option.iter (fun d -> add "deal" (jstr (num d))) h.deal;
      if h.claim = "range" then (add "first" (jstr (num h.first)); add "last" (jstr (num h.last))))
    h;
  Option.iter (fun (home, cells, cols) ->
      let ints l = jarray (Array.of_list (List.map jint l)) in
      add "home" (jarray (Array.map jint home));
      add "freeCells" (ints cells);
      add "columns" (jarray (Array.map (fun c -> ints (List.rev c)) cols))) picture.start;
  Option.iter (fun runs -> add "frozen" (jarray (Array.map jint runs))) picture.frozen;
  Js.Unsafe.obj (Array.of_list (List.rev !fields))

let () =
  Js.Unsafe.set Js.Unsafe.global "vcheckRun" (Js.wrap_callback run)

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

(* The file's bytes that a reader taking a KiB at a time has read once so much data is out. *)
let stream_got (z : js) (need : float) : float =
  Js.Unsafe.meth_call z "got" [| Js.Unsafe.inject need |]

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

(* A header value as check's refusals show it (Python's reprlib.repr): a str or bytes as Python
   writes it, past 30 characters its first 13 and last 14 around "..." (a str: its first 13
   and last 14 characters, quoted again); an int past 40 digits likewise (18 and 19). *)
let python_quoted ~prefix s =
  let q = if String.contains s '\'' && not (String.contains s '"') then '"' else '\'' in
  let b = Buffer.create (String.length s + 3) in
  Buffer.add_string b prefix; Buffer.add_char b q;
  String.iter (fun ch -> match ch with
      | '\\' -> Buffer.add_string b "\\\\" | '\n' -> Buffer.add_string b "\\n"
      | '\r' -> Buffer.add_string b "\\r" | '\t' -> Buffer.add_string b "\\t"
      | ch when ch = q -> Buffer.add_char b '\\'; Buffer.add_char b ch
      | ch when ch < ' ' || ch = '\127' || (prefix <> "" && ch > '\127') ->
          Buffer.add_string b (Printf.sprintf "\\x%02x" (Char.code ch))
      | ch -> Buffer.add_char b ch) s;
  Buffer.add_char b q;
  Buffer.contents b

let cut s most = let n = String.length s in
  if n <= most then s
  else let i = (most - 3) / 2 in String.sub s 0 i ^ "..." ^ String.sub s (n - (most - 3 - i))
                                                          (most - 3 - i)

let header_bytes = ref (Bigarray.(Array1.create char c_layout 0))

let rec python_repr = function
  | Nil -> "None" | Bool b -> if b then "True" else "False"
  | Int n -> cut (Int64.to_string n) 40
  | Str s ->
      let n = String.length s in
      let r = python_quoted ~prefix:"" (if n <= 30 then s else String.sub s 0 30) in
      if String.length r <= 30 then r
      else   (* Python's x[:13] + x[len(x) - 14:], its repr, then the same cut however short *)
        let r = python_quoted ~prefix:"" (String.sub s 0 (min n 13) ^
                                          String.sub s (max 0 (n - 14)) (min n 14)) in
        let m = String.length r in
        String.sub r 0 (min m 13) ^ "..." ^ String.sub r (max 0 (m - 14)) (min m 14)
  | Bin (o, n) ->
      cut (python_quoted ~prefix:"b" (String.init n (fun i ->
          Bigarray.Array1.get !header_bytes (o + i)))) 30
  | Arr a -> "[" ^ String.concat ", " (Array.to_list (Array.map python_repr a)) ^ "]"
  | Map _ -> "{...}"

(* The header, checked as check checks it and in its order (docs/certificate-format.md,
   section 5): its keys, then each value against its table. *)
let read_header c =
  header_bytes := c.data;
  let h = match value c 0 with
    | Map l -> l
    | _ -> unreadable "the file does not start with a msgpack map"
    | exception Unreadable m
        when String.length m >= 20 && String.sub m 0 20 = "the data is cut shor" ->
        unreadable "the header (in the first 64 KiB) is cut short" in
  let keys = List.map (function (Str k, _) -> k | _ -> "?") h in
  if List.length (List.sort_uniq compare (List.map fst h)) <> List.length h then
    unreadable "a msgpack map repeats a key";
  let field k = try List.assoc (Str k) h with Not_found -> Nil in
  let bad k = unreadable "header %s = %s is not allowed" k (python_repr (field k)) in
  let ranged = field "claim" = Str "range" in
  let expected = if ranged then range_keys else single_keys in
  (* The key closure is optional (section 8). *)
  let named = List.filter (( <> ) "closure") keys in
  if List.sort compare named <> expected then
    unreadable "the header keys are not exactly: %s" (String.concat ", " expected);
  if field "format" <> Str "freecell-certificate" then bad "format";
  let hversion = match field "version" with
    | Int v when (v = 1L && not ranged) || v = 2L || v = 3L -> Int64.to_int v
    | _ -> bad "version" in
  let claim = match field "claim" with
    | Str ("no-win" | "win" | "range" as s) -> s | _ -> bad "claim" in
  let int_in k lo hi = match field k with
    | Int n when Int64.compare n lo >= 0 && Int64.compare n hi <= 0 -> n | _ -> bad k in
  let cells = Int64.to_int (int_in "cells" 0L 8L) in
  let fm = match field "foundation_moves" with Bool b -> b | _ -> bad "foundation_moves" in
  let symmetry = match field "symmetry" with
    | Str ("columns" | "none" as s) -> s | _ -> bad "symmetry" in
  (* (Counts up to 2 ^ 64 - 1 are allowed; past 2 ^ 62 - 1 the msgpack reader refuses them, as
     vcheck's does, far past any limit.) *)
  let count = int_in "count" 0L Int64.max_int in
  let hash = match field "xxh3_64" with Str s when is_hex s -> s | _ -> bad "xxh3_64" in
  (* Tested last, as check does: only "autoplay", only in version 3, never in a win, never with
     foundation moves (section 8). *)
  let closure () =
    if List.length named = List.length keys then "moves"
    else match field "closure" with
      | Str "autoplay" when hversion = 3 && claim <> "win" && not fm -> "autoplay"
      | _ -> bad "closure" in
  if ranged then begin
    let first = int_in "first" 1L max_deal in
    let last = int_in "last" first max_deal in
    let closure = closure () in
    { claim; hversion; deal = None; board = None; cells; fm; symmetry; count; hash;
      first = Int64.to_float first; last = Int64.to_float last; closure }
  end else begin
    let deal = match field "deal" with
      | Int n when Int64.compare n 1L >= 0 && Int64.compare n max_deal <= 0 ->
          Some (Int64.to_float n)
      | Nil -> None | _ -> bad "deal" in
    let board = match deal, field "board" with
      | Some _, Nil -> None | None, Bin (o, n) -> Some (o, n) | _ -> bad "board" in
    let closure = closure () in
    { claim; hversion; deal; board; cells; fm; symmetry; count; hash; first = 0.0; last = 0.0;
      closure }
  end

(* ---- Limits (vcheck's defaults) ---- *)

let max_positions = ref 4_000_000
let max_columns = ref 1_000_000
let max_moves = ref 100_000
(* A range's moves and positions in all (docs/certificate-format.md section 5): N a deal and N a
   byte of the file read, each with one certificate's worth more. *)
let range_moves = ref 250
let range_positions = ref 10_000
let byte_moves = ref 4
let byte_positions = ref 16

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

(* Flat records: row k at k * width of [rows], found through a table of record numbers (linear
   probing from the row's keyed hash), as vcheck's flat store: [lookup scratch] is the number of
   the record whose bytes [scratch] holds, or [count]. *)
let flat_lookup ~width ~count (rows : Bytes.t) =
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
  let same k scratch =
    let base = k * width in
    let rec go j =
      j = width
      || (Bytes.unsafe_get rows (base + j) = Bytes.unsafe_get scratch j && go (j + 1)) in
    go 0 in
  fun scratch ->
    let i = ref (hash scratch 0 land mask) and found = ref count in
    while !found = count && Array.unsafe_get slots !i <> 0 do
      let k = Array.unsafe_get slots !i - 1 in
      if same k scratch then found := k else i := (!i + 1) land mask
    done;
    !found

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

  (* The column tree, as vcheck's: the table's entries keep their ids; every prefix of an entry
     that is not itself an entry is added after them, so that each column's parent exists.  A
     node is its parent, its top card and its depth, never its cards: a prefix that entries
     share is one node.  The table is strictly ascending, so an entry's new nodes are those past
     what it shares with the entry before it: the tree has exactly 1 + the sum of those nodes
     (at most 1 + the table's bytes), counted before anything is allocated, and built without a
     lookup.  [push b c]'s answers: a flat array (b * 52 + c) while the tree is small, else a
     scan of b's children, listed together. *)
  let table ?(autoplay = false) (entries : string array) =
    let open Bigarray in
    let ncols = Array.length entries in
    let shared a b = let n = min (String.length a) (String.length b) and i = ref 0 in
      while !i < n && a.[!i] = b.[!i] do incr i done; !i in
    let has_root = ncols > 0 && entries.(0) = "" in
    let nodes = ref (if has_root then ncols else ncols + 1) in
    Array.iteri (fun i s -> let n = String.length s in
                  let l = if i = 0 then 0 else shared entries.(i - 1) s in
                  if n > l + 1 then nodes := !nodes + n - l - 1) entries;
    let nodes = !nodes in
    let parent_of = Array1.create int32 c_layout nodes in
    let top_of = Array1.create char c_layout nodes
    and depth_of = Array1.create char c_layout nodes in
    let set e p c d =
      Array1.unsafe_set parent_of e (Int32.of_int p);
      Array1.unsafe_set top_of e (Char.unsafe_chr c);
      Array1.unsafe_set depth_of e (Char.unsafe_chr d) in
    (* The root, the empty column: entry 0 if the table has it (it sorts first), else the first
       node after the entries; its parent is 0, as the proved code's tree has it. *)
    let root = if has_root then 0 else ncols in
    set root 0 0 0;
    (* path.(d): the node of the first d cards of the entry before. *)
    let path = Array.make 53 root and next = ref (if has_root then ncols else ncols + 1) in
    Array.iteri (fun i s ->
        let n = String.length s in
        if n > 0 && n <= 52 then begin
          let l = if i = 0 then 0 else min (shared entries.(i - 1) s) (n - 1) in
          for d = l + 1 to n - 1 do
            let e = !next in
            incr next; set e path.(d - 1) (Char.code s.[d - 1]) d; path.(d) <- e
          done;
          set i path.(n - 1) (Char.code s.[n - 1]) n; path.(n) <- i
        end) entries;
    let parent e = Int32.to_int (Array1.unsafe_get parent_of e) in
    let top_card e = Char.code (Array1.unsafe_get top_of e) in
    let depth_int e = Char.code (Array1.unsafe_get depth_of e) in
    let flat = nodes <= 1 lsl 16 in
    let push_flat = Array.make (if flat then 52 * nodes else 0) (-1) in
    (* The children of node b: children.(first.(b)) .. children.(first.(b + 1) - 1). *)
    let first = Array1.create int32 c_layout (if flat then 1 else nodes + 1) in
    let children = Array1.create int32 c_layout (if flat then 1 else max nodes 1) in
    if flat then
      for e = 0 to nodes - 1 do
        if e <> root then push_flat.(parent e * 52 + top_card e) <- e
      done
    else begin
      Array1.fill first 0l;
      let bump b = Array1.unsafe_set first b (Int32.add (Array1.unsafe_get first b) 1l) in
      for e = 0 to nodes - 1 do if e <> root then bump (parent e + 1) done;
      for b = 1 to nodes do
        Array1.unsafe_set first b
          (Int32.add (Array1.unsafe_get first b) (Array1.unsafe_get first (b - 1)))
      done;
      for e = 0 to nodes - 1 do
        if e <> root then begin
          let b = parent e in
          Array1.unsafe_set children (Int32.to_int (Array1.unsafe_get first b)) (Int32.of_int e);
          bump b
        end
      done;
      for b = nodes downto 1 do Array1.unsafe_set first b (Array1.unsafe_get first (b - 1)) done;
      Array1.unsafe_set first 0 0l
    end;
    let child b c =   (* the node of card c on node b, or -1 *)
      if flat then push_flat.(b * 52 + c)
      else
        let stop = Int32.to_int (Array1.unsafe_get first (b + 1)) in
        let rec scan i =
          if i >= stop then -1
          else let e = Int32.to_int (Array1.unsafe_get children i) in
            if top_card e = c then e else scan (i + 1) in
        scan (Int32.to_int (Array1.unsafe_get first b)) in
    let valid e = e >= 0 && e < nodes in
    let fnodes = float nodes in
    (* Columns the tree does not hold (autoplay, section 8): as vcheck's [push] and
       [column_of], ids from [nodes] on. *)
    let x_parent = ref [| 0.0 |] and x_top = ref [| cards.(0) |] and x_depth = ref [| O |] in
    let extra = ref 1 in
    let known e = e >= fnodes && e < fnodes +. float !extra in
    let depth (e : float) =
      let i = id_of e in
      if valid i then nats.(depth_int i) else if known e then !x_depth.(i - nodes) else O in
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
      else let x = card_number c in
        if x >= 52 then fnodes else match child b x with -1 -> fnodes | e -> float e in
    (* A start's column (top card first): the node its cards spell from the root, and how many
       of its cards, from the bottom, the tree holds. *)
    let walk col =
      let rec go e held = function
        | [] -> e, held
        | x :: rest -> (match if x < 52 then child e x else -1 with
            | -1 -> e, held
            | e' -> go e' (held + 1) rest) in
      go root 0 (List.rev_map card_number col) in
    let column_of_plain col =
      let e, held = walk col in if held = List.length col then float e else fnodes in
    let top e = if valid e then cards.(top_card e) else cards.(0) in
    if not autoplay then
      { depth = (fun e -> let i = id_of e in if valid i then nats.(depth_int i) else O);
        top = (fun e -> top (id_of e));
        parent = (fun e -> let i = id_of e in if valid i then float (parent i) else 0.0);
        push = push_plain; column_of = column_of_plain }
    else
    { depth;
      top = (fun e -> let i = id_of e in
              if valid i then top i else if known e then !x_top.(i - nodes) else cards.(0));
      parent = (fun e -> let i = id_of e in
                 if valid i then float (parent i) else if known e then !x_parent.(i - nodes)
                 else 0.0);
      push = (fun b c -> let e = push_plain b c in if e = fnodes then extend 0 b c else e);
      column_of = (fun col ->
          (* The longest part the tree holds, then an id for each card above it. *)
          let e, held = walk col in
          let above = List.filteri (fun i _ -> i >= held) (List.rev_map card_number col) in
          if List.exists (fun x -> x >= 52) above then fnodes +. 1073741824.0
          else List.fold_left (fun b x -> incr extra; extend (!extra - 1) b cards.(x))
              (float e) above) }

  (* The proved checker's records: flat rows, found through [flat_lookup]'s table. *)
  let records ~cells ~w ~count (rows : Bytes.t) =
    let width = 4 + cells + 8 * w in
    let lookup = flat_lookup ~width ~count rows in
    let scratch = Bytes.create width in
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
          after_find := true; if encode f cs ids then float (lookup scratch) else fcount) }

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
end

module DN = Data (Numbered)
module DC = Data (Custom)

(* Where the moves of a win line start (not trusted, as [replay_words]), and what the picture
   draws: foundation counts, free cells and columns (top card first) as numbers. *)
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

(* ---- check's words: positions, moves and the first fault, found by the driver's own moves
   (not trusted: they only say why a file is refused, or pick the moves a version 3 index names;
   the proved functions decide every verdict that accepts) ---- *)

let card_name c = String.make 1 "A23456789TJQK".[c / 4] ^ String.make 1 "CDHS".[c mod 4]
let place d = if d < 8 then Printf.sprintf "column %d" (d + 1)
  else if d = 8 then "a free cell" else "its foundation"
let is_red c = let s = c land 3 in s = 1 || s = 2

(* A position as check shows it: foundations (counts C D H S), the free cells' cards, the
   columns bottom card first (strings of card bytes). *)
type pos = { found : int array; free : int list; cols : string array }

let show p =
  let tops = String.concat " " (List.init 4 (fun s ->
      if p.found.(s) = 0 then "--" else card_name (4 * (p.found.(s) - 1) + s))) in
  let cards l = String.concat " " (List.map card_name l) in
  let col s = List.init (String.length s) (fun i -> Char.code s.[i]) in
  Printf.sprintf "foundations %s; cells %s; columns %s" tops
    (match List.sort compare p.free with [] -> "-" | l -> cards l)
    (String.concat " | " (Array.to_list (Array.map (fun s ->
         if s = "" then "-" else cards (col s)) p.cols)))

let top s = let n = String.length s in if n = 0 then -1 else Char.code s.[n - 1]

(* The legal moves, as check lists them (docs/certificate-format.md section 7's move order): to
   the foundation, onto columns 1..8, to a free cell; within each by ascending card.  Each is
   (card, where it is: a column, 8 a free cell, 9 its foundation; where it goes). *)
let legal p ~cells ~fm =
  let source = Array.make 52 (-1) in
  List.iter (fun c -> source.(c) <- 8) p.free;
  Array.iteri (fun j s -> let c = top s in if c >= 0 then source.(c) <- j) p.cols;
  if fm then Array.iteri (fun s n -> if n > 0 then source.(4 * (n - 1) + s) <- 9) p.found;
  let out = ref [] in
  let add c d = out := (c, source.(c), d) :: !out in
  List.iter (fun c -> if c < 52 && source.(c) >= 0 then add c 9)
    (List.sort compare (List.init 4 (fun s -> 4 * p.found.(s) + s)));
  Array.iteri (fun d s ->
      let t = top s in
      if t < 0 then (for c = 0 to 51 do if source.(c) >= 0 then add c d done)
      else if t > 3 then
        for suit = 0 to 3 do
          let c = t - 4 - t land 3 + suit in
          if is_red c <> is_red t && source.(c) >= 0 then add c d
        done) p.cols;
  if List.length p.free < cells then
    for c = 0 to 51 do if source.(c) >= 0 && source.(c) < 8 then add c 8 done;
  List.rev !out

let after p (c, from, dest) =
  let found = Array.copy p.found and cols = Array.copy p.cols and free = ref p.free in
  if from < 8 then cols.(from) <- String.sub cols.(from) 0 (String.length cols.(from) - 1)
  else if from = 8 then free := List.filter (( <> ) c) !free
  else found.(c land 3) <- found.(c land 3) - 1;
  if dest < 8 then cols.(dest) <- cols.(dest) ^ String.make 1 (Char.chr c)
  else if dest = 8 then free := List.sort compare (c :: !free)
  else found.(c land 3) <- found.(c land 3) + 1;
  { found; free = !free; cols }

(* Safe autoplay (section 8), as check plays it: the first safe card (by suit) that is in a free
   cell or on a column's top goes home, again until none is. *)
let rec autoplay p =
  let safe s = let n = p.found.(s) in
    n < 13 && List.for_all (fun o -> o = s ||
                                    p.found.(o) >= n - 1 - Bool.to_int (is_red o = is_red s))
      [0; 1; 2; 3] in
  let rec first s =
    if s = 4 then p
    else let c = 4 * p.found.(s) + s in
      if safe s && List.mem c p.free then autoplay (after p (c, 8, 9))
      else if safe s && Array.exists (fun col -> top col = c) p.cols then
        let j = ref 0 in
        while top p.cols.(!j) <> c do incr j done;
        autoplay (after p (c, !j, 9))
      else first (s + 1) in
  first 0

let position_of (home, held, cols) =
  { found = Array.copy home; free = List.sort compare held;
    cols = Array.map (fun l -> String.concat "" (List.rev_map (fun c ->
        String.make 1 (Char.chr c)) l)) cols }

(* A win's line replayed as check replays it: before move n, [pick n p moves] names the move to
   play among the legal [moves] (or says why none); the moves played, as (card, destination),
   or the first fault in check's words. *)
let replay_words start ~cells ~fm ~count ~pick =
  let p = ref (position_of start) and line = ref [] in
  for n = 0 to count - 1 do
    let moves = legal !p ~cells ~fm in
    let (c, _, d) as m = List.nth moves (pick n !p moves) in
    line := (c, d) :: !line;
    p := after !p m
  done;
  if Array.exists (( <> ) 13) !p.found then
    rejected "after all %s moves the position is not won: %s" (commas count) (show !p);
  List.rev !line

(* Version 3: byte n is the index of move n. *)
let by_index (d : buf) n _ moves =
  let i = get d n and k = List.length moves in
  if i >= k then rejected "move %d: index %d is not below the %d legal moves" (n + 1) i k;
  i

(* Versions 1 and 2: bytes 2n and 2n + 1 are move n's card and destination. *)
let by_card (d : buf) n p moves =
  let c = get d (2 * n) and d' = get d (2 * n + 1) in
  let rec find i = function
    | [] ->
        if c >= 52 || d' >= 10 then rejected "move %d: bytes %d, %d are not a move" (n + 1) c d';
        let could = List.filter_map (fun (x, _, y) -> if x = c then Some (place y) else None)
            moves in
        rejected "move %d (%s to %s) is illegal: %s %s; before it: %s" (n + 1) (card_name c)
          (place d') (card_name c)
          (if could = [] then "cannot move" else "may go only to " ^ String.concat ", " could)
          (show p)
    | (x, _, y) :: _ when x = c && y = d' -> i
    | _ :: rest -> find (i + 1) rest in
  find 0 moves

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

(* Each record a well-formed position, the records strictly ascending, every column used, none
   won, in check's words and order.  A column's cards are a mask in two halves ([masks_lo] -1
   when the column repeats a card: no record may use it then). *)
let check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks_lo ~masks_hi
    ~used ~symmetry ~entries =
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
        rejected "records: record %d does not sort after the last" (k + 1)
    end;
    (* (An id of 4 bytes at or past 2 ^ 30 is past every table this page reads: -1.) *)
    let id j =
      let e = ref 0 in
      for b = 0 to w - 1 do
        if !e >= 1 lsl 22 then e := -1;
        if !e >= 0 then e := (!e lsl 8) lor at (4 + cells + w * j + b)
      done;
      !e in
    let beyond e = e < 0 || e >= ncols in
    let bad why = rejected "record %d (%s) is not a well-formed position: %s" (k + 1)
        (String.concat "" (List.init width (fun j -> Printf.sprintf "%02x" (at j)))) why in
    for j = 0 to 7 do if beyond (id j) then bad "a column id is beyond the table" done;
    if symmetry = "columns" then
      for j = 1 to 7 do if id j < id (j - 1) then bad "its column ids are not ascending" done;
    for s = 0 to 3 do if at s > 13 then bad "a foundation count is above 13" done;
    (* The cells: strictly ascending, then 0xFF (a byte that is not a card is the cards' fault). *)
    let last = ref (-1) and ended = ref false in
    for j = 0 to cells - 1 do
      let b = at (4 + j) in
      if b = 0xff then ended := true
      else if !ended || b <= !last then bad "the cells are not ascending cards, then 0xFF"
      else last := b
    done;
    acc.lo <- 0; acc.hi <- 0;
    let twice = ref false in
    let add lo hi =
      if lo < 0 || acc.lo land lo <> 0 || acc.hi land hi <> 0 then twice := true;
      if lo >= 0 then (acc.lo <- acc.lo lor lo; acc.hi <- acc.hi lor hi) in
    let add_card c = if c < 26 then add (1 lsl c) 0 else add 0 (1 lsl (c - 26)) in
    for s = 0 to 3 do let lo, hi = home_mask.(s).(at s) in add lo hi done;
    for j = 0 to cells - 1 do
      let b = at (4 + j) in if b < 52 then add_card b else if b <> 0xff then twice := true
    done;
    for j = 0 to 7 do let e = id j in used.(e) <- true; add masks_lo.(e) masks_hi.(e) done;
    if !twice || acc.lo <> all_lo || acc.hi <> all_lo then
      bad "the 52 cards are not each in one place";
    if at 0 = 13 && at 1 = 13 && at 2 = 13 && at 3 = 13 then
      rejected "record %d (%s) is won" (k + 1)
        (show { found = [| 13; 13; 13; 13 |]; free = [];
                cols = Array.init 8 (fun j -> entries.(id j)) })
  done

(* A body's bytes, read from the stream up to its end, as vcheck's [reader]: [finished ()] runs
   once the body is read (for a single certificate, it is unreadable if anything follows, and
   rejected if the hash does not match). *)
type reader = { need : int -> string -> cursor; seen : cursor -> unit; left : unit -> float;
                at_end : unit -> bool; finished : unit -> unit }

(* The file as check names it: its name (the page knows no folder). *)
let shown_name = ref ""

(* zstd's refusals, in check's words: those that begin with ":" or " " follow the file's name. *)
let decoded f = try f () with Failure m ->
  unreadable "%s" (if m <> "" && (m.[0] = ':' || m.[0] = ' ') then !shown_name ^ m else m)

(* The body from here up to [stop] bytes into the data (infinity: to the data's end). *)
let stream_reader src ~(stop : float) =
  let left () = stop -. src.taken in
  { need = (fun n what ->
        if float n > left () then rejected "the body ends inside %s" what;
        if not (decoded (fun () -> ensure src n)) then
          rejected "%s is cut short: the data of %s ends early" what !shown_name;
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
  if n < 0.0 then otherwise ()
  else begin
    let n = int_of_float (Float.min n (float most)) in
    let c = r.need n what in
    let s = String.init n (fun i -> Char.chr (get c.data (c.pos + i))) in
    c.pos <- c.pos + n;
    r.seen c;
    s
  end

(* [count] is at most --max-positions here (checked by the caller). *)
(* A kind's refusal, in check's words: "[what] is not a msgpack [kind]". *)
let not_a what kind () = rejected "%s is not a msgpack %s" what kind

(* [count] is the header's (an Int64.t); refused past --max-positions before anything is read. *)
let read_nowin r ~version ~cells ~symmetry ~(count : Int64.t) =
  if Int64.compare count (Int64.of_int !max_positions) > 0 then
    unreadable "%s positions: more than --max-positions %s" (commas_of (Int64.to_string count))
      (commas !max_positions);
  let count = Int64.to_int count in
  if version < 3 && array_header r "the body" ~otherwise:(not_a "the body" "array") <> 2.0 then
    rejected "the body is not [columns, records]";
  let ncols = array_header r "the column table" ~otherwise:(not_a "the column table" "array") in
  if ncols > float !max_columns then
    unreadable "%s columns: more than --max-columns %s" (commas_f ncols) (commas !max_columns);
  if ncols > 8.0 *. float count then
    rejected "the column table has %s entries: more than 8 x count" (commas_f ncols);
  let ncols = int_of_float ncols in
  let entries = Array.make ncols "" in
  let masks_lo = Array.make ncols 0 and masks_hi = Array.make ncols 0 in
  let hex s = String.concat "" (List.init (String.length s) (fun j ->
      Printf.sprintf "%02x" (Char.code s.[j]))) in
  for i = 0 to ncols - 1 do
    let what = Printf.sprintf "column table entry %d" i in
    let n = bin_header r what ~not_bin:(not_a what "bin") in
    (* (An entry of more than 52 bytes is refused on its first 53, as check refuses it.) *)
    let n = int_of_float (Float.min n 53.0) in
    let c = r.need n (Printf.sprintf "column %d" i) in
    let s = String.init n (fun j -> Char.chr (get c.data (c.pos + j))) in
    c.pos <- c.pos + n;
    r.seen c;
    if String.length s > 52 || String.exists (fun ch -> Char.code ch >= 52) s then
      rejected "%s (%s) is not cards" what (hex s);
    if i > 0 && compare entries.(i - 1) s >= 0 then rejected "%s (%s) is not sorted" what (hex s);
    (* A column that repeats a card: no record that uses it holds the 52 cards once each. *)
    String.iter (fun ch -> let x = Char.code ch in
                  let lo, hi = if x < 26 then 1 lsl x, 0 else 0, 1 lsl (x - 26) in
                  if masks_lo.(i) < 0 || masks_lo.(i) land lo <> 0 || masks_hi.(i) land hi <> 0
                  then masks_lo.(i) <- -1
                  else (masks_lo.(i) <- masks_lo.(i) lor lo; masks_hi.(i) <- masks_hi.(i) lor hi))
      s;
    entries.(i) <- s
  done;
  let w = if ncols <= 1 lsl 16 then 2 else if version < 3 || ncols <= 1 lsl 24 then 3 else 4 in
  let width = 4 + cells + 8 * w in
  (* (Version 1: a row more, for a record past the count, checked as check checks it.) *)
  let rows = Bytes.create (width * (count + 1)) in
  let used = Array.make ncols false in
  let before = Bytes.create width in
  let batch ~at ~first n =
    check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks_lo ~masks_hi ~used
      ~symmetry ~entries;
    if n > 0 then Bytes.blit rows ((at + n - 1) * width) before 0 width in
  (* [n] records as byte planes at [roff] of [d] into the rows from row [first] on. *)
  let unplane (d : buf) roff n first =
    for j = 0 to width - 1 do
      let base = roff + j * n and row = first * width + j in
      for k = 0 to n - 1 do
        Bytes.unsafe_set rows (row + k * width) (Bigarray.Array1.unsafe_get d (base + k))
      done
    done in
  let records_bin () = bin_header r "the records" ~not_bin:(not_a "the records" "bin") in
  if version = 3 then begin
    let chunks = (count + chunk_records - 1) / chunk_records in
    for i = 0 to chunks - 1 do
      let first = i * chunk_records in
      let n = min chunk_records (count - first) in
      let rlen = records_bin () in
      if rlen <> float (n * width) then
        rejected "records: %s bytes for %d%s" (num rlen) n
          (if count > chunk_records then Printf.sprintf " (chunk %d)" (i + 1) else "");
      let rlen = int_of_float rlen in
      let c = r.need rlen "the records" in
      unplane c.data c.pos n first;
      c.pos <- c.pos + rlen;
      r.seen c;
      batch ~at:first ~first n
    done
  end else begin
    let rlen = records_bin () in
    (* (The sizes the count allows, before the records are read.) *)
    if version = 2 && rlen <> float (count * width) then
      rejected "records: %s bytes for %d" (num rlen) count;
    if version = 1 && rlen > float (count * (width + 1)) then
      rejected "records: %s bytes for %d" (num rlen) count;
    let rlen = int_of_float rlen in
    let c = r.need rlen "the records" in
    let d = c.data and roff = c.pos in
    c.pos <- c.pos + rlen;
    r.seen c;
    if version = 2 then (unplane d roff count 0; batch ~at:0 ~first:0 count)
    else begin
      (* Front-coded, each record checked as it is decoded (as check's reader does), one past
         the count too. *)
      let p = ref roff and stop = roff + rlen and k = ref 0 in
      while !p < stop && !k <= count do
        let shared = get d !p in
        incr p;
        if shared >= width then
          rejected "records: record %d says it shares %d bytes" (!k + 1) shared;
        if (!k = 0 && shared <> 0) || stop - !p < width - shared then
          rejected "records: record %d is cut short" (!k + 1);
        if !k > 0 then Bytes.blit rows ((!k - 1) * width) rows (!k * width) shared;
        for j = shared to width - 1 do
          Bytes.unsafe_set rows (!k * width + j) (Bigarray.Array1.unsafe_get d !p); incr p
        done;
        if !k > 0 && Bytes.sub rows (!k * width) width > Bytes.sub rows ((!k - 1) * width) width
           && Bytes.get rows ((!k - 1) * width + shared) = Bytes.get rows (!k * width + shared)
        then rejected "records: record %d shares more than its stated %d bytes" (!k + 1) shared;
        check_records rows ~at:!k ~first:!k 1 ~before ~width ~cells ~w ~ncols ~masks_lo
          ~masks_hi ~used ~symmetry ~entries;
        Bytes.blit rows (!k * width) before 0 width;
        incr k
      done;
      if !k <> count then
        rejected "records: there are %d%s, not count = %d" !k (if !k > count then "+" else "")
          count
    end;
    if not (r.at_end ()) then rejected "the body has data after it"
  end;
  Array.iteri (fun i u -> if not u then rejected "column table entry %d is unused" i) used;
  (* (Only now: looking past the body may move the window the records were read from.) *)
  r.finished ();
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

(* Why a no-win's records are not closed, in check's words, once the proved check has said no:
   the start (after autoplay, under it) is not a record, or the first record, in order, from
   which a move (then autoplay) leads to a position that is not one.  Not trusted: it only
   words a refusal. *)
let why_not_closed nw ~start ~cells ~fm ~symmetry ~auto ~count =
  let w = nw.w in
  let width = 4 + cells + 8 * w in
  let lookup = flat_lookup ~width ~count nw.rows in
  let index = Strings.create (2 * Array.length nw.entries + 1) in
  Array.iteri (fun i s -> Strings.replace index s i) nw.entries;
  let scratch = Bytes.create width in
  let member q =
    let ids = Array.map (Strings.find_opt index) q.cols in
    not (Array.mem None ids) && begin
      let ids = Array.map Option.get ids in
      if symmetry = "columns" then Array.sort compare ids;
      Bytes.fill scratch 0 width '\xff';
      Array.iteri (fun s n -> Bytes.set scratch s (Char.chr n)) q.found;
      List.iteri (fun j c -> Bytes.set scratch (4 + j) (Char.chr c)) q.free;
      Array.iteri (fun j e -> for b = 0 to w - 1 do
                      Bytes.set scratch (4 + cells + w * j + b)
                        (Char.chr ((e lsr (8 * (w - 1 - b))) land 0xff)) done) ids;
      lookup scratch < count
    end in
  let played q = if auto then autoplay q else q in
  let s = played (position_of start) in
  if not (member s) then
    rejected "the starting position%s (%s) is not one of the records"
      (if auto then " after autoplay" else "") (show s);
  for k = 0 to count - 1 do
    let row = Bytes.sub nw.rows (k * width) width in
    let at j = Char.code (Bytes.get row j) in
    let id j = let e = ref 0 in
      for b = 0 to w - 1 do e := (!e lsl 8) lor at (4 + cells + w * j + b) done; !e in
    let p = { found = Array.init 4 at;
              free = List.filter (( <> ) 0xff) (List.init cells (fun j -> at (4 + j)));
              cols = Array.init 8 (fun j -> nw.entries.(id j)) } in
    List.iter (fun ((c, from, dest) as m) ->
        if not (member (played (after p m))) then
          rejected "record %d (%s): moving %s from %s to %s%s gives a position not in the \
                    certificate" (k + 1) (show p) (card_name c) (place from) (place dest)
            (if auto then " then autoplay" else ""))
      (legal p ~cells ~fm)
  done

(* A board's faults in check's words, before the trusted decoder reads it (which refuses the
   same boards, in words of its own). *)
let board_words (d : buf) (off, len) ~cells =
  let at i = get d (off + i) in
  let rest = List.init (max 0 (len - 4 - cells)) (fun i -> at (4 + cells + i)) in
  if len < 4 + cells || List.length (List.filter (( = ) 0xff) rest) <> 8
     || List.nth_opt (List.rev rest) 0 <> Some 0xff then
    rejected "the board is not four counts, the cells and eight columns each ended by 0xFF";
  let why m = rejected "the board is not a position: %s" m in
  if List.exists (fun s -> at s > 13) [0; 1; 2; 3] then why "a foundation count is above 13";
  let cellbytes = List.init cells (fun j -> at (4 + j)) in
  let rec strip = function 0xff :: l -> strip l | l -> l in
  let free = List.rev (strip (List.rev cellbytes)) in
  if List.mem 0xff free || List.sort_uniq compare free <> free then
    why "the cells are not ascending cards, then 0xFF";
  let off_home = List.filter (fun c -> c / 4 >= at (c mod 4)) (List.init 52 Fun.id) in
  if List.sort compare (free @ List.filter (( <> ) 0xff) rest) <> off_home then
    why "the 52 cards are not each in one place"


(* Check one claim about one start under one set of rules, its body read through [r]; the
   theorem's sentence, or Rejected.  [board] is the header's board, copied out of the stream.
   TRUSTED: [start], [cells], [fm] and the symmetry below are passed to the proved function
   and, the same values, to the sentence. *)
let check_one (r : reader) ~path ~claim ~version ~deal ~board ~cells ~fm ~symmetry ~closure
    ~(count : Int64.t) ~draw =
  (* TRUSTED: with closure "autoplay" the proved function is [check_nowin_autoplay], and the
     sentence says so. *)
  let autoplay = closure = "autoplay" in
  let under = if autoplay then "every legal move then safe autoplay" else "every legal move" in
  let plural word = Printf.sprintf "%s %s%s" (commas_of (Int64.to_string count)) word
      (if count = 1L then "" else "s") in
  let sentence_nowin () =
    Printf.sprintf "%s (%s) cannot be won: %s closed under %s, none won"
      (who path deal) (rules cells fm) (plural "position") under in
  let sentence_win () =
    Printf.sprintf "%s (%s) can be won: %s replay%s to a won position"
      (who path deal) (rules cells fm) (plural "single-card move")
      (if count = 1L then "s" else "") in
  (* The start, as the trusted decoder reads it (a board's faults said in check's words). *)
  let start () = match deal, board with
    | Some n, _ -> `Deal n
    | None, Some (bd, b) -> board_words bd b ~cells; `Board (DC.board_position bd b ~cells)
    | None, None -> rejected "no deal and no board" in
  let start_ints = function
    | `Deal n -> start_of_deal n | `Board s -> start_of_position s in
  if claim = "win" then begin
    if Int64.compare count (Int64.of_int !max_moves) > 0 then
      unreadable "%s moves: more than --max-moves %s" (commas_of (Int64.to_string count))
        (commas !max_moves);
    let count = Int64.to_int count in
    (* Version 3: one bin of [count] move indices; before: [count] (card, destination) pairs,
       the whole body bin.  Their sizes checked before they are read; then copied out of the
       stream (looking past them may move its window). *)
    let per = if version < 3 then 2 else 1 in
    let len = if version < 3 then r.left ()
      else bin_header r "the moves" ~not_bin:(not_a "the moves" "bin") in
    if len <> float (per * count) then
      rejected "the body has %s bytes, not %d x count" (num len) per;
    let len = per * count in
    let c = r.need len "the body" in
    if Bigarray.Array1.dim !moves < len then moves := Bigarray.(Array1.create char c_layout len);
    let d = !moves in
    Bigarray.Array1.(blit (sub c.data c.pos len) (sub d 0 len));
    c.pos <- c.pos + len;
    r.seen c;
    r.finished ();
    let s = start () in
    if draw then picture.start <- Some (start_ints s);
    (* The line replayed by the driver's moves first (its faults in check's words); then the
       same moves, as (card, destination), to the proved check. *)
    let line = replay_words (start_ints s) ~cells ~fm ~count
        ~pick:(if version < 3 then by_card d else by_index d) in
    (* (List.rev_map twice: List.map recurses once a move, past a JavaScript engine's stack on a
       line of 100,000 moves.) *)
    let ok = match s with
      | `Deal n ->
          Numbered.check_win n DN.nats.(cells) fm
            (List.rev (List.rev_map (fun (c, d) -> DN.cards.(c), DN.nats.(d)) line))
      | `Board s ->
          Custom.check_win s DC.nats.(cells) fm
            (List.rev (List.rev_map (fun (c, d) -> DC.cards.(c), DC.nats.(d)) line)) in
    if ok then sentence_win ()
    else rejected "the moves do not replay to a won position: %s"
        "one is illegal or the last position is not won"
  end else begin
    let nw = read_nowin r ~version ~cells ~symmetry ~count in
    let count = Int64.to_int count in
    let start = start () in
    if draw then picture.start <- Some (start_ints start);
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
    else begin
      why_not_closed nw ~start:(start_ints start) ~cells ~fm ~symmetry ~auto:autoplay ~count;
      rejected "the records are not closed under %s from the %s" under
        "starting position, or one is won"
    end
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
  (* The moves and the positions the entries read so far ask (docs/certificate-format.md
     section 5's range limits); floats: whole and exact below 2 ^ 53, far past any limit. *)
  let spent = [| 0.0; 0.0 |] in
  while !failed = None && !i < count do
    let i' = !i in
    (* TRUSTED: entry i is checked, and counted, as the theorem of deal first + i. *)
    let number = h.first +. i' in
    reached i';
    (try
       let v3 = h.hversion = 3 in
       if array_header r "the entry" ~otherwise:(not_a "the entry" "array")
          <> (if v3 then 3.0 else 4.0)
       then rejected "the entry is not [deal, claim, count%s]" (if v3 then "" else ", body");
       let got = int_value r "its deal" ~otherwise:(not_a "its deal" "int") in
       if got <> Int64.of_float number then rejected "the entry is for deal %s"
           (Int64.to_string got);
       let claim = str_value r "its claim" ~most:7 ~otherwise:(not_a "its claim" "str") in
       if claim <> "win" && claim <> "no-win" then
         rejected "its claim %s is not \"win\" or \"no-win\"" (python_repr (Str claim));
       let count = int_value r "its count" ~otherwise:(not_a "its count" "int") in
       if Int64.compare count 0L < 0 then
         rejected "its count %s is negative" (Int64.to_string count);
       let kind = if claim = "win" then 0 else 1 in
       let word = if kind = 0 then "moves" else "positions" in
       let one = float (if kind = 0 then !max_moves else !max_positions) in
       spent.(kind) <- spent.(kind) +. Int64.to_float count;
       let most = float (if kind = 0 then !range_moves else !range_positions)
                  *. Int64.to_float h.count +. one in
       if spent.(kind) > most then
         unreadable "the range holds more than %s %s in all: --range-%s a deal, and --max-%s more"
           (commas_f most) word word word;
       (* The file's bytes read so far, as check reads them (section 5). *)
       let got = stream_got src.z (Float.max 65536.0 src.taken) in
       let most = float (if kind = 0 then !byte_moves else !byte_positions) *. got +. one in
       if spent.(kind) > most then
         unreadable "the range holds more than %s %s in its first %s bytes: --byte-%s a byte, \
                     and --max-%s more" (commas_f most) word (commas_f got) word word;
       (* Version 2: the body is a bin; version 3: its values follow the entry. *)
       let body = if v3 then r else
           let n = bin_header r "its body" ~not_bin:(not_a "its body" "bin") in
           stream_reader src ~stop:(src.taken +. n) in
       let symmetry = if claim = "win" then "none" else h.symmetry in
       ignore (check_one body ~path:"" ~claim ~version:h.hversion ~deal:(Some number)
                 ~board:None ~cells:h.cells ~fm:h.fm ~symmetry ~closure:h.closure ~count
                 ~draw:false);
       if claim = "no-win" then lost := number :: !lost
     with Rejected m ->
            fail i' "rejected" (Printf.sprintf "entry %s (deal %s): %s" (num (i' +. 1.0))
                                  (num number) m)
        | Unreadable m | Failure m ->
            fail i' "unreadable" (Printf.sprintf "entry %s (deal %s): %s" (num (i' +. 1.0))
                                    (num number) m));
    i := !i +. 1.0
  done;
  (match !failed with
   | Some (_, "rejected", m) -> raise (Rejected m)
   | Some (_, _, m) -> raise (Unreadable m)
   | None -> ());
  if more src then rejected "the range has data after it: the data decompresses to more than it \
                             holds"
  else if xxh3_end hash <> h.hash then rejected "the range does not match its xxh3_64: it is \
                                                 corrupt";
  List.rev !lost

let check_range src (h : header) =
  if Int64.to_float h.count <> h.last -. h.first +. 1.0 then
    rejected "count = %s, not last - first + 1" (Int64.to_string h.count);
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
  if h.claim = "win" && h.symmetry <> "none" then rejected "a win must have symmetry none";
  (* Version 3: the hash is of everything after the header; before, of the body bin's bytes. *)
  let stop = if h.hversion = 3 then infinity else
      let n = bin_header (stream_reader src ~stop:infinity) "the body"
          ~not_bin:(fun () -> unreadable "the body is not a msgpack bin") in
      src.taken +. n in
  let hash = hash_from_here src in
  let r = { (stream_reader src ~stop) with
            finished = (fun () ->
                if more src then
                  unreadable "the body has data after it: the data decompresses to more than \
                              it holds";
                if xxh3_end hash <> h.hash then
                  rejected "the body does not match its xxh3_64: it is corrupt") } in
  record_reached := (fun k -> progress (Printf.sprintf "record %s of %s closed"
                                          (commas k) (commas_of (Int64.to_string h.count))));
  check_one r ~path ~claim:h.claim ~version:h.hversion ~deal:h.deal ~board ~cells:h.cells
    ~fm:h.fm ~symmetry:h.symmetry ~closure:h.closure ~count:h.count ~draw:true

(* The verdict and its line's text for one file, as vcheck prints them. *)
let verify path (file : js) =
  picture.start <- None; picture.frozen <- None;
  shown_name := path;
  let got = ref None in
  let verdict, text =
    try
      if (Js.Unsafe.get file "length" : int) = 0 then unreadable "%s is empty" path;
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

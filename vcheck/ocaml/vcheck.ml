(* vcheck: reads FreeCell certificates and hands their data to the checker proved in Coq.

   Trusted here: only the lines marked TRUSTED, which say which deal (or start position) and
   which rules the proved function was applied to, and print its theorem from those same
   values.  Everything else (decompression, msgpack, the column tree, the hash table that
   finds a record) is data and hints for the proved checker: whatever it computes, a wrong
   answer can only make the check fail (see vcheck/coq/Check.v). *)

let version = "vcheck 1.0"

(* The proved checker, in its two forms: a numbered deal, or a start position given as data. *)
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

(* ---- Errors: one line each ---- *)

exception Unreadable of string
exception Rejected of string

let unreadable fmt = Printf.ksprintf (fun s -> raise (Unreadable s)) fmt
let rejected fmt = Printf.ksprintf (fun s -> raise (Rejected s)) fmt

(* ---- The file's data ---- *)

type buf = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

external read_file : string -> buf = "vc_read"         (* "-": standard input *)
external sha256 : buf -> string = "vc_sha256"
external stderr_columns : unit -> int = "vc_stderr_columns"
type zstream
type xxh3_state
external stream_open : unit -> zstream = "vc_stream_open"
external stream_read : zstream -> buf -> buf -> int -> int -> int = "vc_stream_read"
(* The file's bytes that a reader taking a KiB at a time has read once so much data is out. *)
external stream_got : zstream -> int -> int = "vc_stream_got"
external xxh3_begin : unit -> xxh3_state = "vc_xxh3_begin"
external xxh3_add : xxh3_state -> buf -> int -> int -> unit = "vc_xxh3_add"
external xxh3_end : xxh3_state -> string = "vc_xxh3_end"
external advise_huge : Bytes.t -> unit = "vc_advise_huge"
external advise_huge_array : ('a, 'b, 'c) Bigarray.Array1.t -> unit = "vc_advise_huge_array"
(* Where a lookup starts (ocaml/keyed_hash.c: under a key drawn at random each run). *)
external hash_key : unit -> unit = "vc_hash_key"
external keyed_hash : Bytes.t -> (int [@untagged]) -> (int [@untagged]) -> (int [@untagged])
  = "vc_hash_byte" "vc_hash" [@@noalloc]
external keyed_hash_int : (int [@untagged]) -> (int [@untagged])
  = "vc_hash_int_byte" "vc_hash_int" [@@noalloc]

module Strings = Hashtbl.Make (struct
    type t = string
    let equal = String.equal
    let hash s = keyed_hash (Bytes.unsafe_of_string s) 0 (String.length s)
  end)
module Ints = Hashtbl.Make (struct
    type t = int
    let equal = Int.equal
    let hash = keyed_hash_int
  end)

let get (d : buf) i = Char.code (Bigarray.Array1.unsafe_get d i)

(* ---- The data, a window of it at a time (a version 3 no-win) ---- *)

(* [win] holds the data from [pos] to [lim]; what comes before [pos] is read and may be
   dropped ([taken] bytes of the data are); [hash], once set, is fed every byte as it is
   decompressed.  Every certificate is read so: what is held decompressed is what the reader
   asks for at once (at most a body or a chunk whose size the header's count bounds), never
   the whole data. *)
type source = { file : buf; z : zstream; mutable win : buf; mutable pos : int;
                mutable lim : int; mutable ended : bool; mutable hash : xxh3_state option;
                mutable taken : int }

let source_open file =
  { file; z = stream_open (); win = Bigarray.(Array1.create char c_layout (1 lsl 20));
    pos = 0; lim = 0; ended = false; hash = None; taken = 0 }

(* Whether [n] bytes can be had from [pos] on: the window is moved and grown as needed. *)
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
      let got = stream_read s.z s.file s.win s.lim (Array1.dim s.win - s.lim) in
      Option.iter (fun h -> xxh3_add h s.win s.lim got) s.hash;
      if got = 0 then s.ended <- true else s.lim <- s.lim + got
    done
  end;
  s.lim - s.pos >= n

(* ---- msgpack, decoded by hand: only what the format uses ---- *)

type value =
  | Nil | Bool of bool | Int of int | Str of string
  | Bin of int * int                      (* offset and length in the data *)
  | Arr of value array | Map of (value * value) list

type cursor = { data : buf; mutable pos : int; limit : int }

let byte c =
  if c.pos >= c.limit then unreadable "the data is cut short inside a msgpack value";
  let b = get c.data c.pos in
  c.pos <- c.pos + 1;
  b

let uint c n =
  let r = ref 0 in
  for i = 1 to n do
    let b = byte c in
    if i = 1 && n = 8 && b >= 0x40 then unreadable "a msgpack number is too large";
    r := (!r lsl 8) lor b
  done;
  !r

let sint c n =
  let u = if n = 8 then uint c 8 else uint c n in
  if n < 8 && u >= 1 lsl (8 * n - 1) then u - (1 lsl (8 * n)) else u

let room c n what =
  if n < 0 || n > c.limit - c.pos then unreadable "the data is cut short inside %s" what

let rec value c depth =
  if depth > 4 then unreadable "msgpack values nest too deeply";
  let b = byte c in
  if b <= 0x7f then Int b
  else if b >= 0xe0 then Int (b - 256)
  else if b land 0xf0 = 0x80 then map c (b land 0x0f) depth
  else if b land 0xf0 = 0x90 then arr c (b land 0x0f) depth
  else if b land 0xe0 = 0xa0 then str c (b land 0x1f)
  else
    match b with
    | 0xc0 -> Nil
    | 0xc2 -> Bool false
    | 0xc3 -> Bool true
    | 0xc4 -> bin c (uint c 1)
    | 0xc5 -> bin c (uint c 2)
    | 0xc6 -> bin c (uint c 4)
    | 0xcc -> Int (uint c 1)
    | 0xcd -> Int (uint c 2)
    | 0xce -> Int (uint c 4)
    | 0xcf -> Int (uint c 8)
    | 0xd0 -> Int (sint c 1)
    | 0xd1 -> Int (sint c 2)
    | 0xd2 -> Int (sint c 4)
    | 0xd3 -> Int (sint c 8)
    | 0xd9 -> str c (uint c 1)
    | 0xda -> str c (uint c 2)
    | 0xdb -> str c (uint c 4)
    | 0xdc -> arr c (uint c 2) depth
    | 0xdd -> arr c (uint c 4) depth
    | 0xde -> map c (uint c 2) depth
    | 0xdf -> map c (uint c 4) depth
    | _ -> unreadable "msgpack type 0x%02x is not used by the format" b

and bin c n = room c n "a bin"; let p = c.pos in c.pos <- p + n; Bin (p, n)

and str c n =
  room c n "a str";
  let s = String.init n (fun i -> Char.chr (get c.data (c.pos + i))) in
  c.pos <- c.pos + n;
  Str s

(* (Only the header is read as values: its arrays and maps are small, as check's are.) *)
and arr c n depth =
  if n > 16 then unreadable "the header holds a msgpack array of %d values (at most 16)" n;
  room c n "an array";
  let a = Array.make n Nil in
  for i = 0 to n - 1 do a.(i) <- value c (depth + 1) done;
  Arr a

and map c n depth =
  if n > 16 then unreadable "the header holds a msgpack map of %d pairs (at most 16)" n;
  room c (2 * n) "a map";
  let l = ref [] in
  for _ = 1 to n do
    let k = value c (depth + 1) in
    let v = value c (depth + 1) in
    l := (k, v) :: !l
  done;
  Map (List.rev !l)

let rec show = function
  | Nil -> "None" | Bool b -> if b then "True" else "False" | Int n -> string_of_int n
  | Str s -> Printf.sprintf "%S" s | Bin (_, n) -> Printf.sprintf "<%d bytes>" n
  | Arr a -> "[" ^ String.concat ", " (Array.to_list (Array.map show a)) ^ "]"
  | Map _ -> "{...}"

(* ---- Headers ---- *)

type header = {
  claim : string; hversion : int; deal : int option; board : (int * int) option;
  cells : int; fm : bool; symmetry : string; count : int; hash : string;
  first : int; last : int;
  closure : string;   (* "autoplay", or "moves" (no closure key): docs/certificate-format.md 8 *)
}

let single_keys = ["board"; "cells"; "claim"; "count"; "deal"; "format"; "foundation_moves";
                   "symmetry"; "version"; "xxh3_64"]
let range_keys = ["cells"; "claim"; "count"; "first"; "format"; "foundation_moves"; "last";
                  "symmetry"; "version"; "xxh3_64"]

let is_hex s = String.length s = 16 &&
               String.for_all (fun ch -> (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')) s

let max_deal = (1 lsl 33) - 1

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
  | Int n -> cut (string_of_int n) 40
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
    | Int (1 | 2 | 3 as v) when v >= 1 + Bool.to_int ranged -> v | _ -> bad "version" in
  let claim = match field "claim" with
    | Str ("no-win" | "win" | "range" as s) -> s | _ -> bad "claim" in
  let int_in k lo hi = match field k with Int n when n >= lo && n <= hi -> n | _ -> bad k in
  let cells = int_in "cells" 0 8 in
  let fm = match field "foundation_moves" with Bool b -> b | _ -> bad "foundation_moves" in
  let symmetry = match field "symmetry" with
    | Str ("columns" | "none" as s) -> s | _ -> bad "symmetry" in
  (* (Counts up to 2 ^ 64 - 1 are allowed; past 2 ^ 62 - 1 msgpack's reader refuses them, far
     past any limit.) *)
  let count = int_in "count" 0 max_int in
  let hash = match field "xxh3_64" with Str s when is_hex s -> s | _ -> bad "xxh3_64" in
  (* Tested last, as check does: only "autoplay", only in version 3, never in a win, never with
     foundation moves (section 8). *)
  let closure () =
    if List.length named = List.length keys then "moves"
    else match field "closure" with
      | Str "autoplay" when hversion = 3 && claim <> "win" && not fm -> "autoplay"
      | _ -> bad "closure" in
  if ranged then begin
    let first = int_in "first" 1 max_deal in
    let last = int_in "last" first max_deal in
    let closure = closure () in
    { claim; hversion; deal = None; board = None; cells; fm; symmetry; count; hash; first; last;
      closure }
  end else begin
    let deal = match field "deal" with
      | Int n when n >= 1 && n <= max_deal -> Some n | Nil -> None | _ -> bad "deal" in
    let board = match deal, field "board" with
      | Some _, Nil -> None | None, Bin (o, n) -> Some (o, n) | _ -> bad "board" in
    let closure = closure () in
    { claim; hversion; deal; board; cells; fm; symmetry; count; hash; first = 0; last = 0;
      closure }
  end

(* ---- Limits ---- *)

let max_positions = ref 4_000_000
let max_columns = ref 1_000_000
let max_moves = ref 100_000
(* A range's moves and positions in all (docs/certificate-format.md section 5): N a deal and N a
   byte of the file read, each with one certificate's worth more. *)
let range_moves = ref 250
let range_positions = ref 10_000
let byte_moves = ref 4
let byte_positions = ref 16
let jobs = ref 1

(* ---- Words ---- *)

let printable s =
  String.concat "" (List.map (fun ch -> if ch >= ' ' && ch <> '\127' then String.make 1 ch
                               else Printf.sprintf "\\x%02x" (Char.code ch))
                      (List.init (String.length s) (String.get s)))

let commas n =
  let s = string_of_int n in
  let b = Buffer.create 16 in
  String.iteri (fun i ch ->
      if i > 0 && (String.length s - i) mod 3 = 0 then Buffer.add_char b ',';
      Buffer.add_char b ch) s;
  Buffer.contents b

(* ---- Progress of a long check: a line on standard error at most every [progress_every]
   seconds (none in the first), cut to the terminal's width when it is one, whole in a log ---- *)

let progress_every = ref 10.0
let progress_on = ref true                    (* off under -q *)
let progress_label = ref ""
let progress_next = ref infinity

let progress_begin label =
  progress_label := label;
  progress_next := if !progress_on then Unix.gettimeofday () +. !progress_every else infinity

let progress text =
  if Unix.gettimeofday () >= !progress_next then begin
    let line = printable (!progress_label ^ ": " ^ text) in
    let columns = stderr_columns () in
    prerr_endline (if columns > 1 && String.length line >= columns
                   then String.sub line 0 (columns - 1) else line);
    progress_next := Unix.gettimeofday () +. !progress_every
  end

(* Called with k, now and then, as record k is about to be closed. *)
let record_reached = ref (fun (_ : int) -> ())

(* [work i tell] for each i < parts, each in a forked process of its own (so that each sees
   the same data), and their results in order (None for a process that failed).  [tell n]
   says how far process i is: the parent calls [show] with the latest of each.  TRUSTED:
   result i is what [work i] returned in process i (or None), which the conjunctions below
   rely on; the progress it passes to [show] is not. *)
let in_processes parts (work : int -> (int -> unit) -> 'a) (show : int array -> unit) =
  flush_all ();
  let news, tidings = Unix.pipe () in
  let start i =
    let r, w = Unix.pipe () in
    match Unix.fork () with
    | 0 ->
        Unix.close news; Unix.close r;
        let message = Bytes.create 16 and last = ref 0.0 in
        let tell n =   (* at most a few a second; 16 bytes, so that writes never interleave *)
          let now = Unix.gettimeofday () in
          if now -. !last >= 0.25 then begin
            last := now;
            Bytes.set_int64_le message 0 (Int64.of_int i);
            Bytes.set_int64_le message 8 (Int64.of_int n);
            ignore (Unix.write tidings message 0 16)
          end in
        let result = try Some (work i tell) with _ -> None in
        Unix.close tidings;
        let oc = Unix.out_channel_of_descr w in
        (try Marshal.to_channel oc result []; close_out oc with _ -> ());
        Unix._exit 0
    | pid -> Unix.close w; (pid, r) in
  let children = Array.init parts start in
  Unix.close tidings;
  (* Until every process has closed its end of [news]. *)
  let counts = Array.make parts 0 and chunk = Bytes.create 4096 and held = Buffer.create 32 in
  let rec listen () =
    match Unix.read news chunk 0 4096 with
    | 0 -> ()
    | n ->
        Buffer.add_subbytes held chunk 0 n;
        let whole = Buffer.length held / 16 * 16 in
        let m = Buffer.to_bytes held in
        for j = 0 to whole / 16 - 1 do
          let i = Int64.to_int (Bytes.get_int64_le m (16 * j)) in
          if i >= 0 && i < parts then counts.(i) <- Int64.to_int (Bytes.get_int64_le m (16 * j + 8))
        done;
        Buffer.clear held;
        Buffer.add_subbytes held m whole (Bytes.length m - whole);
        show counts;
        listen ()
    | exception Unix.Unix_error (Unix.EINTR, _, _) -> listen () in
  listen ();
  Unix.close news;
  Array.map (fun (pid, r) ->
      let ic = Unix.in_channel_of_descr r in
      let result = try Marshal.from_channel ic with _ -> None in
      close_in ic;
      ignore (Unix.waitpid [] pid);
      result) children

(* The no-win's records in [jobs] slices, each checked by [slice lo hi] in a process of its
   own: the bounds between the slices, and [run lo hi], true when the process that checked the
   slice [lo .. hi] answered true.  TRUSTED: that is [runs_sound] in coq/Verdict.v, on which
   [verdict] relies for a slice it did not check itself.  Few records: none in other processes
   ([None]: the proved function checks them all). *)
let in_slices ~count slice =
  let parts = max 1 (min !jobs (count / 100)) in
  if parts = 1 then [], None
  else begin
    let bound i = count * i / parts in
    let closed i tell =
      record_reached := (fun k -> tell (k - bound i));
      slice (bound i) (bound (i + 1)) in
    let show counts = progress (Printf.sprintf "record %s of %s closed"
                                  (commas (Array.fold_left ( + ) 0 counts)) (commas count)) in
    let results = in_processes parts closed show in
    if Array.mem None results then unreadable "a checking process failed (out of memory?)";
    let run lo hi = List.exists (fun i -> bound i = lo && bound (i + 1) = hi
                                           && results.(i) = Some true) (List.init parts Fun.id) in
    List.init (parts - 1) (fun i -> bound (i + 1)), Some run
  end

(* ---- The records packed: front-coded in blocks (a no-win too large to hold flat) ----

   Blocks of [block] records, each begun in full and the rest front-coded (a byte saying how
   many leading bytes a record shares with the one before it, then the rest of it), in segments
   of at most 64 MiB that no block straddles; [starts] says where each block begins.  About
   10 bytes a position on the published certificates, against [W] (24) flat and 8 to 16 more
   for the lookup table; a record is found by a binary search on the blocks' first records. *)

let block = 16
let segment_bits = 26

type packed = { pwidth : int; pcount : int; segments : buf array; starts : int array }

(* (Segments outside OCaml's heap: never moved by a compaction, so never copied, and a
   segment's pages past what is written are never touched.) *)
let segment size = Bigarray.(Array1.create char c_layout size)

type packer = { width : int; size : int; mutable done_ : buf list; mutable cur : buf;
                mutable used : int; mutable k : int; begins : int array; last : Bytes.t }

let packer ~width ~count =
  let size = min (1 lsl segment_bits) (count * (width + 1) + block * (width + 1)) in
  { width; size; done_ = []; cur = segment size; used = 0; k = 0;
    begins = Array.make ((count + block - 1) / block) 0; last = Bytes.create width }

(* Record [p.k], the [width] bytes of [src] at [off]. *)
let pack p src off =
  let width = p.width in
  if p.k mod block = 0 then begin
    if p.used + block * (width + 1) > p.size then begin
      p.done_ <- p.cur :: p.done_; p.cur <- segment p.size; p.used <- 0
    end;
    p.begins.(p.k / block) <- (List.length p.done_ lsl segment_bits) lor p.used;
    for j = 0 to width - 1 do
      Bigarray.Array1.unsafe_set p.cur (p.used + j) (Bytes.unsafe_get src (off + j))
    done;
    p.used <- p.used + width
  end else begin
    let shared = ref 0 in
    while Bytes.unsafe_get p.last !shared = Bytes.unsafe_get src (off + !shared) do
      incr shared
    done;     (* (records strictly ascending: they differ before their end) *)
    Bigarray.Array1.unsafe_set p.cur p.used (Char.unsafe_chr !shared);
    for j = !shared to width - 1 do
      Bigarray.Array1.unsafe_set p.cur (p.used + 1 + j - !shared) (Bytes.unsafe_get src (off + j))
    done;
    p.used <- p.used + 1 + width - !shared
  end;
  Bytes.blit src off p.last 0 width;
  p.k <- p.k + 1

(* (The last segment is kept whole: its pages past [used] were never written, so they take no
   memory.) *)
let packed_of p =
  { pwidth = p.width; pcount = p.k; segments = Array.of_list (List.rev (p.cur :: p.done_));
    starts = p.begins }

(* The memory past which a no-win's records are packed (--memory): by default half of this
   machine's memory. *)
let memory_budget = ref (
    try
      let ic = open_in "/proc/meminfo" in
      let line = input_line ic in
      close_in ic;
      Scanf.sscanf line "MemTotal: %d kB" (fun kb -> kb * 1024 / 2)
    with _ -> max_int)

type store = Flat of Bytes.t | Packed of packed

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

  (* The column tree: the table's entries keep their ids; every prefix of an entry that is
     not itself an entry is added after them, so that each column's parent exists.  A node is
     its parent, its top card and its depth, never its cards, and a node's children are listed
     together (14 bytes a node in all, in Bigarrays): a prefix that entries share is one node.
     The table is strictly ascending, so an entry's new nodes are those past what it shares with
     the entry before it: the tree has exactly 1 + the sum of those nodes (at most 1 + the
     table's bytes, which the header's count bounds before the table is read), counted before
     anything is allocated, and built without a lookup. *)
  let table ?(autoplay = false) (entries : Stdlib.String.t array) =
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
    (* The children of node b: children.(first.(b)) .. children.(first.(b + 1) - 1). *)
    let first = Array1.create int32 c_layout (nodes + 1) in
    Array1.fill first 0l;
    let children = Array1.create int32 c_layout (max nodes 1) in
    let parent e = Int32.to_int (Array1.unsafe_get parent_of e) in
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
    Array1.unsafe_set first 0 0l;
    let top_card e = Char.code (Array1.unsafe_get top_of e) in
    let child b c =   (* the node of card c on node b, or -1 *)
      let stop = Int32.to_int (Array1.unsafe_get first (b + 1)) in
      let rec scan i =
        if i >= stop then -1
        else let e = Int32.to_int (Array1.unsafe_get children i) in
          if top_card e = c then e else scan (i + 1) in
      scan (Int32.to_int (Array1.unsafe_get first b)) in
    let depth_int e = Char.code (Array1.unsafe_get depth_of e) in
    let valid e = e >= 0 && e < nodes in
    (* Columns the tree does not hold, which no record has: under autoplay (section 8) a
       successor may have one whose top card then goes home (a card put on a column), and so
       may the start.  There [push] answers such a column with the id [nodes], which stands for
       the last one it was asked about, and [column_of] a start's column with ids from
       [nodes + 1] on, one for each card above the longest part of it that the tree holds.
       (Without autoplay such a column is refused at once, as before: [nodes] is no column.) *)
    let x_parent = ref [| 0 |] and x_top = ref [| cards.(0) |] and x_depth = ref [| O |] in
    let extra = ref 1 in
    let known e = e >= nodes && e < nodes + !extra in
    let depth e = if valid e then nats.(depth_int e) else if known e then !x_depth.(e - nodes)
      else O in
    let extend i b c =
      if i = Array.length !x_parent then begin
        let grow a x = Array.append a (Array.make (Array.length a) x) in
        x_parent := grow !x_parent 0; x_top := grow !x_top c; x_depth := grow !x_depth O
      end;
      !x_parent.(i) <- b; !x_top.(i) <- c; !x_depth.(i) <- S (depth b);
      nodes + i in
    let unknown = nodes in
    let push_plain b c =
      if not (valid b) then nodes
      else let x = card_number c in
        if x >= 52 then nodes else match child b x with -1 -> nodes | e -> e in
    (* A start's column (top card first): the node its cards spell from the root, or [nodes];
       and how many of its cards, from the bottom, the tree holds. *)
    let walk col =
      let rec go e held = function
        | [] -> e, held
        | x :: rest -> (match if x < 52 then child e x else -1 with
            | -1 -> e, held
            | e' -> go e' (held + 1) rest) in
      go root 0 (List.rev_map card_number col) in
    let column_of_plain col =
      let e, held = walk col in if held = List.length col then e else nodes in
    let top e = if valid e then cards.(top_card e) else cards.(0) in
    if not autoplay then
      { depth = (fun e -> if valid e then nats.(depth_int e) else O); top;
        parent = (fun e -> if valid e then parent e else 0);
        push = push_plain; column_of = column_of_plain }
    else
    { depth;
      top = (fun e -> if valid e then top e else if known e then !x_top.(e - nodes)
              else cards.(0));
      parent = (fun e -> if valid e then parent e else if known e then !x_parent.(e - nodes)
                 else 0);
      push = (fun b c -> let e = push_plain b c in if e = unknown then extend 0 b c else e);
      column_of = (fun col ->
          (* The longest part the tree holds, then an id for each card above it. *)
          let e, held = walk col in
          let above = List.filteri (fun i _ -> i >= held) (List.rev_map card_number col) in
          if List.exists (fun x -> x >= 52) above then nodes + 1 lsl 30
          else List.fold_left (fun b x -> incr extra; extend (!extra - 1) b cards.(x)) e above) }

  (* Flat records: row k at k * width of [rows], found through a hash table (open addressing,
     linear probing from the row's keyed hash: no file can crowd one stretch of it). *)
  let flat ~width ~count (rows : Bytes.t) =
    let hash b off = keyed_hash b off width in
    let size = ref 16 in
    while !size < 2 * count do size := 2 * !size done;
    let slots = Bigarray.(Array1.create int32 c_layout !size) in
    advise_huge_array slots;
    Bigarray.Array1.fill slots 0l;
    let mask = !size - 1 in
    for k = 0 to count - 1 do
      let i = ref (hash rows (k * width) land mask) in
      while Bigarray.Array1.unsafe_get slots !i <> 0l do i := (!i + 1) land mask done;
      Bigarray.Array1.unsafe_set slots !i (Int32.of_int (k + 1))
    done;
    (* (Eight bytes at a time: a lookup compares a row or two, and this is half its work.) *)
    let words = width / 8 in
    let same k scratch =
      let base = k * width in
      let rec go i =
        i = words ||
        ((Bytes.get_int64_ne rows (base + 8 * i) : int64) = Bytes.get_int64_ne scratch (8 * i)
         && go (i + 1)) in
      let rec rest j =
        j = width ||
        (Bytes.unsafe_get rows (base + j) = Bytes.unsafe_get scratch j && rest (j + 1)) in
      go 0 && rest (8 * words) in
    let lookup scratch =
      let i = ref (hash scratch 0 land mask) and found = ref count in
      while !found = count && Bigarray.Array1.unsafe_get slots !i <> 0l do
        let k = Int32.to_int (Bigarray.Array1.unsafe_get slots !i) - 1 in
        if same k scratch then found := k else i := (!i + 1) land mask
      done;
      !found in
    let source = ref rows in
    source, (fun k -> k * width), lookup

  (* Packed records: record k decoded from its block into a row of its own (the last record
     swept and the last found each kept), found by a binary search on the blocks' first
     records and a scan of one block. *)
  let packed_records (p : packed) =
    let width = p.pwidth and count = p.pcount in
    let mask = (1 lsl segment_bits) - 1 in
    let seg g = p.segments.(g lsr segment_bits) and at g = g land mask in
    (* The record encoded at [g] (after the record now in [row]) into [row]; the next's place. *)
    let step row g =
      let s = seg g and o = at g in
      let shared = get s o in
      for j = shared to width - 1 do
        Bytes.unsafe_set row j (Bigarray.Array1.unsafe_get s (o + 1 + j - shared))
      done;
      g + 1 + width - shared in
    let head row b =
      let g = p.starts.(b) in
      let s = seg g and o = at g in
      for j = 0 to width - 1 do Bytes.unsafe_set row j (Bigarray.Array1.unsafe_get s (o + j)) done;
      g + width in
    let swept = Bytes.create width and swept_k = ref (-1) and swept_next = ref 0 in
    let found = Bytes.create width and found_k = ref (-1) in
    let source = ref swept in
    let locate k =
      if k = !found_k then source := found
      else begin
        source := swept;
        if k <> !swept_k then begin
          if not (!swept_k >= 0 && k > !swept_k && k / block = !swept_k / block) then begin
            swept_next := head swept (k / block); swept_k := k / block * block
          end;
          while !swept_k < k do swept_next := step swept !swept_next; incr swept_k done
        end
      end;
      0 in
    (* How [scratch] compares with the record that block [b] begins with, or with [found]. *)
    let versus scratch b =
      let g = p.starts.(b) in
      let s = seg g and o = at g and j = ref 0 in
      while !j < width && Bytes.unsafe_get scratch !j = Bigarray.Array1.unsafe_get s (o + !j) do
        incr j
      done;
      if !j = width then 0
      else compare (Bytes.unsafe_get scratch !j) (Bigarray.Array1.unsafe_get s (o + !j)) in
    let versus_found scratch =
      let j = ref 0 in
      while !j < width && Bytes.unsafe_get scratch !j = Bytes.unsafe_get found !j do incr j done;
      if !j = width then 0 else compare (Bytes.unsafe_get scratch !j) (Bytes.unsafe_get found !j) in
    let blocks = Array.length p.starts in
    let lookup scratch =
      let versus = versus scratch in
      if count = 0 || versus 0 < 0 then count
      else begin
        let lo = ref 0 and hi = ref (blocks - 1) in      (* the last block begun at or below *)
        while !lo < !hi do
          let mid = (!lo + !hi + 1) / 2 in
          if versus mid >= 0 then lo := mid else hi := mid - 1
        done;
        let k = ref (!lo * block) and g = ref (head found !lo) in
        let last = min count (!k + block) - 1 in
        let rec scan () =
          match versus_found scratch with
          | 0 -> found_k := !k; !k
          | c when c < 0 || !k = last -> found_k := -1; count
          | _ -> g := step found !g; incr k; scan () in
        scan ()
      end in
    source, locate, lookup

  (* The proved checker's records, read from either store ([w]-byte ids). *)
  let records ~cells ~w ~count store =
    let width = 4 + cells + 8 * w in
    let source, locate, lookup = match store with
      | Flat rows -> flat ~width ~count rows
      | Packed p -> packed_records p in
    let scratch = Bytes.create width in
    (* The record bytes of a position, into [scratch]; false if it has no record form. *)
    let put j v = Bytes.unsafe_set scratch j (Char.unsafe_chr v) in
    let home_byte j n = let v = int_of_nat 0 n in v <= 13 && (put j v; true) in
    let rec fill_cells j = function
      | [] -> for i = j to cells - 1 do put (4 + i) 0xff done; true
      | c :: rest -> j < cells && (put (4 + j) (card_number c); fill_cells (j + 1) rest) in
    let rec fill_ids j = function
      | [] -> j = 8
      | e :: rest ->
          j < 8 && e lsr (8 * w) = 0 &&
          (let off = 4 + cells + w * j in
           if w = 2 then (put off (e lsr 8); put (off + 1) (e land 0xff))
           else
             for i = 0 to w - 1 do put (off + i) ((e lsr (8 * (w - 1 - i))) land 0xff) done;
           fill_ids (j + 1) rest) in
    let encode f cs ids =
      home_byte 0 f.clubs && home_byte 1 f.diamonds && home_byte 2 f.hearts &&
      home_byte 3 f.spades && fill_cells 0 cs && fill_ids 0 ids in
    (* Byte [j] and id [j] of the record at [base] of !source. *)
    let id rows base j =
      let off = base + 4 + cells + w * j in
      let v = (Char.code (Bytes.unsafe_get rows off) lsl 8)
              lor Char.code (Bytes.unsafe_get rows (off + 1)) in
      if w = 2 then v
      else if w = 3 then (v lsl 8) lor Char.code (Bytes.unsafe_get rows (off + 2))
      else (v lsl 16) lor (Char.code (Bytes.unsafe_get rows (off + 2)) lsl 8)
           lor Char.code (Bytes.unsafe_get rows (off + 3)) in
    let row base j = Char.code (Bytes.unsafe_get !source (base + j)) in
    let valid k = k >= 0 && k < count in
    (* For progress: [rhome] is asked first for the record being closed, and, after each
       [find], for the record found; the former are counted. *)
    let after_find = ref false and closing = ref 0 in
    let reached k =
      if !after_find then after_find := false
      else (incr closing; if !closing land 4095 = 0 then !record_reached k) in
    { count;
      rhome = (fun k ->
          reached k;
          if valid k then
            let k = locate k in
            { clubs = nats.(row k 0); diamonds = nats.(row k 1);
              hearts = nats.(row k 2); spades = nats.(row k 3) }
          else { clubs = O; diamonds = O; hearts = O; spades = O });
      rcells = (fun k ->
          if not (valid k) then [] else
            let k = locate k and l = ref [] in
            for j = cells - 1 downto 0 do
              let b = row k (4 + j) in if b < 52 then l := cards.(b) :: !l
            done;
            !l);
      rids = (fun k ->
          if not (valid k) then []
          else let k = locate k and rows = !source in
            [id rows k 0; id rows k 1; id rows k 2; id rows k 3; id rows k 4; id rows k 5;
             id rows k 6; id rows k 7]);
      find = (fun f cs ids ->
          after_find := true; if encode f cs ids then lookup scratch else count) }

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

  (* TRUSTED: the text Coq returned, as bytes (a character's bools are its bits, the first
     the lowest), and the file's name as a Coq string, the same way. *)
  let text (s : string) =
    let b = Buffer.create 160 and bit x k = if x then 1 lsl k else 0 in
    let rec go = function
      | EmptyString -> Buffer.contents b
      | String (Ascii (b0, b1, b2, b3, b4, b5, b6, b7), rest) ->
          Buffer.add_char b (Char.chr (bit b0 0 lor bit b1 1 lor bit b2 2 lor bit b3 3
                                       lor bit b4 4 lor bit b5 5 lor bit b6 6 lor bit b7 7));
          go rest in
    go s
  let coq_string (s : Stdlib.String.t) =
    let bit i k = (Char.code s.[i] lsr k) land 1 = 1 in
    let rec go i = if i = Stdlib.String.length s then EmptyString else
        String (Ascii (bit i 0, bit i 1, bit i 2, bit i 3, bit i 4, bit i 5, bit i 6, bit i 7),
                go (i + 1)) in
    go 0

  (* TRUSTED: the sentence is what the proved [verdict] returned for this start, these rules
     and this data (coq/Verdict.v, [verdict_sound]). *)
  let verdict start ~path ~cells ~fm d =
    Option.map text (C.verdict start (coq_string path) nats.(cells) fm d)

  let line l = Line (List.map (fun (c, d) -> cards.(c), nats.(d)) l)

  (* A no-win's data: its records checked here, or with -j N in slices, each in a process of
     its own (when the start is not one of the records, no slice need be checked). *)
  let nowin_data start ~cells ~fm ~sorted ~autoplay ~count ~w entries rows =
    let t = table ~autoplay entries in
    let r = records ~cells ~w ~count rows in
    let slice = C.slice_ok sorted autoplay nats.(cells) fm t r in
    let bounds, run =
      if !jobs = 1 then [], None
      else if not (C.start_ok start fm sorted autoplay t r) then [], Some (fun _ _ -> false)
      else in_slices ~count slice in
    Records (sorted, autoplay, t, r, bounds, run)
end

module DN = Data (Numbered)
module DC = Data (Custom)

(* Where the moves of a win line start (not trusted, as [replay_words]): foundation
   counts, free cells and columns (top card first) as numbers, of a position given in Coq's
   terms, or of deal [n], dealt here by docs/certificate-format.md, section 2 (Rules.v's [start]
   is the proved code's own, and costs milliseconds in unary arithmetic). *)
let start_of_position (s : Custom.position) =
  let number c = 4 * DC.int_of_nat 0 c.Custom.rank + DC.suit_number c.Custom.suit_of in
  ([| DC.int_of_nat 0 s.home.clubs; DC.int_of_nat 0 s.home.diamonds;
      DC.int_of_nat 0 s.home.hearts; DC.int_of_nat 0 s.home.spades |],
   List.map number s.cells, Array.of_list (List.map (List.map number) s.columns))

let start_of_deal n =
  let state = ref (if n < 1 lsl 32 then n else n - (1 lsl 32)) in
  let deck = Array.init 52 (fun i -> i) and left = ref 52 and cols = Array.make 8 [] in
  for i = 0 to 51 do
    state := (!state * 214013 + 2531011) land 0xffff_ffff;
    let high = !state lsr 16 in
    let r = if n < 1 lsl 31 then high land 0x7fff
      else if n < 1 lsl 32 then high land 0x7fff lor 0x8000 else (high land 0xffff) + 1 in
    let j = r mod !left in
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

let card_masks = Array.init 52 (fun c -> 1 lsl c)
let all_cards = (1 lsl 52) - 1


type nowin = { entries : string array; w : int; rows : store }

let chunk_records = 1 lsl 20      (* version 3: the records come in chunks of this many *)

(* Each record a well-formed position, the records strictly ascending, every column used: not
   needed for soundness, but the format requires it.  Records [first ..] of the file, at rows
   [at ..]; [before] holds the record before [first]. *)
let home_mask = Array.init 4 (fun s -> Array.init 14 (fun n ->
    let m = ref 0 in for r = 0 to n - 1 do m := !m lor card_masks.(4 * r + s) done; !m))

(* A column's cards as a mask, or -1 when one repeats (no record may use it then). *)
let check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks ~used ~symmetry
    ~entries =
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
    let id j = let e = ref 0 in
      for b = 0 to w - 1 do e := (!e lsl 8) lor at (4 + cells + w * j + b) done; !e in
    let bad why = rejected "record %d (%s) is not a well-formed position: %s" (k + 1)
        (String.concat "" (List.init width (fun j -> Printf.sprintf "%02x" (at j)))) why in
    for j = 0 to 7 do if id j >= ncols then bad "a column id is beyond the table" done;
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
    let acc = ref 0 and twice = ref false in
    let add m = if m < 0 || !acc land m <> 0 then twice := true; acc := !acc lor m in
    for s = 0 to 3 do add home_mask.(s).(at s) done;
    for j = 0 to cells - 1 do
      let b = at (4 + j) in if b < 52 then add card_masks.(b) else if b <> 0xff then twice := true
    done;
    for j = 0 to 7 do let e = id j in used.(e) <- true; add masks.(e) done;
    if !twice || !acc <> all_cards then bad "the 52 cards are not each in one place";
    if at 0 = 13 && at 1 = 13 && at 2 = 13 && at 3 = 13 then
      rejected "record %d (%s) is won" (k + 1)
        (show { found = [| 13; 13; 13; 13 |]; free = [];
                cols = Array.init 8 (fun j -> entries.(id j)) })
  done

(* A body's bytes, read from the stream up to its end (a version 1 or 2 body bin's end, or
   the data's).  [need n what] is a cursor with at least [n] bytes after it (else the data is cut
   short inside [what]); [seen c] says the bytes up to [c] are read (the stream may then drop
   them); [left ()] is how many bytes the body has left; [at_end ()] whether it has none;
   [finished ()] runs once the body is read: for a single certificate, it is unreadable if
   anything follows, and rejected if the hash does not match. *)
type reader = { need : int -> string -> cursor; seen : cursor -> unit; left : unit -> int;
                at_end : unit -> bool; finished : unit -> unit }

(* The file as check names it: its path, or "standard input". *)
let shown_name = ref ""

(* zstd's refusals, in check's words: those that begin with ":" or " " follow the file's name. *)
let decoded f = try f () with Failure m ->
  unreadable "%s" (if m <> "" && (m.[0] = ':' || m.[0] = ' ') then !shown_name ^ m else m)

(* The body from here up to [stop] bytes into the data (max_int: to the data's end). *)
let stream_reader src ~stop =
  let left () = stop - src.taken in
  { need = (fun n what ->
        if n > left () then rejected "the body ends inside %s" what;
        if not (decoded (fun () -> ensure src n)) then
          rejected "%s is cut short: the data of %s ends early" what !shown_name;
        { data = src.win; pos = src.pos; limit = src.pos + min (src.lim - src.pos) (left ()) });
    seen = (fun c -> src.taken <- src.taken + c.pos - src.pos; src.pos <- c.pos);
    left; at_end = (fun () -> left () = 0 || not (decoded (fun () -> ensure src 1)));
    finished = ignore }

(* From here on, every byte of the data into a new XXH3 hash. *)
let hash_from_here src =
  let h = xxh3_begin () in
  xxh3_add h src.win src.pos (src.lim - src.pos);
  src.hash <- Some h;
  h

(* Whether anything of the data is left after what is read. *)
let more src = decoded (fun () -> ensure src 1)

(* The next [k] bytes, as a big-endian number. *)
let take r k what =
  let c = r.need k what in
  let n = uint c k in
  r.seen c;
  n

(* The value that comes next, known by its first byte before anything of it is read (so a value
   of another kind is refused before it is read, however large it says it is): the length of a
   bin, of an array, of a str, or an integer; else [otherwise ()]. *)
let bin_header r what ~not_bin =
  take r (match take r 1 what with 0xc4 -> 1 | 0xc5 -> 2 | 0xc6 -> 4 | _ -> not_bin ()) what

let array_header r what ~otherwise =
  match take r 1 what with
  | b when b land 0xf0 = 0x90 -> b land 0x0f
  | 0xdc -> take r 2 what
  | 0xdd -> take r 4 what
  | _ -> otherwise ()

let int_value r what ~otherwise =
  let signed k = let u = take r k what in
    if k < 8 && u >= 1 lsl (8 * k - 1) then u - (1 lsl (8 * k)) else u in
  match take r 1 what with
  | b when b <= 0x7f -> b
  | b when b >= 0xe0 -> b - 256
  | 0xcc -> take r 1 what | 0xcd -> take r 2 what | 0xce -> take r 4 what | 0xcf -> take r 8 what
  | 0xd0 -> signed 1 | 0xd1 -> signed 2 | 0xd2 -> signed 4 | 0xd3 -> signed 8
  | _ -> otherwise ()

(* A str of at most [most] bytes; a longer one is [otherwise ()], unread. *)
let str_value r what ~most ~otherwise =
  let n = match take r 1 what with
    | b when b land 0xe0 = 0xa0 -> b land 0x1f
    | 0xd9 -> take r 1 what | 0xda -> take r 2 what | 0xdb -> take r 4 what
    | _ -> -1 in
  if n < 0 then otherwise ()
  else begin
    let n = min n most in
    let c = r.need n what in
    let s = String.init n (fun i -> Char.chr (get c.data (c.pos + i))) in
    c.pos <- c.pos + n;
    r.seen c;
    s
  end

(* A kind's refusal, in check's words: "[what] is not a msgpack [kind]". *)
let not_a what kind () = rejected "%s is not a msgpack %s" what kind

let read_nowin r ~version ~cells ~symmetry ~count =
  if count > !max_positions then
    unreadable "%s positions: more than --max-positions %s" (commas count) (commas !max_positions);
  if version < 3 && array_header r "the body" ~otherwise:(not_a "the body" "array") <> 2 then
    rejected "the body is not [columns, records]";
  let ncols = array_header r "the column table" ~otherwise:(not_a "the column table" "array") in
  if ncols > !max_columns then
    unreadable "%s columns: more than --max-columns %s" (commas ncols) (commas !max_columns);
  if ncols > 8 * count then
    rejected "the column table has %s entries: more than 8 x count" (commas ncols);
  let entries = Array.make ncols "" and masks = Array.make ncols 0 in
  let hex s = String.concat "" (List.init (String.length s) (fun j ->
      Printf.sprintf "%02x" (Char.code s.[j]))) in
  for i = 0 to ncols - 1 do
    let what = Printf.sprintf "column table entry %d" i in
    let n = bin_header r what ~not_bin:(not_a what "bin") in
    (* (An entry of more than 52 bytes is refused on its first 53, as check refuses it.) *)
    let c = r.need (min n 53) (Printf.sprintf "column %d" i) in
    let s = String.init (min n 53) (fun j -> Char.chr (get c.data (c.pos + j))) in
    c.pos <- c.pos + min n 53;
    r.seen c;
    if String.length s > 52 || String.exists (fun ch -> Char.code ch >= 52) s then
      rejected "%s (%s) is not cards" what (hex s);
    if i > 0 && compare entries.(i - 1) s >= 0 then rejected "%s (%s) is not sorted" what (hex s);
    (* A column that repeats a card: no record that uses it holds the 52 cards once each. *)
    String.iter (fun ch -> let x = Char.code ch in
                  masks.(i) <- if masks.(i) < 0 || masks.(i) land card_masks.(x) <> 0 then -1
                    else masks.(i) lor card_masks.(x)) s;
    entries.(i) <- s
  done;
  let w = if ncols <= 1 lsl 16 then 2 else if version < 3 || ncols <= 1 lsl 24 then 3 else 4 in
  let width = 4 + cells + 8 * w in
  (* Flat rows and their lookup table, or (past the memory budget) packed records; a version 3
     file's packed records are read a chunk at a time through rows of one chunk. *)
  let flat_bytes = count * width + 4 * (let size = ref 16 in
                                        while !size < 2 * count do size := 2 * !size done; !size) in
  (* (The hash table's slots hold record numbers below 2 ^ 31 - 1.) *)
  let packing = if flat_bytes > !memory_budget || count >= (1 lsl 31) - 1
    then Some (packer ~width ~count) else None in
  (* (Version 1: a row more, for a record past the count, checked as check checks it.) *)
  let rows = Bytes.create (width * if packing <> None && version > 1
                                   then min count chunk_records else count + 1) in
  advise_huge rows;
  let used = Array.make ncols false in
  let before = Bytes.create width in
  (* Records [first .. first + n - 1], rows [at ..] of [rows]: well-formed, ascending (after the
     record before, kept in [before]), each column used; then packed, if they are to be. *)
  let batch ~at ~first n =
    check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~masks ~used ~symmetry
      ~entries;
    if n > 0 then Bytes.blit rows ((at + n - 1) * width) before 0 width;
    Option.iter (fun p -> for i = 0 to n - 1 do pack p rows ((at + i) * width) done) packing in
  (* [n] records as byte planes at [roff] of [d] (byte j of record k at roff + j * stride + k;
     the stride is [n] unless said), into the rows from row [first] on. *)
  let unplane ?stride (d : buf) roff n first =
    let stride = Option.value stride ~default:n in
    for j = 0 to width - 1 do
      let base = roff + j * stride and row = first * width + j in
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
      if rlen <> n * width then
        rejected "records: %d bytes for %d%s" rlen n
          (if count > chunk_records then Printf.sprintf " (chunk %d)" (i + 1) else "");
      let c = r.need rlen "the records" in
      let at = if packing = None then first else 0 in
      unplane c.data c.pos n at;
      c.pos <- c.pos + rlen;
      r.seen c;
      batch ~at ~first n
    done
  end else begin
    let rlen = records_bin () in
    (* (The sizes the count allows, before the records are read.) *)
    if version = 2 && rlen <> count * width then rejected "records: %d bytes for %d" rlen count;
    if version = 1 && rlen > count * (width + 1) then
      rejected "records: %d bytes for %d" rlen count;
    let c = r.need rlen "the records" in
    let d = c.data and roff = c.pos in
    c.pos <- c.pos + rlen;
    r.seen c;
    if version = 2 then begin
      if packing = None then (unplane d roff count 0; batch ~at:0 ~first:0 count)
      else   (* a chunk's worth at a time, as for version 3 *)
        for i = 0 to (count - 1) / chunk_records do
          let first = i * chunk_records in
          let n = min chunk_records (count - first) in
          unplane ~stride:count d (roff + first) n 0;
          batch ~at:0 ~first n
        done
    end else begin
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
        check_records rows ~at:!k ~first:!k 1 ~before ~width ~cells ~w ~ncols ~masks ~used
          ~symmetry ~entries;
        Bytes.blit rows (!k * width) before 0 width;
        incr k
      done;
      if !k <> count then
        rejected "records: there are %d%s, not count = %d" !k (if !k > count then "+" else "")
          count;
      Option.iter (fun p -> for i = 0 to count - 1 do pack p rows (i * width) done) packing
    end;
    if not (r.at_end ()) then rejected "the body has data after it"
  end;
  Array.iteri (fun i u -> if not u then rejected "column table entry %d is unused" i) used;
  (* (Only now: looking past the body may move the window the records were read from.) *)
  r.finished ();
  { entries; w; rows = match packing with Some p -> Packed (packed_of p) | None -> Flat rows }

(* ---- One certificate ---- *)

(* A win's moves, copied out of the stream (one buffer for every entry of a range). *)
let moves = ref (Bigarray.(Array1.create char c_layout 4096))

(* Check one claim about one start under one set of rules, its body read through [r]; the
   theorem's sentence, or Rejected.  Unless [prove], the body is only read (and checked for
   form): a range's entry that another process proves.  [board] is the header's board, copied
   out of the stream.  TRUSTED: [start], [cells], [fm] and the symmetry below are passed to the
   proved function and, the same values, to the sentence. *)
(* Why a no-win's records are not closed, in check's words, once the proved check has said no:
   the start (after autoplay, under it) is not a record, or the first record, in order, from
   which a move (then autoplay) leads to a position that is not one.  Not trusted: it only
   words a refusal. *)
let why_not_closed nw ~start ~cells ~fm ~symmetry ~auto ~count =
  let w = nw.w in
  let width = 4 + cells + 8 * w in
  let source, locate, lookup = match nw.rows with
    | Flat rows -> DN.flat ~width ~count rows | Packed p -> DN.packed_records p in
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
    let base = locate k in
    let row = Bytes.sub !source base width in
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

(* What one claim's check gave: the sentence to print (a file), the proved result of a range's
   entry (true: won), or nothing (an entry that another process proves). *)
type told = Told of string | Result of bool | Unproved

(* Check one claim about one start under one set of rules, its body read through [r]: the
   proved verdict, or Rejected.  Unless [prove], the body is only read (and checked for form):
   a range's entry that another process proves.  [board] is the header's board, copied out of
   the stream; [entry] is [Some (first, i)] for entry i of a range. *)
let check_one (r : reader) ~prove ~path ~claim ~version ~deal ~board ~cells ~fm ~symmetry
    ~closure ~count ~entry =
  let autoplay = closure = "autoplay" in
  let under = if autoplay then "every legal move then safe autoplay" else "every legal move" in
  (* The start, as the trusted decoder reads it (a board's faults said in check's words). *)
  let start () = match deal, board with
    | Some n, _ -> `Deal n
    | None, Some (bd, b) -> board_words bd b ~cells; `Board (DC.board_position bd b ~cells)
    | None, None -> rejected "no deal and no board" in
  let start_ints = function
    | `Deal n -> start_of_deal n | `Board s -> start_of_position s in
  (* TRUSTED: the proved function's answer, for this start, these rules and this data: a
     file's sentence, or entry i's result, from [first + i] in Coq (coq/Range.v). *)
  let judge_deal n d = match entry with
    | Some (first, i) ->
        Option.map (fun b -> Result b) (Vcheck_core.entry_result first i DN.nats.(cells) fm d)
    | None -> Option.map (fun t -> Told t) (DN.verdict n ~path ~cells ~fm d) in
  let judge_board s d = Option.map (fun t -> Told t) (DC.verdict s ~path ~cells ~fm d) in
  if claim = "win" then begin
    if count > !max_moves then
      unreadable "%s moves: more than --max-moves %s" (commas count) (commas !max_moves);
    (* Version 3: one bin of [count] move indices; before: [count] (card, destination) pairs,
       the whole body bin.  Their sizes checked before they are read; then copied out of the
       stream (looking past them may move its window). *)
    let per = if version < 3 then 2 else 1 in
    let len = if version < 3 then r.left ()
      else bin_header r "the moves" ~not_bin:(not_a "the moves" "bin") in
    if len <> per * count then rejected "the body has %d bytes, not %d x count" len per;
    let c = r.need len "the body" in
    if Bigarray.Array1.dim !moves < len then moves := Bigarray.(Array1.create char c_layout len);
    let d = !moves in
    Bigarray.Array1.(blit (sub c.data c.pos len) (sub d 0 len));
    c.pos <- c.pos + len;
    r.seen c;
    r.finished ();
    if not prove then Unproved else
    let s = start () in
    (* The line replayed by the driver's moves first (its faults in check's words); then the
       same moves, as (card, destination), to the proved check. *)
    let line = replay_words (start_ints s) ~cells ~fm ~count
        ~pick:(if version < 3 then by_card d else by_index d) in
    let told = match s with
      | `Deal n -> judge_deal n (DN.line line)
      | `Board s -> judge_board s (DC.line line) in
    match told with
    | Some t -> t
    | None -> rejected "the moves do not replay to a won position: %s"
                "one is illegal or the last position is not won"
  end else begin
    let nw = read_nowin r ~version ~cells ~symmetry ~count in
    if not prove then Unproved else begin
    let start = start () in
    (* The decompressed data is no longer needed (the records are copied out row by row):
       give its memory back before the hash table is built; packed records (past the memory
       budget) also give back the rows they were read through. *)
    (match nw.rows with Flat _ -> Gc.full_major () | Packed _ -> Gc.compact ());
    let sorted = symmetry = "columns" in
    let told = match start with
      | `Deal n ->
          judge_deal n (DN.nowin_data n ~cells ~fm ~sorted ~autoplay ~count ~w:nw.w
                          nw.entries nw.rows)
      | `Board s ->
          judge_board s (DC.nowin_data s ~cells ~fm ~sorted ~autoplay ~count ~w:nw.w
                           nw.entries nw.rows) in
    match told with
    | Some t -> t
    | None ->
        why_not_closed nw ~start:(start_ints start) ~cells ~fm ~symmetry ~auto:autoplay ~count;
        rejected "the records are not closed under %s from the %s" under
          "starting position, or one is won"
  end end

(* ---- A range certificate ---- *)

(* The data after the header, read afresh: the header's end and its record, and the stream
   just past it. *)
let open_data file =
  let src = source_open file in
  decoded (fun () -> ignore (ensure src 65536));
  let c = { data = src.win; pos = 0; limit = min src.lim 65536 } in
  let h = read_header c in
  src.pos <- c.pos;
  src.taken <- c.pos;
  src, h

(* The entries of a range read in turn from the stream, each checked for form, and entry i
   proved when [mine i]; [reached i] told before entry i.  The first failure, as (its index
   (the header's count for what follows the last entry), its verdict, why), or None; and the
   proved results of the entries proved, byte i entry i's: 1 won, 2 cannot be won, 0 not
   proved here. *)
let read_entries src (h : header) ~mine ~reached =
  let hash = hash_from_here src in
  let r = stream_reader src ~stop:max_int in
  let results = Bytes.make h.count '\000' and failed = ref None and i = ref 0 in
  let fail i verdict m = failed := Some (i, verdict, m) in
  (* The moves and the positions the entries read so far ask (docs/certificate-format.md
     section 5's range limits). *)
  let spent = [| 0; 0 |] in
  let times a b = if a > 0 && b > max_int / a then max_int else a * b in
  let plus a b = if a > max_int - b then max_int else a + b in
  while !failed = None && !i < h.count do
    let i' = !i in
    let number = h.first + i' in
    reached i';
    (try
       let v3 = h.hversion = 3 in
       if array_header r "the entry" ~otherwise:(not_a "the entry" "array") <> (if v3 then 3 else 4)
       then rejected "the entry is not [deal, claim, count%s]" (if v3 then "" else ", body");
       let got = int_value r "its deal" ~otherwise:(not_a "its deal" "int") in
       if got <> number then rejected "the entry is for deal %d" got;
       let claim = str_value r "its claim" ~most:7 ~otherwise:(not_a "its claim" "str") in
       if claim <> "win" && claim <> "no-win" then
         rejected "its claim %s is not \"win\" or \"no-win\"" (python_repr (Str claim));
       let count = int_value r "its count" ~otherwise:(not_a "its count" "int") in
       if count < 0 then rejected "its count %d is negative" count;
       let kind = if claim = "win" then 0 else 1 in
       let word = if kind = 0 then "moves" else "positions" in
       let one = if kind = 0 then !max_moves else !max_positions in
       spent.(kind) <- spent.(kind) + count;
       let most = plus (times (if kind = 0 then !range_moves else !range_positions) h.count) one in
       if spent.(kind) > most then
         unreadable "the range holds more than %s %s in all: --range-%s a deal, and --max-%s more"
           (commas most) word word word;
       (* The file's bytes read so far, as check reads them (section 5). *)
       let got = stream_got src.z (max 65536 src.taken) in
       let most = plus (times (if kind = 0 then !byte_moves else !byte_positions) got) one in
       if spent.(kind) > most then
         unreadable "the range holds more than %s %s in its first %s bytes: --byte-%s a byte, \
                     and --max-%s more" (commas most) word (commas got) word word;
       (* Version 2: the body is a bin; version 3: its values follow the entry. *)
       let body = if v3 then r else
           let n = bin_header r "its body" ~not_bin:(not_a "its body" "bin") in
           stream_reader src ~stop:(src.taken + n) in
       let symmetry = if claim = "win" then "none" else h.symmetry in
       (* TRUSTED: byte i is what the proved [entry_result first i] returned for entry i
          (the [results_sound] of coq/Range.v). *)
       match check_one body ~prove:(mine i') ~path:"" ~claim ~version:h.hversion
               ~deal:(Some number) ~board:None ~cells:h.cells ~fm:h.fm ~symmetry
               ~closure:h.closure ~count ~entry:(Some (h.first, i')) with
       | Result won -> Bytes.set results i' (if won then '\001' else '\002')
       | Told _ | Unproved -> ()
     with Rejected m ->
            fail i' "rejected" (Printf.sprintf "entry %d (deal %d): %s" (i' + 1) number m)
        | Unreadable m | Failure m ->
            fail i' "unreadable" (Printf.sprintf "entry %d (deal %d): %s" (i' + 1) number m));
    incr i
  done;
  if !failed = None then begin
    if more src then
      fail h.count "rejected"
        "the range has data after it: the data decompresses to more than it holds"
    else if xxh3_end hash <> h.hash then
      fail h.count "rejected" "the range does not match its xxh3_64: it is corrupt"
  end;
  !failed, results

(* The range's theorem, or Rejected.  With -j N the entries are checked in N processes, each
   reading the whole range from the file (read once, before they are forked) and proving
   entry i in process i mod N; the failure reported is the first entry's, as if they were
   checked in turn.  TRUSTED: the result of entry i given to the proved [range_verdict] is
   byte i of what process i mod N returned (or of this process's, with one). *)
let check_range file src (h : header) =
  if h.count <> h.last - h.first + 1 then rejected "count = %d, not last - first + 1" h.count;
  let parts = max 1 (min !jobs h.count) in
  let say i done_ = Printf.sprintf "deal %s (%s of %s)" (commas (h.first + i))
      (commas (done_ + 1)) (commas h.count) in
  let results =
    if parts = 1 then
      [| read_entries src h ~mine:(fun _ -> true) ~reached:(fun i -> progress (say i i)) |]
    else begin
      let part p tell =
        jobs := 1;
        let src, h = open_data file in
        read_entries src h ~mine:(fun i -> i mod parts = p)
          ~reached:(fun i -> if i mod parts = p then tell ((i - p) / parts)) in
      (* The earliest entry still being checked, and how many are done. *)
      let show counts =
        let next p = p + parts * counts.(p) in
        let least = ref h.count in
        Array.iteri (fun p _ -> least := min !least (next p)) counts;
        if !least < h.count then progress (say !least (Array.fold_left ( + ) 0 counts)) in
      Array.map (function
          | Some f -> f
          | None -> unreadable "a checking process failed (out of memory?)")
        (in_processes parts part show)
    end in
  let first = Array.fold_left (fun best (f, _) -> match best, f with
      | Some (i, _, _), Some (j, _, _) when i <= j -> best
      | _, Some _ -> f
      | _, None -> best) None results in
  (match first with
   | Some (_, "rejected", m) -> raise (Rejected m)
   | Some (_, _, m) -> raise (Unreadable m)
   | None -> ());
  let result i = match Bytes.get (snd results.(i mod parts)) i with
    | '\001' -> Some true | '\002' -> Some false | _ -> None in
  match Vcheck_core.range_verdict h.first h.last DN.nats.(h.cells) h.fm result with
  | Some (text, lost) -> DN.text text, lost
  | None -> rejected "the range's entries do not each prove their deal"

(* ---- A file ---- *)

type outcome = {
  verdict : string; text : string; h : header option; lost : int list;
  sha : string option; seconds : float;       (* the file's sha256; the seconds it took *)
}

(* A single certificate, read as it is decompressed ([src] just past its header): version 3's
   body values, or version 1's and 2's body bin; the hash is checked once the body is read, and
   nothing may follow it. *)
let single path src (h : header) =
  (* The board, copied out of the window before the window moves on (TRUSTED: the copy is the
     board that [board_position] decodes, the start of the theorem). *)
  let board = match h.board with
    | None -> None
    | Some (o, l) ->
        let b = Bigarray.(Array1.create char c_layout (max l 1)) in
        Bigarray.Array1.(blit (sub src.win o l) (sub b 0 l));
        Some (b, (0, l)) in
  if h.claim = "win" && h.symmetry <> "none" then rejected "a win must have symmetry none";
  (* Version 3: the hash is of everything after the header; before, of the body bin's bytes. *)
  let stop = if h.hversion = 3 then max_int else
      let n = bin_header (stream_reader src ~stop:max_int) "the body"
          ~not_bin:(fun () -> unreadable "the body is not a msgpack bin") in
      src.taken + n in
  let hash = hash_from_here src in
  let r = { (stream_reader src ~stop) with
            finished = (fun () ->
                if more src then
                  unreadable "the body has data after it: the data decompresses to more than \
                              it holds";
                if xxh3_end hash <> h.hash then
                  rejected "the body does not match its xxh3_64: it is corrupt") } in
  record_reached := (fun k -> progress (Printf.sprintf "record %s of %s closed"
                                          (commas k) (commas h.count)));
  match check_one r ~prove:true ~path ~claim:h.claim ~version:h.hversion ~deal:h.deal ~board
          ~cells:h.cells ~fm:h.fm ~symmetry:h.symmetry ~closure:h.closure ~count:h.count
          ~entry:None with
  | Told text -> text
  | Result _ | Unproved -> rejected "the certificate proves nothing"

(* Paths that are not certificates, and why: a folder that cannot be read, or holds none. *)
let not_certificates : (string, string) Hashtbl.t = Hashtbl.create 4

(* What the command line asks the file to prove (check's --deal, --range, ...): None for what it
   leaves open. *)
let want_deal = ref None
let want_range = ref None
let want_claim = ref None
let want_cells = ref None
let want_fm = ref None
let want_symmetry = ref None
let want_closure = ref None

(* Where the header says something other than what was asked, in check's words, or None. *)
let differs (h : header) =
  let about = if h.claim = "range" then Printf.sprintf "a range, deals %d..%d" h.first h.last
    else match h.deal with Some n -> Printf.sprintf "deal %d" n | None -> "a custom layout" in
  let str s = python_repr (Str s) and truth b = if b then "True" else "False" in
  let its key have asked option =
    Printf.sprintf "its %s is %s, not %s (--%s)" key have asked option in
  let checks = [
    (match !want_deal with
     | Some d when h.deal <> Some d || h.claim = "range" ->
         Some (Printf.sprintf "it is %s, not deal %d (--deal)" about d)
     | _ -> None);
    (match !want_claim with
     | Some c when c <> h.claim -> Some (its "claim" (str h.claim) (str c) "claim") | _ -> None);
    (match !want_cells with
     | Some n when n <> h.cells ->
         Some (its "cells" (string_of_int h.cells) (string_of_int n) "cells") | _ -> None);
    (match !want_fm with
     | Some b when b <> h.fm ->
         Some (its "foundation_moves" (truth h.fm) (truth b) "foundation-moves") | _ -> None);
    (match !want_symmetry with
     | Some s when s <> h.symmetry -> Some (its "symmetry" (str h.symmetry) (str s) "symmetry")
     | _ -> None);
    (match !want_closure with
     | Some s when s <> h.closure -> Some (its "closure" (str h.closure) (str s) "closure")
     | _ -> None);
    (match !want_range with
     | Some (a, b) when h.claim <> "range" || h.first <> a || h.last <> b ->
         Some (Printf.sprintf "it is %s, not deals %d..%d (--range)" about a b)
     | _ -> None)] in
  List.find_map Fun.id checks

let verify path =
  let began = Unix.gettimeofday () and got = ref None and sha = ref None in
  let outcome verdict text lost =
    { verdict; text; h = !got; lost; sha = !sha; seconds = Unix.gettimeofday () -. began } in
  progress_begin path;
  shown_name := if path = "-" then "standard input" else path;
  try
    Option.iter (unreadable "%s") (Hashtbl.find_opt not_certificates path);
    let file = try read_file path with Failure m -> unreadable "%s" m in
    sha := Some (sha256 file);
    if Bigarray.Array1.dim file = 0 then unreadable "%s is empty" !shown_name;
    let src, h = open_data file in
    got := Some h;
    Option.iter (rejected "the file does not prove what was asked: %s") (differs h);
    if h.claim = "range" then begin
      record_reached := ignore;
      let text, lost = check_range file src h in
      outcome "verified" text lost
    end else outcome "verified" (single path src h) []
  with
  | Unreadable m | Failure m -> outcome "unreadable" m []
  | Rejected m -> outcome "rejected" m []
  | Out_of_memory -> outcome "unreadable" "out of memory" []
  | Stack_overflow -> outcome "unreadable" "out of stack" []
  | e -> outcome "unreadable" ("internal error: " ^ Printexc.to_string e) []

(* Several files with -j N: N at once, each in a forked process that sends back its outcome
   (one file: its records or entries are split instead).  The outcomes come back in the
   order of the files. *)
let verify_all files report =
  if !jobs = 1 || List.length files < 2 then List.map (fun p -> report p (verify p)) files
  else begin
    let start path =
      flush_all ();
      let r, w = Unix.pipe () in
      match Unix.fork () with
      | 0 ->
          Unix.close r;
          jobs := 1;
          let o = verify path in
          let oc = Unix.out_channel_of_descr w in
          Marshal.to_channel oc (o : outcome) [];
          close_out oc;
          Unix._exit 0
      | pid -> Unix.close w; (path, pid, r) in
    let finish (path, pid, r) =
      let ic = Unix.in_channel_of_descr r in
      let o = try (Marshal.from_channel ic : outcome)
        with _ -> { verdict = "unreadable"; text = "the checking process died (out of memory?)";
                    h = None; lost = []; sha = None; seconds = 0.0 } in
      close_in ic;
      ignore (Unix.waitpid [] pid);
      report path o in
    let rec go running waiting done_ =
      match running, waiting with
      | [], [] -> List.rev done_
      | _, p :: rest when List.length running < !jobs -> go (running @ [start p]) rest done_
      | first :: others, _ -> go others waiting (finish first :: done_)
      | [], _ -> assert false in
    go [] files []
  end

(* ---- Command line ---- *)

let json_string s =
  let b = Buffer.create (String.length s + 2) in
  Buffer.add_char b '"';
  String.iter (fun ch -> match ch with
      | '"' -> Buffer.add_string b "\\\"" | '\\' -> Buffer.add_string b "\\\\"
      | ch when ch < ' ' || ch = '\127' ->
          Buffer.add_string b (Printf.sprintf "\\u%04x" (Char.code ch))
      | ch -> Buffer.add_char b ch) s;
  Buffer.add_char b '"';
  Buffer.contents b

(* One JSON object: check's fields (verdict: verified, rejected or unreadable; claim: win,
   no-win or range; null where unknown), and the theorem of a verified file. *)
let json path o =
  let field f = match o.h with None -> "null" | Some h -> f h in
  let number n = string_of_int n and text s = json_string s in
  let ranged f = field (fun h -> if h.claim = "range" then f h else "null") in
  let fields = [
    "path", text path; "verdict", text o.verdict;
    "claim", field (fun h -> text h.claim);
    "deal", field (fun h -> match h.deal with Some n -> number n | None -> "null");
    "first", ranged (fun h -> number h.first); "last", ranged (fun h -> number h.last);
    "unwinnable", ranged (fun _ ->
        if o.verdict = "verified" then "[" ^ String.concat ", " (List.map number o.lost) ^ "]"
        else "null");
    "cells", field (fun h -> number h.cells); "foundation_moves", field (fun h ->
        string_of_bool h.fm);
    "symmetry", field (fun h -> text h.symmetry); "closure", field (fun h -> text h.closure);
    "count", field (fun h -> number h.count);
    "sha256", (match o.sha with Some s -> text s | None -> "null");
    "seconds", Printf.sprintf "%.3f" o.seconds;
    "theorem", (if o.verdict = "verified" then text o.text else "null");
    "reason", (if o.verdict = "verified" then "null" else text o.text)] in
  "{" ^ String.concat ", " (List.map (fun (k, v) -> json_string k ^ ": " ^ v) fields) ^ "}"

(* A folder's certificates, as check finds them: (the name to print, the path) of each
   *.msgpack.zst in it and in its subfolders, named from the folder down, in the order of their
   paths; then each subfolder that cannot be read; or the folder itself when it holds none.
   Subfolders are found by a list of those still to read, not by recursion (a tree may be nested
   thousands deep), and a symbolic link is not followed into a folder. *)
let in_folder top =
  let found = ref [] and unread = ref [] and todo = ref [(top, "")] in
  while !todo <> [] do
    let where, named = List.hd !todo in
    todo := List.tl !todo;
    match Sys.readdir where with
    | exception Sys_error _ ->
        let why = try ignore (Unix.opendir where); "unknown"
          with Unix.Unix_error (e, _, _) -> Unix.error_message e in
        Hashtbl.replace not_certificates where
          (Printf.sprintf "cannot read the folder %s: %s" where why);
        unread := (where, where) :: !unread
    | names ->
        Array.iter (fun name ->
            let path = Filename.concat where name
            and shown = if named = "" then name else named ^ "/" ^ name in
            match (Unix.lstat path).Unix.st_kind with
            | Unix.S_DIR -> todo := (path, shown) :: !todo
            | _ when Filename.check_suffix name ".msgpack.zst" -> found := (shown, path) :: !found
            | _ | exception Unix.Unix_error _ -> ()) names
  done;
  let by_path = List.sort (fun (_, a) (_, b) -> compare a b) in
  match by_path !found, by_path !unread with
  | [], [] ->
      Hashtbl.replace not_certificates top
        (Printf.sprintf "%s holds no certificate (*.msgpack.zst)" top);
      [(top, top)]
  | files, unread -> files @ unread

let usage = "usage: vcheck [-q] [--json] [-j N] [--progress-every S] [--deal N] [--range A-B] \
             [--claim {no-win,win,range}] [--cells N] [--[no-]foundation-moves] \
             [--symmetry {columns,none}] [--closure {moves,autoplay}] [--max-positions N] \
             [--max-moves N] [--max-columns N] [--range-moves N] [--range-positions N] \
             [--byte-moves N] [--byte-positions N] [--memory SIZE] CERTIFICATE|FOLDER|- ..."

let help = usage ^ "\n\n\
Check FreeCell certificates with a checker proved correct in Coq (vcheck/README.md).\n\
A folder: each *.msgpack.zst in it and its subfolders; -: a certificate on standard input.\n\
Exit 0: every certificate verified (and proving what --deal, ... ask); 1: one is rejected;\n\
2: one is unreadable, or too big (or bad usage).\n\
A verified file's line is followed by its sha256, as check prints it.\n\n\
\  -q, --quiet          print only what is not verified, and no progress\n\
\  --json               one JSON object per certificate (check's fields, and its theorem)\n\
\  -j N                 N processes: several files N at once; one file's records (a no-win)\n\
\                       or entries (a range) split N ways (default 1)\n\
\  --progress-every S   a progress line on standard error at most every S seconds of a long\n\
\                       check (default 10)\n\
What the file must prove (else it is REJECTED), as check's options:\n\
\  --deal N, --range A-B, --claim {no-win,win,range}, --cells N,\n\
\  --foundation-moves, --no-foundation-moves, --symmetry {columns,none},\n\
\  --closure {moves,autoplay}\n\
Limits (past one a file is UNREADABLE), as check's:\n\
\  --max-positions N    positions of a no-win (4000000)\n\
\  --max-moves N        moves of a win (100000)\n\
\  --max-columns N      entries of a column table (1000000)\n\
\  --range-moves N      a range's moves in all, N a deal (250)\n\
\  --range-positions N  a range's positions in all, N a deal (10000)\n\
\  --byte-moves N       a range's moves in all, N a byte of it read (4)\n\
\  --byte-positions N   and its positions, N a byte (16)\n\
\  --memory SIZE        past SIZE bytes (500M, 2G) of records and lookup table, a no-win's\n\
\                       records are packed (about 10 bytes a position; slower to look up;\n\
\                       default: half of this machine's memory)\n\
\  --version            print the version\n"

let () =
  (* The checker allocates many short-lived lists: a larger minor heap makes that cheaper. *)
  Gc.set { (Gc.get ()) with Gc.minor_heap_size = 1 lsl 20 };
  hash_key ();
  let quiet = ref false and as_json = ref false and paths = ref [] in
  let args = Array.to_list Sys.argv |> List.tl in
  (* Bad usage as check says it (argparse's words after the program's name), exit 2. *)
  let usage_error m = prerr_endline usage; prerr_endline ("vcheck: error: " ^ m); exit 2 in
  let python_int v = (* what Python's int() reads: digits, a sign, spaces around, _ between *)
    let s = String.trim v in
    let body = if s <> "" && (s.[0] = '+' || s.[0] = '-') then String.sub s 1 (String.length s - 1)
      else s in
    if body <> "" && String.for_all (fun c -> c >= '0' && c <= '9' || c = '_') body
       && body.[0] <> '_' && body.[String.length body - 1] <> '_'
       && not (List.exists (( = ) "") (String.split_on_char '_' body))
    then int_of_string_opt (String.concat "" (String.split_on_char '_' s)) else None in
  let number o v = match python_int v with
    | Some n -> n
    | None -> usage_error (Printf.sprintf "argument %s: invalid int value: %s" o
                             (python_quoted ~prefix:"" v)) in
  let choice o v choices =
    if List.mem v choices then v
    else usage_error (Printf.sprintf "argument %s: invalid choice: %s (choose from %s)" o
                        (python_quoted ~prefix:"" v)
                        (String.concat ", " (List.map (fun c -> python_repr (Str c)) choices))) in
  let limits = [ "--max-positions", max_positions; "--max-moves", max_moves;
                 "--max-columns", max_columns; "--range-moves", range_moves;
                 "--range-positions", range_positions; "--byte-moves", byte_moves;
                 "--byte-positions", byte_positions ] in
  let rec parse = function
    | [] -> ()
    | ("-q" | "--quiet") :: rest -> quiet := true; parse rest
    | "--json" :: rest -> as_json := true; parse rest
    | ("-j" | "--jobs") :: v :: rest -> jobs := number "-j/--jobs" v; parse rest
    | "--progress-every" :: v :: rest ->
        (match float_of_string_opt v with
         | Some s when s >= 0.0 -> progress_every := s
         | _ -> usage_error ("--progress-every: not a number of seconds: " ^ v));
        parse rest
    | "--memory" :: v :: rest ->
        let n = String.length v in
        let scale = if n = 0 then 0 else match v.[n - 1] with
          | 'K' | 'k' -> 10 | 'M' | 'm' -> 20 | 'G' | 'g' -> 30 | 'T' | 't' -> 40 | _ -> 0 in
        (match python_int (if scale > 0 then String.sub v 0 (n - 1) else v) with
         | Some m when m >= 0 && m < 1 lsl (61 - scale) -> memory_budget := m lsl scale
         | _ -> usage_error (Printf.sprintf "argument --memory: invalid size value: %s"
                               (python_quoted ~prefix:"" v)));
        parse rest
    | ("-h" | "--help") :: _ -> print_string help; exit 0
    | "--version" :: _ -> print_endline version; exit 0
    | "--deal" :: v :: rest -> want_deal := Some (number "--deal" v); parse rest
    | "--range" :: v :: rest ->
        let a, b = match String.index_opt v '-' with
          | Some i -> String.sub v 0 i, String.sub v (i + 1) (String.length v - i - 1)
          | None -> v, "" in
        (match python_int a, python_int b with
         | Some a, Some b -> want_range := Some (a, b)
         | _ -> usage_error (Printf.sprintf "argument --range: invalid <lambda> value: %s"
                               (python_quoted ~prefix:"" v)));
        parse rest
    | "--claim" :: v :: rest ->
        want_claim := Some (choice "--claim" v ["no-win"; "win"; "range"]); parse rest
    | "--cells" :: v :: rest -> want_cells := Some (number "--cells" v); parse rest
    | "--foundation-moves" :: rest -> want_fm := Some true; parse rest
    | "--no-foundation-moves" :: rest -> want_fm := Some false; parse rest
    | "--symmetry" :: v :: rest ->
        want_symmetry := Some (choice "--symmetry" v ["columns"; "none"]); parse rest
    | "--closure" :: v :: rest ->
        want_closure := Some (choice "--closure" v ["moves"; "autoplay"]); parse rest
    | o :: v :: rest when List.mem_assoc o limits ->
        List.assoc o limits := number o v; parse rest
    | [o] when List.mem o ["-j"; "--jobs"; "--progress-every"; "--memory"; "--deal"; "--range";
                          "--claim"; "--cells"; "--symmetry"; "--closure"]
               || List.mem_assoc o limits ->
        usage_error (Printf.sprintf "argument %s: expected one argument"
                       (if o = "-j" || o = "--jobs" then "-j/--jobs" else o))
    | o :: _ when String.length o > 1 && o.[0] = '-' && python_int o = None ->
        usage_error ("unrecognized arguments: " ^ o)
    | p :: rest -> paths := p :: !paths; parse rest in
  parse args;
  progress_on := not !quiet;
  let paths = List.rev !paths in
  if paths = [] then begin
    prerr_string "usage: vcheck [options] CERTIFICATE|FOLDER|- ... (see --help)\n"; exit 2
  end;
  (* Bad usage (exit 2), as is a pin that no file can meet: check's words, in its order. *)
  let first, last = Option.value !want_range ~default:(1, 1) in
  let bad, why = List.find (fun (bad, _) -> bad) [
      !jobs < 1, Printf.sprintf "-j %d: at least one process is needed" !jobs;
      List.exists (fun (_, r) -> !r < 0) limits, "a limit cannot be negative";
      (match !want_deal with Some d -> d < 1 || d > max_deal | None -> false),
      Printf.sprintf "--deal %d: no deal has that number (1..8,589,934,591)"
        (Option.value !want_deal ~default:0);
      not (1 <= first && first <= last && last <= max_deal),
      Printf.sprintf "--range %d-%d: no range is that (1 <= A <= B <= 8,589,934,591)" first last;
      (match !want_cells with Some n -> n < 0 || n > 8 | None -> false),
      Printf.sprintf "--cells %d: no rules have that many free cells (0..8)"
        (Option.value !want_cells ~default:0);
      true, ""] in
  if bad && why <> "" then usage_error why;
  let folder p = p <> "-" && Sys.file_exists p && Sys.is_directory p in
  let files = List.concat_map (fun p -> if folder p then in_folder p
                                else [((if p = "-" then p else Filename.basename p), p)]) paths in
  let several = List.length files > 1 || List.exists folder paths in
  let shown = Hashtbl.create 16 in
  List.iter (fun (name, p) -> Hashtbl.replace shown p name) files;
  let verdicts = verify_all (List.map snd files) (fun path o ->
      if !as_json then print_endline (json path o)
      else if o.verdict <> "verified" || not !quiet then begin
        let name = Hashtbl.find shown path in
        print_endline (printable ((if several then name ^ ": " else "") ^
                                  String.uppercase_ascii o.verdict ^ ": " ^ o.text));
        match o.verdict, o.sha with
        | "verified", Some sha -> print_endline ("  sha256 " ^ sha)
        | _ -> ()
      end;
      flush stdout;
      o.verdict) in
  let empty = Hashtbl.length not_certificates in   (* folders not read, or holding none *)
  let n = List.length verdicts - empty in
  let ok = List.length (List.filter (( = ) "verified") verdicts) in
  let bad = List.length (List.filter (( = ) "unreadable") verdicts) - empty in
  let plural n word = Printf.sprintf "%s %s%s" (commas n) word (if n = 1 then "" else "s") in
  if several && not !as_json && not !quiet then
    Printf.printf "%s: %s verified, %s rejected%s%s\n" (plural n "certificate") (commas ok)
      (commas (n - ok))
      (if bad > 0 then Printf.sprintf " (%s unreadable)" (commas bad) else "")
      (if empty > 0 then Printf.sprintf "; %s not read or holding no certificate"
           (plural empty "folder") else "");
  exit (if List.mem "rejected" verdicts then 1 else if bad + empty > 0 then 2 else 0)

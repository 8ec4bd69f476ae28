(* Reading a certificate (not trusted): the file, its decompression a window at a time,
   msgpack, the header and its checks, the limits, words and progress lines.  What it asks of
   the machine (the file, zstd, hashes, the clock, processes) is [Host]'s: native in vcheck,
   JavaScript in the page (web/src/host.ml); numbers that may pass 2 ^ 30 (a deal, a header's
   count) are [Num.t], exact in vcheck and, below 2 ^ 53, in the page. *)

open Host

(* ---- Errors: one line each ---- *)

exception Unreadable of string
exception Rejected of string

let unreadable fmt = Printf.ksprintf (fun s -> raise (Unreadable s)) fmt
let rejected fmt = Printf.ksprintf (fun s -> raise (Rejected s)) fmt

(* ---- The file's data ---- *)

module Strings = Hashtbl.Make (struct
    type t = string
    let equal = String.equal
    (* Read-only view, no copy: vc_hash only reads, and exactly the string's own bytes. *)
    let hash s = keyed_hash (Bytes.unsafe_of_string s) 0 (String.length s)
  end)
module Ints = Hashtbl.Make (struct
    type t = int
    let equal = Int.equal
    let hash = keyed_hash_int
  end)

let get (d : buf) i = Char.code (Bigarray.Array1.get d i)

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
  { file; z = stream_open file; win = Bigarray.(Array1.create char c_layout (1 lsl 20));
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
  | Nil | Bool of bool | Int of Num.t | Str of string
  | Big of string                         (* an int of 2 ^ 62 or more, or below -2 ^ 62 (past
                                             vcheck's ints), in decimal: never allowed in a
                                             header *)
  | Float of float                        (* msgpack's float 32 or 64: never allowed either *)
  | Ext of string * string                (* an ext value: its type in Python (ExtType or
                                             Timestamp) and its repr; never allowed *)
  | Bin of int * int                      (* offset and length in the data *)
  | Arr of value array | Map of (value * value) list

type cursor = { data : buf; mutable pos : int; limit : int }

let byte c =
  if c.pos >= c.limit then unreadable "the data is cut short inside a msgpack value";
  let b = get c.data c.pos in
  c.pos <- c.pos + 1;
  b

(* A big-endian number of [n] bytes, at most 4 (8: [word]). *)
let number c n =
  let r = ref Num.zero and base = Num.of_int 256 in
  for _ = 1 to n do r := Num.add (Num.mul !r base) (Num.of_int (byte c)) done;
  !r

let sint c n =
  let u = number c n in
  if u >= Num.power (8 * n - 1) then Num.sub u (Num.power (8 * n)) else u

(* A length: one that is no int here is too long for anything it measures. *)
let uint c n = Num.to_int (Num.clamp (number c n) (Num.of_int max_int))

(* The next [n] bytes as a big-endian 64-bit word (a float's bits, or an int of 8 bytes). *)
let word c n =
  let r = ref 0L in
  for _ = 1 to n do r := Int64.logor (Int64.shift_left !r 8) (Int64.of_int (byte c)) done;
  !r

(* An int of 8 bytes: [Ok] its number from -2 ^ 62 to below 2 ^ 62 (vcheck's ints; in the
   page a number, exact below 2 ^ 53), else [Error] its decimal, in both. *)
let num_or_text w ~unsigned =
  let top = Int64.shift_left 1L 62 in
  if unsigned && Int64.compare w 0L < 0 then Error (Printf.sprintf "%Lu" w)
  else if Int64.compare w top >= 0 || Int64.compare w (Int64.neg top) < 0
  then Error (Int64.to_string w)
  else Ok (Num.of_int64 w)
let int_or_big w ~unsigned =
  match num_or_text w ~unsigned with Ok n -> Int n | Error s -> Big s

let room c n what =
  if n < 0 || n > c.limit - c.pos then unreadable "the data is cut short inside %s" what

(* A str or bytes as Python writes it (repr). *)
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

let rec value c depth =
  if depth > 4 then unreadable "msgpack values nest too deeply";
  let b = byte c in
  if b <= 0x7f then Int (Num.of_int b)
  else if b >= 0xe0 then Int (Num.of_int (b - 256))
  else if b land 0xf0 = 0x80 then map c (b land 0x0f) depth
  else if b land 0xf0 = 0x90 then arr c (b land 0x0f) depth
  else if b land 0xe0 = 0xa0 then str c (b land 0x1f)
  else
    match b with
    | 0xc0 -> Nil
    | 0xc1 -> unreadable "the header (in the first 64 KiB) is not valid msgpack (FormatError())"
    | 0xc7 -> ext c (uint c 1)
    | 0xc8 -> ext c (uint c 2)
    | 0xc9 -> ext c (uint c 4)
    | 0xd4 -> ext c 1
    | 0xd5 -> ext c 2
    | 0xd6 -> ext c 4
    | 0xd7 -> ext c 8
    | 0xd8 -> ext c 16
    | 0xc2 -> Bool false
    | 0xc3 -> Bool true
    | 0xc4 -> bin c (uint c 1)
    | 0xc5 -> bin c (uint c 2)
    | 0xc6 -> bin c (uint c 4)
    | 0xca -> Float (Int32.float_of_bits (Int64.to_int32 (word c 4)))
    | 0xcb -> Float (Int64.float_of_bits (word c 8))
    | 0xcc -> Int (number c 1)
    | 0xcd -> Int (number c 2)
    | 0xce -> Int (number c 4)
    | 0xcf -> int_or_big (word c 8) ~unsigned:true
    | 0xd0 -> Int (sint c 1)
    | 0xd1 -> Int (sint c 2)
    | 0xd2 -> Int (sint c 4)
    | 0xd3 -> int_or_big (word c 8) ~unsigned:false
    | 0xd9 -> str c (uint c 1)
    | 0xda -> str c (uint c 2)
    | 0xdb -> str c (uint c 4)
    | 0xdc -> arr c (uint c 2) depth
    | 0xdd -> arr c (uint c 4) depth
    | 0xde -> map c (uint c 2) depth
    | 0xdf -> map c (uint c 4) depth
    | _ -> unreadable "msgpack type 0x%02x is not used by the format" b

and bin c n = room c n "a bin"; let p = c.pos in c.pos <- p + n; Bin (p, n)

(* An ext value as Python's msgpack reads it: type -1 a timestamp (4, 8 or 12 bytes), any other
   an ExtType of its bytes. *)
and ext c n =
  let code = let b = byte c in if b >= 128 then b - 256 else b in
  room c n "an ext";
  let p = c.pos in
  c.pos <- p + n;
  let at i = Int64.of_int (get c.data (p + i)) in
  let be o k = let r = ref 0L in
    for i = 0 to k - 1 do r := Int64.logor (Int64.shift_left !r 8) (at (o + i)) done; !r in
  let invalid why =
    unreadable "the header (in the first 64 KiB) is not valid msgpack (ValueError('%s'))" why in
  if code <> -1 then
    Ext ("ExtType", Printf.sprintf "ExtType(code=%d, data=%s)" code
           (python_quoted ~prefix:"b" (String.init n (fun i -> Char.chr (get c.data (p + i))))))
  else begin
    let seconds, nanos = match n with
      | 4 -> Int64.to_string (be 0 4), 0L
      | 8 -> let w = be 0 8 in
        Int64.to_string (Int64.logand w 0x3_ffff_ffffL), Int64.shift_right_logical w 34
      | 12 -> Int64.to_string (be 4 8), be 0 4
      | _ -> invalid (Printf.sprintf "invalid timestamp data (length %d)" n) in
    if Int64.compare nanos 999_999_999L > 0 then
      invalid "nanoseconds must be a non-negative integer not greater than 999999999.";
    Ext ("Timestamp", Printf.sprintf "Timestamp(seconds=%s, nanoseconds=%Ld)" seconds nanos)
  end

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

(* As check's msgpack reader takes a map: a key that is not a str or a bin is refused once its
   pair is read, a key repeated once the map is read, an inner map's before the outer's. *)
and map c n depth =
  if n > 16 then unreadable "the header holds a msgpack map of %d pairs (at most 16)" n;
  room c (2 * n) "a map";
  let l = ref [] in
  for _ = 1 to n do
    let k = value c (depth + 1) in
    let v = value c (depth + 1) in
    (match k with
     | Str _ | Bin _ -> ()
     | _ -> unreadable "the header (in the first 64 KiB) is not valid msgpack (ValueError('%s \
                        is not allowed for map key when strict_map_key=True'))"
              (match k with Nil -> "NoneType" | Bool _ -> "bool" | Float _ -> "float"
                          | Arr _ -> "list" | Map _ -> "dict" | Ext (t, _) -> t | _ -> "int"));
    l := (k, v) :: !l
  done;
  let key = function   (* (a bin by its bytes, as Python compares them) *)
    | Bin (o, n) -> "b" ^ String.init n (fun i -> Char.chr (get c.data (o + i)))
    | Str s -> "s" ^ s | _ -> "" in
  let keys = List.map (fun (k, _) -> key k) !l in
  if List.length (List.sort_uniq compare keys) <> n then
    unreadable "a msgpack map repeats a key";
  Map (List.rev !l)

(* A float as Python writes it (repr): the fewest digits that read back as it, written out
   from 1e-4 to below 1e16, else with an exponent of at least two digits. *)
let python_float x =
  if Float.is_nan x then "nan"
  else if Float.abs x = Float.infinity then
    if x > 0. then "inf" else "-inf"
  else begin
    let reads s = float_of_string s = x in
    (* The digits and the exponent of the shortest %e form that reads back as x, or of one
       of its two neighbours in the last digit (at a power of two the interval that reads back
       is not centred on x). *)
    let rec shortest p =
      let s = Printf.sprintf "%.*e" (p - 1) (Float.abs x) in
      let i = String.index s 'e' in
      let digits = String.concat "" (String.split_on_char '.' (String.sub s 0 i))
      and e = int_of_string (String.sub s (i + 1) (String.length s - i - 1)) in
      let m = Int64.of_string digits in
      let try_ m' =
        let t = Printf.sprintf "%Lde%d" m' (e - p + 1) in
        if Int64.compare m' 0L > 0 && reads (if x < 0. then "-" ^ t else t) then Some m'
        else None in
      if p >= 17 || reads (if x < 0. then "-" ^ s else s) then digits, e
      else match try_ (Int64.pred m), try_ (Int64.succ m) with
        | Some m', _ | None, Some m' ->
            let d = Int64.to_string m' in
            if String.length d > p then String.sub d 0 p, e + 1   (* 99..9 + 1 *)
            else if String.length d < p then d ^ "0", e - 1 else d, e
        | None, None -> shortest (p + 1) in
    let digits, e = shortest 1 in
    let n = String.length digits in
    let rec trim n = if n > 1 && digits.[n - 1] = '0' then trim (n - 1) else n in
    let digits = String.sub digits 0 (trim n) in
    let n = String.length digits in
    let sign = if Float.sign_bit x then "-" else "" in
    if e >= -4 && e < 16 then
      if e < 0 then sign ^ "0." ^ String.make (- e - 1) '0' ^ digits
      else if n <= e + 1 then sign ^ digits ^ String.make (e + 1 - n) '0' ^ ".0"
      else sign ^ String.sub digits 0 (e + 1) ^ "." ^ String.sub digits (e + 1) (n - e - 1)
    else
      sign ^ String.sub digits 0 1 ^ (if n > 1 then "." ^ String.sub digits 1 (n - 1) else "")
      ^ Printf.sprintf "e%c%02d" (if e < 0 then '-' else '+') (abs e)
  end

let rec show = function
  | Nil -> "None" | Bool b -> if b then "True" else "False" | Int n -> Num.to_string n
  | Big s -> s | Float x -> python_float x | Ext (_, r) -> r
  | Str s -> Printf.sprintf "%S" s | Bin (_, n) -> Printf.sprintf "<%d bytes>" n
  | Arr a -> "[" ^ String.concat ", " (Array.to_list (Array.map show a)) ^ "]"
  | Map _ -> "{...}"

(* ---- Headers ---- *)

type header = {
  claim : string; hversion : int; deal : Num.t option; board : (int * int) option;
  cells : int; fm : bool; symmetry : string; count : Num.t; hash : string;
  count_text : string;   (* the count in decimal: past vcheck's ints, [count] is Num.largest *)
  first : Num.t; last : Num.t;
  closure : string;   (* "autoplay", or "moves" (no closure key): docs/certificate-format.md 8 *)
}

let single_keys = ["board"; "cells"; "claim"; "count"; "deal"; "format"; "foundation_moves";
                   "symmetry"; "version"; "xxh3_64"]
let range_keys = ["cells"; "claim"; "count"; "first"; "format"; "foundation_moves"; "last";
                  "symmetry"; "version"; "xxh3_64"]

let is_hex s = String.length s = 16 &&
               String.for_all (fun ch -> (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')) s

let max_deal = Num.sub (Num.power 33) Num.one

(* A header value as check's refusals show it (Python's reprlib.repr): a str or bytes as Python
   writes it, past 30 characters its first 13 and last 14 around "..." (a str: its first 13
   and last 14 characters, quoted again); an int past 40 digits likewise (18 and 19); any other
   value (a float, an ext) as repr writes it, past 30 characters cut as a bytes is. *)
let cut s most = let n = String.length s in
  if n <= most then s
  else let i = (most - 3) / 2 in String.sub s 0 i ^ "..." ^ String.sub s (n - (most - 3 - i))
                                                          (most - 3 - i)

let header_bytes = ref (Bigarray.(Array1.create char c_layout 0))

let rec python_repr = function
  | Nil -> "None" | Bool b -> if b then "True" else "False"
  | Int n -> cut (Num.to_string n) 40 | Big s -> cut s 40 | Float x -> python_float x
  | Ext (_, r) -> cut r 30
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
  let field k = try List.assoc (Str k) h with Not_found -> Nil in
  let bad k = unreadable "header %s = %s is not allowed" k (python_repr (field k)) in
  let ranged = field "claim" = Str "range" in
  let expected = if ranged then range_keys else single_keys in
  (* The key closure is optional (section 8). *)
  let named = List.filter (( <> ) "closure") keys in
  if List.sort compare named <> expected then
    unreadable "the header keys are not exactly: %s" (String.concat ", " expected);
  if field "format" <> Str "freecell-certificate" then bad "format";
  let int_in k lo hi = match field k with Int n when n >= lo && n <= hi -> n | _ -> bad k in
  let small k lo hi = Num.to_int (int_in k (Num.of_int lo) (Num.of_int hi)) in
  let hversion = small "version" (1 + Bool.to_int ranged) 3 in
  let claim = match field "claim" with
    | Str ("no-win" | "win" | "range" as s) -> s | _ -> bad "claim" in
  let cells = small "cells" 0 8 in
  let fm = match field "foundation_moves" with Bool b -> b | _ -> bad "foundation_moves" in
  let symmetry = match field "symmetry" with
    | Str ("columns" | "none" as s) -> s | _ -> bad "symmetry" in
  (* (Counts up to 2 ^ 64 - 1 are allowed: past vcheck's ints, far past any limit, one is
     Num.largest, written as it is.) *)
  let count, count_text = match field "count" with
    | Int n when n >= Num.zero -> n, Num.to_string n
    | Big s when s.[0] <> '-' -> Num.largest, s
    | _ -> bad "count" in
  let hash = match field "xxh3_64" with Str s when is_hex s -> s | _ -> bad "xxh3_64" in
  (* Tested last, as check does: only "autoplay", only in version 3, never in a win, never with
     foundation moves (section 8). *)
  let closure () =
    if List.length named = List.length keys then "moves"
    else match field "closure" with
      | Str "autoplay" when hversion = 3 && claim <> "win" && not fm -> "autoplay"
      | _ -> bad "closure" in
  if ranged then begin
    let first = int_in "first" Num.one max_deal in
    let last = int_in "last" first max_deal in
    let closure = closure () in
    { claim; hversion; deal = None; board = None; cells; fm; symmetry; count; hash; first; last;
      closure; count_text }
  end else begin
    let deal = match field "deal" with
      | Int n when n >= Num.one && n <= max_deal -> Some n | Nil -> None | _ -> bad "deal" in
    let board = match deal, field "board" with
      | Some _, Nil -> None | None, Bin (o, n) -> Some (o, n) | _ -> bad "board" in
    let closure = closure () in
    { claim; hversion; deal; board; cells; fm; symmetry; count; hash; first = Num.zero;
      last = Num.zero; closure; count_text }
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
  let b = Buffer.create (String.length s) in
  String.iter (fun ch -> if ch >= ' ' && ch <> '\127' then Buffer.add_char b ch
                else Buffer.add_string b (Printf.sprintf "\\x%02x" (Char.code ch))) s;
  Buffer.contents b

(* Digits grouped by threes. *)
let commas_text s =
  let b = Buffer.create 16 in
  String.iteri (fun i ch ->
      if i > 0 && (String.length s - i) mod 3 = 0 then Buffer.add_char b ',';
      Buffer.add_char b ch) s;
  Buffer.contents b
let commas n = commas_text (string_of_int n)
let commas_num n = commas_text (Num.to_string n)

(* ---- Progress of a long check: a line on standard error at most every [progress_every]
   seconds (none in the first), cut to the terminal's width when it is one, whole in a log ---- *)

let progress_every = ref 10.0
let progress_on = ref true                    (* off under -q *)
let progress_label = ref ""
let progress_next = ref infinity

let progress_begin label =
  progress_label := label;
  progress_next := if !progress_on then now () +. !progress_every else infinity

let progress text =
  if now () >= !progress_next then begin
    progress_line (printable (!progress_label ^ ": " ^ text));
    progress_next := now () +. !progress_every
  end

(* Called with k, now and then, as record k is about to be closed. *)
let record_reached = ref (fun (_ : int) -> ())

(* The no-win's records in [jobs] slices, each checked by [slice lo hi] in a process of its
   own: the bounds between the slices, and what each process returned ([Trusted.records_data]
   counts a slice as closed only by what [slice] said of it there).  Few records: none in other
   processes ([None]: the proved function checks them all). *)
let in_slices ~count slice =
  let parts = max 1 (min !jobs (count / 100)) in
  if parts = 1 then [], None
  else begin
    let bound i = count * i / parts in
    let closed i tell =
      record_reached := (fun k -> tell (k - bound i));
      slice (Num.of_int (bound i)) (Num.of_int (bound (i + 1))) in
    let show counts = progress (Printf.sprintf "record %s of %s closed"
                                  (commas (Array.fold_left ( + ) 0 counts)) (commas count)) in
    let results = in_processes parts closed show in
    if Array.mem None results then unreadable "a checking process failed (out of memory?)";
    List.init (parts - 1) (fun i -> Num.of_int (bound (i + 1))), Some results
  end


(* One certificate, a range, a file (not trusted but for what they hand to [Trusted]): the
   no-win body read and checked for form, the claim and its data passed to the proved verdict,
   the words of a refusal. *)

open Proved
open Trusted
open Host
open Reading
open Stores
open Moves

(* ---- A no-win body: the column table and the records, checked for form ---- *)

(* A set of cards as two masks, of cards 0..25 and 26..51 (an int has 32 bits in the page). *)
let low_half = Array.init 52 (fun c -> if c < 26 then 1 lsl c else 0)
let high_half = Array.init 52 (fun c -> if c < 26 then 0 else 1 lsl (c - 26))
let half = (1 lsl 26) - 1

type nowin = { entries : string array; w : int; rows : store }

let chunk_records = 1 lsl 20      (* version 3: the records come in chunks of this many *)

(* Each record a well-formed position, the records strictly ascending, every column used: not
   needed for soundness, but the format requires it.  Records [first ..] of the file, at rows
   [at ..]; [before] holds the record before [first]. *)
let home_mask half = Array.init 4 (fun s -> Array.init 14 (fun n ->
    let m = ref 0 in for r = 0 to n - 1 do m := !m lor half.(4 * r + s) done; !m))
let home_low = home_mask low_half
let home_high = home_mask high_half

(* A column's cards as two masks ([low], [high]).  A record holds the 52 cards once each when
   the masks of its parts cover them and its parts hold 52 cards in all (so none is in two
   places, and no column repeats one). *)
let check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~low ~high ~used ~symmetry
    ~entries =
  for i = 0 to n - 1 do
    let k = first + i and base = (at + i) * width in
    (* One check first, that the record's [width] bytes lie in [rows], and those of the one
       before it in [rows] or [before], so that the reads below, every one at an offset below
       [width] (the foundations, the cells, byte b < w of id j < 8), are unchecked (an index
       out of bounds raises, as a checked read would: a refusal). *)
    if base < 0 || base + width > Bytes.length rows || (i > 0 && base < width)
       || width > Bytes.length before then invalid_arg "index out of bounds";
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
    (* (Written out, no closure: the three sums stay in registers.) *)
    let lo = ref 0 and hi = ref 0 and held = ref 0 and twice = ref false in
    for s = 0 to 3 do
      let n = at s in
      lo := !lo lor home_low.(s).(n); hi := !hi lor home_high.(s).(n); held := !held + n
    done;
    for j = 0 to cells - 1 do
      let b = at (4 + j) in
      if b < 52 then begin
        lo := !lo lor low_half.(b); hi := !hi lor high_half.(b); incr held
      end else if b <> 0xff then twice := true
    done;
    for j = 0 to 7 do
      let e = id j in
      used.(e) <- true;
      lo := !lo lor low.(e); hi := !hi lor high.(e); held := !held + String.length entries.(e)
    done;
    if !twice || !lo <> half || !hi <> half || !held <> 52 then
      bad "the 52 cards are not each in one place";
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

(* The next [k] bytes, as a big-endian number: a length, or (take_num) a value. *)
let take_num r k what =
  let c = r.need k what in
  let n = number c k in
  r.seen c;
  n
let take r k what = Num.to_int (Num.clamp (take_num r k what) (Num.of_int max_int))

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

(* An int of 8 bytes past vcheck's ints (2 ^ 62 or more, or below -2 ^ 62) is [big] of its
   decimal, in vcheck and in the page alike. *)
let int_value r what ~otherwise ~big =
  let signed k = let u = take_num r k what in
    if u >= Num.power (8 * k - 1) then Num.sub u (Num.power (8 * k)) else u in
  let unsigned k = take_num r k what in
  let word unsigned =
    let c = r.need 8 what in
    let w = ref 0L in
    for i = 0 to 7 do
      w := Int64.logor (Int64.shift_left !w 8) (Int64.of_int (get c.data (c.pos + i)))
    done;
    c.pos <- c.pos + 8;
    r.seen c;
    match num_or_text !w ~unsigned with Ok n -> n | Error s -> big s in
  match take r 1 what with
  | b when b <= 0x7f -> Num.of_int b
  | b when b >= 0xe0 -> Num.of_int (b - 256)
  | 0xcc -> unsigned 1 | 0xcd -> unsigned 2 | 0xce -> unsigned 4 | 0xcf -> word true
  | 0xd0 -> signed 1 | 0xd1 -> signed 2 | 0xd2 -> signed 4 | 0xd3 -> word false
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

let read_nowin r ~version ~cells ~symmetry ~count ~shown =
  if count > !max_positions then
    unreadable "%s positions: more than --max-positions %s" shown (commas !max_positions);
  if version < 3 && array_header r "the body" ~otherwise:(not_a "the body" "array") <> 2 then
    rejected "the body is not [columns, records]";
  let ncols = array_header r "the column table" ~otherwise:(not_a "the column table" "array") in
  if ncols > !max_columns then
    unreadable "%s columns: more than --max-columns %s" (commas ncols) (commas !max_columns);
  if ncols > 8 * count then
    rejected "the column table has %s entries: more than 8 x count" (commas ncols);
  let entries = Array.make ncols "" and low = Array.make ncols 0 and high = Array.make ncols 0 in
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
    String.iter (fun ch -> let x = Char.code ch in
                  low.(i) <- low.(i) lor low_half.(x); high.(i) <- high.(i) lor high_half.(x)) s;
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
    check_records rows ~at ~first n ~before ~width ~cells ~w ~ncols ~low ~high ~used ~symmetry
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
        Bytes.set rows (row + k * width) (Bigarray.Array1.get d (base + k))
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
          Bytes.set rows (!k * width + j) (Bigarray.Array1.get d !p); incr p
        done;
        if !k > 0 && Bytes.sub rows (!k * width) width > Bytes.sub rows ((!k - 1) * width) width
           && Bytes.get rows ((!k - 1) * width + shared) = Bytes.get rows (!k * width + shared)
        then rejected "records: record %d shares more than its stated %d bytes" (!k + 1) shared;
        check_records rows ~at:!k ~first:!k 1 ~before ~width ~cells ~w ~ncols ~low ~high ~used
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

(* What a page draws beside a verified certificate (vcheck draws nothing): its start, as
   foundation counts, free cells and columns (top card first), and a no-win's body. *)
let verified : (int array * int list * int list array -> nowin option -> unit) ref =
  ref (fun _ _ -> ())

(* What one claim's check gave: the sentence to print (a file), the proved result of a range's
   entry (true: won), or nothing (an entry that another process proves). *)
type told = Told of string | Result of bool | Unproved

(* Check one claim about one start under one set of rules, its body read through [r]: the
   proved verdict, or Rejected.  Unless [prove], the body is only read (and checked for form):
   a range's entry that another process proves.  [board] is the header's board, copied out of
   the stream; [entry] is [Some (first, i)] for entry i of a range. *)
let check_one ?count_text (r : reader) ~prove ~path ~claim ~version ~deal ~board ~cells ~fm
    ~symmetry ~closure ~count ~entry =
  let shown = match count_text with Some s -> commas_text s | None -> commas_num count in
  let autoplay = closure = "autoplay" in
  let under = if autoplay then "every legal move then safe autoplay" else "every legal move" in
  (* The start, as the trusted decoder reads it (a board's faults said in check's words). *)
  let start () = match deal, board with
    | Some n, _ -> `Deal n
    | None, Some (bd, b) ->
        board_words bd b ~cells; DC.board_valid bd b ~cells;
        `Board (DC.board_position bd b ~cells)
    | None, None -> rejected "no deal and no board" in
  let start_ints = function
    | `Deal n -> start_of_deal n | `Board s -> start_of_position s in
  (* The proved function's answer, for this start, these rules and this data: a file's
     sentence, or entry i's result, kept in [results] (coq/Range.v). *)
  let judge_deal n d = match entry with
    | Some (first, i, results) ->
        Option.map (fun b -> Result b) (prove_entry results ~first ~i ~cells ~fm d)
    | None -> Option.map (fun t -> Told t) (DN.verdict n ~path ~cells ~fm d) in
  let judge_board s d = Option.map (fun t -> Told t) (DC.verdict s ~path ~cells ~fm d) in
  if claim = "win" then begin
    if count > Num.of_int !max_moves then
      unreadable "%s moves: more than --max-moves %s" shown (commas !max_moves);
    let count = Num.to_int count in
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
    let back = replay_words (start_ints s) ~cells ~fm ~count
        ~pick:(if version < 3 then by_card d else by_index d) in
    let told = match s with
      | `Deal n -> judge_deal n (DN.line back)
      | `Board s -> judge_board s (DC.line back) in
    match told with
    | Some t -> if entry = None then !verified (start_ints s) None; t
    | None -> rejected "the moves do not replay to a won position: %s"
                "one is illegal or the last position is not won"
  end else begin
    let count = Num.to_int (Num.clamp count (Num.of_int max_int)) in
    let nw = read_nowin r ~version ~cells ~symmetry ~count ~shown in
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
    | Some t -> if entry = None then !verified (start_ints start) (Some nw); t
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
let read_entries src (h : header) ~count:entries ~mine ~reached =
  let hash = hash_from_here src in
  let r = stream_reader src ~stop:max_int in
  let results = Bytes.make entries '\000' and failed = ref None and i = ref 0 in
  let fail i verdict m = failed := Some (i, verdict, m) in
  (* The moves and the positions the entries read so far ask (docs/certificate-format.md
     section 5's range limits). *)
  let spent = [| 0; 0 |] in
  let times a b = if a > 0 && b > max_int / a then max_int else a * b in
  let plus a b = if a > max_int - b then max_int else a + b in
  while !failed = None && !i < entries do
    let i' = !i in
    let number = Num.add h.first (Num.of_int i') in
    reached i';
    (try
       let v3 = h.hversion = 3 in
       if array_header r "the entry" ~otherwise:(not_a "the entry" "array") <> (if v3 then 3 else 4)
       then rejected "the entry is not [deal, claim, count%s]" (if v3 then "" else ", body");
       let got = int_value r "its deal" ~otherwise:(not_a "its deal" "int")
           ~big:(rejected "the entry is for deal %s") in
       if got <> number then rejected "the entry is for deal %s" (Num.to_string got);
       let claim = str_value r "its claim" ~most:7 ~otherwise:(not_a "its claim" "str") in
       if claim <> "win" && claim <> "no-win" then
         rejected "its claim %s is not \"win\" or \"no-win\"" (python_repr (Str claim));
       let count = int_value r "its count" ~otherwise:(not_a "its count" "int")
           ~big:(fun s -> if s.[0] = '-' then rejected "its count %s is negative" s
                  else Num.largest) in   (* (past every bound) *)
       if count < Num.zero then rejected "its count %s is negative" (Num.to_string count);
       let kind = if claim = "win" then 0 else 1 in
       let word = if kind = 0 then "moves" else "positions" in
       let one = if kind = 0 then !max_moves else !max_positions in
       spent.(kind) <- plus spent.(kind) (Num.to_int (Num.clamp count (Num.of_int max_int)));
       let most = plus (times (if kind = 0 then !range_moves else !range_positions) entries) one in
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
       ignore (check_one body ~prove:(mine i') ~path:"" ~claim ~version:h.hversion
                 ~deal:(Some number) ~board:None ~cells:h.cells ~fm:h.fm ~symmetry
                 ~closure:h.closure ~count ~entry:(Some (h.first, i', results)))
     with Rejected m ->
            fail i' "rejected" (Printf.sprintf "entry %d (deal %s): %s" (i' + 1)
                                  (Num.to_string number) m)
        | Unreadable m | Failure m ->
            fail i' "unreadable" (Printf.sprintf "entry %d (deal %s): %s" (i' + 1)
                                    (Num.to_string number) m));
    incr i
  done;
  if !failed = None then begin
    if more src then
      fail entries "rejected"
        "the range has data after it: the data decompresses to more than it holds"
    else if xxh3_end hash <> h.hash then
      fail entries "rejected" "the range does not match its xxh3_64: it is corrupt"
  end;
  !failed, results

(* The range's theorem, or Rejected.  With -j N the entries are checked in N processes, each
   reading the whole range from the file (read once, before they are forked) and proving
   entry i in process i mod N; the failure reported is the first entry's, as if they were
   checked in turn.  The result of entry i is read from what process i mod N returned (a byte
   left unset, by any mistake here, is no result, which [range_verdict] refuses). *)
let check_range file src (h : header) =
  if h.count <> Num.add (Num.sub h.last h.first) Num.one then
    rejected "count = %s, not last - first + 1" h.count_text;
  let count = Num.to_int (Num.clamp h.count (Num.of_int max_int)) in
  let parts = max 1 (min !jobs count) in
  let say i done_ = Printf.sprintf "deal %s (%s of %s)"
      (commas_num (Num.add h.first (Num.of_int i))) (commas (done_ + 1)) (commas_num h.count) in
  let results =
    if parts = 1 then
      [| read_entries src h ~count ~mine:(fun _ -> true) ~reached:(fun i -> progress (say i i)) |]
    else begin
      let part p tell =
        jobs := 1;
        let src, h = open_data file in
        read_entries src h ~count ~mine:(fun i -> i mod parts = p)
          ~reached:(fun i -> if i mod parts = p then tell ((i - p) / parts)) in
      (* The earliest entry still being checked, and how many are done. *)
      let show counts =
        let next p = p + parts * counts.(p) in
        let least = ref count in
        Array.iteri (fun p _ -> least := min !least (next p)) counts;
        if !least < count then progress (say !least (Array.fold_left ( + ) 0 counts)) in
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
  match range_verdict ~first:h.first ~last:h.last ~cells:h.cells ~fm:h.fm
          (fun i -> snd results.(i mod parts)) with
  | Some (text, lost) -> text, lost
  | None -> rejected "the range's entries do not each prove their deal"

(* ---- A file ---- *)

type outcome = {
  verdict : string; text : string; h : header option; lost : Num.t list;
  sha : string option; seconds : float;       (* the file's sha256; the seconds it took *)
}

(* A single certificate, read as it is decompressed ([src] just past its header): version 3's
   body values, or version 1's and 2's body bin; the hash is checked once the body is read, and
   nothing may follow it. *)
let single path src (h : header) =
  (* The board, copied out of the window before the window moves on (the copy is the board
     that [Trusted.board_position] decodes, the start of the theorem). *)
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
                                          (commas k) (commas_num h.count)));
  match check_one ~count_text:h.count_text r ~prove:true ~path ~claim:h.claim
          ~version:h.hversion ~deal:h.deal ~board ~cells:h.cells ~fm:h.fm ~symmetry:h.symmetry
          ~closure:h.closure ~count:h.count ~entry:None with
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
  let about = if h.claim = "range" then
      Printf.sprintf "a range, deals %s..%s" (Num.to_string h.first) (Num.to_string h.last)
    else match h.deal with Some n -> "deal " ^ Num.to_string n | None -> "a custom layout" in
  let str s = python_repr (Str s) and truth b = if b then "True" else "False" in
  let its key have asked option =
    Printf.sprintf "its %s is %s, not %s (--%s)" key have asked option in
  let checks = [
    (match !want_deal with
     | Some d when h.deal <> Some (Num.of_int d) || h.claim = "range" ->
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
     | Some (a, b) when h.claim <> "range" || h.first <> Num.of_int a || h.last <> Num.of_int b ->
         Some (Printf.sprintf "it is %s, not deals %d..%d (--range)" about a b)
     | _ -> None)] in
  List.find_map Fun.id checks

let verify path =
  let began = now () and got = ref None and sha = ref None in
  let outcome verdict text lost =
    { verdict; text; h = !got; lost; sha = !sha; seconds = now () -. began } in
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

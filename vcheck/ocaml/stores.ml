(* The records' stores and the column tree (not trusted): the data and hints the proved
   checker reads through its [table] and [records] functions. *)

open Proved
open Host
open Reading

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

(* The memory past which a no-win's records are packed (--memory): by default [Host]'s (half
   of this machine's memory in vcheck). *)
let memory_budget = ref Host.memory

type store = Flat of Bytes.t | Packed of packed

(* ---- The proved checker's data, built from the certificate (untrusted) ---- *)

module Data (C : CORE) = struct
  open C

  include Trusted.Make (C)

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
    let depth e = let e = Num.to_int e in
      if valid e then nats.(depth_int e) else if known e then !x_depth.(e - nodes)
      else O in
    let extend i b c =
      if i = Array.length !x_parent then begin
        let grow a x = Array.append a (Array.make (Array.length a) x) in
        x_parent := grow !x_parent 0; x_top := grow !x_top c; x_depth := grow !x_depth O
      end;
      !x_parent.(i) <- b; !x_top.(i) <- c; !x_depth.(i) <- S (depth (Num.of_int b));
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
    (* (The proved code's ids are [Num.t]: ints in vcheck, where these are no-ops.) *)
    let i = Num.to_int and n = Num.of_int in
    if not autoplay then
      { depth = (fun e -> let e = i e in if valid e then nats.(depth_int e) else O);
        top = (fun e -> top (i e));
        parent = (fun e -> let e = i e in n (if valid e then parent e else 0));
        push = (fun b c -> n (push_plain (i b) c)); column_of = (fun c -> n (column_of_plain c)) }
    else
    { depth;
      top = (fun e -> let e = i e in if valid e then top e else if known e then !x_top.(e - nodes)
              else cards.(0));
      parent = (fun e -> let e = i e in
                 n (if valid e then parent e else if known e then !x_parent.(e - nodes) else 0));
      push = (fun b c -> let b = i b in
               let e = push_plain b c in n (if e = unknown then extend 0 b c else e));
      column_of = (fun col ->
          (* The longest part the tree holds, then an id for each card above it. *)
          let e, held = walk col in
          let above = List.filteri (fun i _ -> i >= held) (List.rev_map card_number col) in
          n (if List.exists (fun x -> x >= 52) above then nodes + 1 lsl 30
             else List.fold_left (fun b x -> incr extra; extend (!extra - 1) b cards.(x)) e
                 above)) }

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
          let e = Num.to_int e in
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
    let i = Num.to_int and n = Num.of_int in
    { count = n count;
      rhome = (fun k ->
          let k = i k in
          reached k;
          if valid k then
            let k = locate k in
            { clubs = nats.(row k 0); diamonds = nats.(row k 1);
              hearts = nats.(row k 2); spades = nats.(row k 3) }
          else { clubs = O; diamonds = O; hearts = O; spades = O });
      rcells = (fun k ->
          let k = i k in
          if not (valid k) then [] else
            let k = locate k and l = ref [] in
            for j = cells - 1 downto 0 do
              let b = row k (4 + j) in if b < 52 then l := cards.(b) :: !l
            done;
            !l);
      rids = (fun k ->
          let k = i k in
          if not (valid k) then []
          else let k = locate k and rows = !source in
            [n (id rows k 0); n (id rows k 1); n (id rows k 2); n (id rows k 3);
             n (id rows k 4); n (id rows k 5); n (id rows k 6); n (id rows k 7)]);
      find = (fun f cs ids ->
          after_find := true; n (if encode f cs ids then lookup scratch else count)) }

  (* A custom board's faults that [board_words] would not name (none, as it is checked), before
     [Trusted.board_position] decodes it. *)
  let board_valid (d : buf) (off, len) ~cells =
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
    if !pos <> len || Array.exists not seen then fail ()

  let line l = Line (List.map (fun (c, d) -> cards.(c), nats.(d)) l)

  (* A no-win's data: its records checked here, or with -j N in slices, each in a process of
     its own (when the start is not one of the records, no slice need be checked). *)
  let nowin_data start ~cells ~fm ~sorted ~autoplay ~count ~w entries rows =
    let t = table ~autoplay entries in
    let r = records ~cells ~w ~count rows in
    records_data ~cells ~fm ~sorted ~autoplay t r ~split:(fun slice ->
        if !jobs = 1 then [], None
        else if not (C.start_ok start fm sorted autoplay t r) then [], Some [||]
        else in_slices ~count slice)
end

module DN = Data (Numbered)
module DC = Data (Custom)


(* The records' stores and the column tree (not trusted): the data and hints the proved
   checker reads through its [table] and [records] functions. *)

open Proved
open Host
open Reading

(* ---- The records packed: front-coded in blocks (a no-win too large to hold flat) ----

   Blocks of [block] records, each begun in full and the rest front-coded (a byte saying how
   many leading bytes a record shares with the one before it, then the rest of it), in segments
   of at most 64 MiB that no block straddles.  About 7 to 10 bytes a position on the published
   certificates, against [W] (24) flat and 8 to 16 more for the lookup table; a record is found
   by a binary search on the blocks' first records, then a walk through one block.  The search
   reads [blocks]: for each block its first 14 bytes as two integers, then where it begins,
   side by side (1.5 bytes a position): a step of the search is one read of one array, the
   block itself read only when those 14 bytes tie, and where the block begins is read with
   them.  (A static index of every 64th block head over it, each range prefetched or not, was
   measured slower on a hard deal, 0.91 to 0.94 as fast: the proved code asks for records in
   nearly sorted order, so the search's path is mostly in the caches already.) *)

let block = 16
let segment_bits = 26

type keys = (int, Bigarray.int_elt, Bigarray.c_layout) Bigarray.Array1.t

type packed = { pwidth : int; pcount : int; segments : buf array; blocks : keys }

(* (Segments outside OCaml's heap: never moved by a compaction, so never copied, and a
   segment's pages past what is written are never touched.  Both are read at random, so in
   huge pages where the kernel allows it.) *)
let segment size =
  let s = Bigarray.(Array1.create char c_layout size) in advise_huge_array s; s

(* Bytes [from .. from + 6] of [src] at [off], big-endian: 56 bits, so never negative. *)
(* One check first, that the 7 bytes lie in [src], so that the loop's unchecked reads stay
   inside it (an index out of bounds raises, as a checked read would: a refusal). *)
let key_of src off from =
  if from < 0 || off + from < 0 || off + from + 7 > Bytes.length src then
    invalid_arg "index out of bounds";
  let k = ref 0 in
  for j = from to from + 6 do k := (!k lsl 8) lor Char.code (Bytes.unsafe_get src (off + j)) done;
  !k

type packer = { width : int; size : int; mutable done_ : buf list; mutable cur : buf;
                mutable used : int; mutable segs : int; mutable k : int; heads : keys;
                last : Bytes.t }

let packer ~width ~count =
  let size = min (1 lsl segment_bits) (count * (width + 1) + block * (width + 1)) in
  let blocks = (count + block - 1) / block in
  let heads = Bigarray.(Array1.create int c_layout (3 * blocks)) in
  advise_huge_array heads;
  { width; size; done_ = []; cur = segment size; used = 0; segs = 0; k = 0;
    heads; last = Bytes.create width }

(* Record [p.k], the [width] bytes of [src] at [off]. *)
let pack p src off =
  let width = p.width in
  if p.k mod block = 0 then begin
    if p.used + block * (width + 1) > p.size then begin
      p.done_ <- p.cur :: p.done_; p.cur <- segment p.size; p.used <- 0;
      p.segs <- p.segs + 1
    end;
    let b = p.k / block in
    Bigarray.Array1.set p.heads (3 * b) (key_of src off 0);
    Bigarray.Array1.set p.heads (3 * b + 1) (key_of src off 7);
    Bigarray.Array1.set p.heads (3 * b + 2) ((p.segs lsl segment_bits) lor p.used);
    for j = 0 to width - 1 do
      Bigarray.Array1.set p.cur (p.used + j) (Bytes.get src (off + j))
    done;
    p.used <- p.used + width
  end else begin
    let shared = ref 0 in
    while Bytes.get p.last !shared = Bytes.get src (off + !shared) do
      incr shared
    done;     (* (records strictly ascending: they differ before their end) *)
    Bigarray.Array1.set p.cur p.used (Char.chr !shared);
    for j = !shared to width - 1 do
      Bigarray.Array1.set p.cur (p.used + 1 + j - !shared) (Bytes.get src (off + j))
    done;
    p.used <- p.used + 1 + width - !shared
  end;
  Bytes.blit src off p.last 0 width;
  p.k <- p.k + 1

(* (The last segment is kept whole: its pages past [used] were never written, so they take no
   memory.) *)
let packed_of p =
  { pwidth = p.width; pcount = p.k; segments = Array.of_list (List.rev (p.cur :: p.done_));
    blocks = p.heads }

(* The memory past which a no-win's records are packed (--memory): by default [Host]'s (half
   of this machine's memory in vcheck). *)
let memory_budget = ref Host.memory

type store = Flat of Bytes.t | Packed of packed

(* Bytes [i .. i + 7] of [b], unchecked: only where a check before says they lie in [b]. *)
external unsafe_get64 : Bytes.t -> int -> int64 = "%caml_bytes_get64u"

(* ---- The proved checker's data, built from the certificate (untrusted) ---- *)

module Data (C : CORE) = struct
  open C

  include Trusted.Make (C)

  let rec int_of_nat acc = function O -> acc | S n -> int_of_nat (acc + 1) n
  let suit_number = function Clubs -> 0 | Diamonds -> 1 | Hearts -> 2 | Spades -> 3
  let card_number c = 4 * int_of_nat 0 c.rank + suit_number c.suit_of
  let nat n = if n >= 0 && n < 64 then nats.(n) else O

  (* The column tree's arrays, their types said (a Bigarray whose kind is not known where it
     is read is read through a C call). *)
  type int32s = (int32, Bigarray.int32_elt, Bigarray.c_layout) Bigarray.Array1.t
  type chars = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

  (* The column tree: the table's entries keep their ids; every prefix of an entry that is
     not itself an entry is a node too, numbered after them, so that each column's parent
     exists.  The table is strictly ascending, so an entry's new nodes are its prefixes past
     the [l] cards it shares with the entry before it, of depth l + 1 .. n - 1: they get
     consecutive ids from [base], a chain hanging from that entry's node of depth l
     ([attach]), and the entry hangs from the chain's last node.  Only the chains are kept,
     never their nodes: a node of a chain is found by a binary search on [base], and its
     cards are its entry's.  An entry is kept as a node was (its depth, top card and parent),
     and so is each edge into a chain's first node (or into an entry whose chain is empty):
     its node and card, listed by the node it leaves, an entry's or the root's at once, a
     chain node's by a binary search.  So the tree takes about 28 bytes an entry beside the
     entries' own strings, whatever the prefixes (a table of every order of 9 cards under the
     same 43 has 16 million nodes in 362,880 chains), allocated once the table is read, whose
     entries the header's count and --max-columns bound before it is. *)
  let table ?(autoplay = false) (entries : Stdlib.String.t array) =
    let open Bigarray in
    let ncols = Array.length entries in
    let shared a b = let n = min (String.length a) (String.length b) and i = ref 0 in
      while !i < n && a.[!i] = b.[!i] do incr i done; !i in
    let has_root = ncols > 0 && entries.(0) = "" in
    (* The root, the empty column: entry 0 if the table has it (it sorts first), else the first
       node after the entries; its parent is 0, as the proved code's tree has it. *)
    let root = if has_root then 0 else ncols in
    let chains = if has_root then ncols else ncols + 1 in   (* the first chain node's id *)
    let int32s n : int32s = Array1.create int32 c_layout n
    and chars n : chars = Array1.create char c_layout n in
    let base = int32s ncols and attach = int32s ncols and low = chars ncols in
    let e_depth = chars ncols and e_top = chars ncols and e_parent = int32s ncols in
    let get32 (a : int32s) i = Int32.to_int (Array1.get a i)
    and set32 (a : int32s) i v = Array1.set a i (Int32.of_int v)
    and getc (a : chars) i = Char.code (Array1.get a i)
    and setc (a : chars) i v = Array1.set a i (Char.chr v) in
    (* path.(d): the node of the first d cards of the entry before. *)
    let path = Array.make 53 root and next = ref chains in
    Array.iteri (fun i s ->
        let n = String.length s in
        let l = if i = 0 || n = 0 then 0 else min (shared entries.(i - 1) s) (n - 1) in
        set32 base i !next; set32 attach i path.(l); setc low i l;
        setc e_depth i n; setc e_top i 0; set32 e_parent i 0;
        if n > 0 then begin
          for d = l + 1 to n - 1 do path.(d) <- !next + d - l - 1 done;
          next := !next + n - l - 1;
          setc e_top i (Char.code s.[n - 1]); set32 e_parent i path.(n - 1);
          path.(n) <- i
        end) entries;
    let nodes = !next in
    let base_of i = get32 base i and attach_of i = get32 attach i and low_of i = getc low i in
    let card_at i d = Char.code (String.get (Array.get entries i) d) in
    (* The entry whose chain holds node e (chains <= e < nodes): the last whose base is at most
       e (those before it whose chain is empty share its base). *)
    let owner e =
      let lo = ref 0 and hi = ref (ncols - 1) in
      while !lo < !hi do
        let mid = (!lo + !hi + 1) / 2 in
        if base_of mid <= e then lo := mid else hi := mid - 1
      done;
      !lo in
    (* The edges into entry j's chain (or into j, when its chain is empty), by the node they
       leave: those from an entry or the root, from [hangs.(b)] to [hangs.(b + 1) - 1] for
       node b, then the others, from [near] on, ascending by the node they leave ([from]). *)
    let hangs = int32s (chains + 1) in
    Array1.fill hangs 0l;
    let bump b = Array1.set hangs b (Int32.add (Array1.get hangs b) 1l) in
    let edges = ref 0 and far = ref 0 in
    for j = 0 to ncols - 1 do
      if getc e_depth j > 0 then begin
        incr edges; if attach_of j < chains then bump (attach_of j + 1) else incr far
      end
    done;
    for b = 1 to chains do
      Array1.set hangs b
        (Int32.add (Array1.get hangs b) (Array1.get hangs (b - 1)))
    done;
    let near = get32 hangs chains and edges = !edges in
    let to_node = int32s (max edges 1) and to_card = chars (max edges 1)
    and from = int32s (max !far 1) in
    let put k j =
      set32 to_node k (if getc e_depth j - low_of j > 1 then base_of j else j);
      setc to_card k (card_at j (low_of j)) in
    let others = Array.make !far 0 and k = ref 0 in
    for j = 0 to ncols - 1 do
      if getc e_depth j > 0 then begin
        let b = attach_of j in
        if b < chains then (put (get32 hangs b) j; bump b) else (others.(!k) <- j; incr k)
      end
    done;
    for b = chains downto 1 do Array1.set hangs b (Array1.get hangs (b - 1)) done;
    Array1.set hangs 0 0l;
    Array.stable_sort (fun x y -> compare (attach_of x) (attach_of y)) others;
    Array.iteri (fun k j -> put (near + k) j; set32 from k (attach_of j)) others;
    let rec among k stop c =   (* the edge of card c among edges k .. stop - 1, or -1 *)
      if k >= stop then -1
      else if getc to_card k = c then get32 to_node k else among (k + 1) stop c in
    let depth_int e =
      if e < ncols then getc e_depth e
      else if e < chains then 0
      else let i = owner e in low_of i + 1 + e - base_of i in
    let top_card e =
      if e < ncols then getc e_top e
      else if e < chains then 0
      else let i = owner e in card_at i (low_of i + e - base_of i) in
    let parent e =
      if e < ncols then get32 e_parent e
      else if e < chains then 0
      else let i = owner e in if e = base_of i then attach_of i else e - 1 in
    let child b c =   (* the node of card c on node b, or -1 *)
      if b < chains then among (get32 hangs b) (get32 hangs (b + 1)) c
      else begin
        let i = owner b in
        let d = low_of i + 1 + b - base_of i in
        if card_at i d = c then (if d < getc e_depth i - 1 then b + 1 else i)
        else begin
          let lo = ref 0 and hi = ref (edges - near) in   (* the first edge from b *)
          while !lo < !hi do
            let mid = (!lo + !hi) / 2 in
            if get32 from mid < b then lo := mid + 1 else hi := mid
          done;
          let stop = ref !lo in
          while !stop < edges - near && get32 from !stop = b do incr stop done;
          among (near + !lo) (near + !stop) c
        end
      end in
    let valid e = e >= 0 && e < nodes in
    (* The checker asks mostly about entries: their depth, top card and parent read at once.
       [entry e] is the bounds check of [e_depth], [e_top] and [e_parent], which hold [ncols]
       elements each, so that the reads after it are unchecked. *)
    let entry e = e >= 0 && e < ncols in
    let entry_depth e = Char.code (Array1.unsafe_get e_depth e)
    and entry_top e = Char.code (Array1.unsafe_get e_top e)
    and entry_parent e = Int32.to_int (Array1.unsafe_get e_parent e) in
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
      { depth = (fun e -> let e = i e in if entry e then nats.(entry_depth e)
                  else if valid e then nats.(depth_int e) else O);
        top = (fun e -> let e = i e in if entry e then cards.(entry_top e) else top e);
        parent = (fun e -> let e = i e in
                   n (if entry e then entry_parent e else if valid e then parent e else 0));
        push = (fun b c -> n (push_plain (i b) c)); column_of = (fun c -> n (column_of_plain c)) }
    else
    { depth = (fun e -> let k = i e in if entry k then nats.(entry_depth k) else depth e);
      top = (fun e -> let e = i e in if entry e then cards.(entry_top e)
              else if valid e then top e else if known e then !x_top.(e - nodes)
              else cards.(0));
      parent = (fun e -> let e = i e in
                 n (if entry e then entry_parent e
                    else if valid e then parent e else if known e then !x_parent.(e - nodes)
                    else 0));
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
      while Bigarray.Array1.get slots !i <> 0l do i := (!i + 1) land mask done;
      Bigarray.Array1.set slots !i (Int32.of_int (k + 1))
    done;
    (* (Eight bytes at a time: a lookup compares a row or two, and this is half its work.)
       One check first, that row [k]'s [width] bytes lie in [rows] and [scratch] holds
       [width] bytes, so that the reads that follow, all at offsets below [width], are
       unchecked (an index out of bounds raises, as a checked read would: a refusal). *)
    let words = width / 8 in
    let same k scratch =
      let base = k * width in
      if base < 0 || base + width > Bytes.length rows || width > Bytes.length scratch then
        invalid_arg "index out of bounds";
      let rec go i =
        i = words ||
        ((unsafe_get64 rows (base + 8 * i) : int64) = unsafe_get64 scratch (8 * i)
         && go (i + 1)) in
      let rec rest j =
        j = width ||
        (Bytes.unsafe_get rows (base + j) = Bytes.unsafe_get scratch j && rest (j + 1)) in
      go 0 && rest (8 * words) in
    let lookup scratch =
      let i = ref (hash scratch 0 land mask) and found = ref count in
      while !found = count && Bigarray.Array1.get slots !i <> 0l do
        let k = Int32.to_int (Bigarray.Array1.get slots !i) - 1 in
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
    let start b = Bigarray.Array1.get p.blocks (3 * b + 2) in
    (* The record encoded at [g] (after the record now in [row]) into [row]; the next's place. *)
    let step row g =
      let s = seg g and o = at g in
      let shared = get s o in
      for j = shared to width - 1 do
        Bytes.set row j (Bigarray.Array1.get s (o + 1 + j - shared))
      done;
      g + 1 + width - shared in
    let head row b =
      let g = start b in
      let s = seg g and o = at g in
      for j = 0 to width - 1 do Bytes.set row j (Bigarray.Array1.get s (o + j)) done;
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
    (* The first j from [j0] on at which [scratch] and the record whose byte j is at [d] + j of
       [s] differ, or [width].  The lookups' inner loop: one check first, that the bytes read
       lie in both (scratch from j0 to width - 1, s from d + j0 to d + width - 1), so that the
       loop's unchecked reads stay inside them (an index out of bounds raises, as a checked
       read would: a refusal). *)
    let differs scratch (s : buf) d j0 =
      if j0 < 0 || d + j0 < 0 || width > Bytes.length scratch
         || d + width > Bigarray.Array1.dim s then invalid_arg "index out of bounds";
      let j = ref j0 in
      while !j < width && Bytes.unsafe_get scratch !j = Bigarray.Array1.unsafe_get s (d + !j)
      do incr j done;
      !j in
    (* How [scratch] (its two keys [k0], [k1]) compares with the record that block [b] begins
       with: its keys first, its bytes past them only when both tie. *)
    let versus scratch k0 k1 b =
      let h0 = Bigarray.Array1.get p.blocks (3 * b) in
      if k0 <> h0 then compare k0 h0
      else let h1 = Bigarray.Array1.get p.blocks (3 * b + 1) in
        if k1 <> h1 then compare k1 h1
        else begin
          let g = start b in
          let s = seg g and o = at g in
          let j = differs scratch s o 14 in
          if j = width then 0
          else compare (Bytes.get scratch j) (Bigarray.Array1.get s (o + j))
        end in
    let blocks = Bigarray.Array1.dim p.blocks / 3 in
    (* Record [k] (the first of its block) is below [scratch]: the rest of the block walked as it
       is coded, never decoded.  [common] is how many leading bytes the record at [g] shares
       with [scratch]: a record that shares more with the one before it is below [scratch] as
       that one is; one that shares less is above it; only one that shares exactly as many is
       compared, from there on. *)
    let walk scratch k g common =
      let last = min count (k - k mod block + block) - 1 in
      let rec go k g common =
        if k = last then count
        else
          let s = seg g and o = at g in
          let shared = get s o in
          let next = g + 1 + width - shared in
          if shared > common then go (k + 1) next common
          else if shared < common then count
          else begin
            let d = o + 1 - shared in      (* byte j of the record at d + j *)
            let j = differs scratch s d common in
            if j = width then k + 1
            else if Bytes.get scratch j < Bigarray.Array1.get s (d + j) then count
            else go (k + 1) next j
          end in
      go k g common in
    let lookup scratch =
      let k0 = key_of scratch 0 0 and k1 = key_of scratch 0 7 in
      let versus = versus scratch k0 k1 in
      if count = 0 || versus 0 < 0 then count
      else begin
        let lo = ref 0 and hi = ref (blocks - 1) in      (* the last block begun at or below *)
        while !lo < !hi do
          let mid = (!lo + !hi + 1) / 2 in
          if versus mid >= 0 then lo := mid else hi := mid - 1
        done;
        (* How many leading bytes the block's first record shares with [scratch]. *)
        let g = start !lo in
        let s = seg g and o = at g in
        let j = differs scratch s o 0 in
        let k = if j = width then !lo * block else walk scratch (!lo * block) (g + width) j in
        (* (A record found is [scratch], byte for byte: the proved code reads it next.) *)
        if k < count then (Bytes.blit scratch 0 found 0 width; found_k := k) else found_k := -1;
        k
      end in
    source, locate, lookup

  (* Id [j] of 2 bytes at [o] of [rows], unchecked: only where a check before says that
     bytes [o .. o + 15] lie in [rows]. *)
  let id2 rows o j =
    (Char.code (Bytes.unsafe_get rows (o + 2 * j)) lsl 8)
    lor Char.code (Bytes.unsafe_get rows (o + 2 * j + 1))

  (* The proved checker's records, read from either store ([w]-byte ids). *)
  let records ~cells ~w ~count store =
    let width = 4 + cells + 8 * w in
    let scratch = Bytes.create width in
    (* The record bytes of a position, into [scratch]; false if it has no record form.
       [encode] checks once that [scratch] holds [width] bytes, so that the writes after it,
       all at offsets below [width], are unchecked: the foundations 0 .. 3, the cells
       4 + j for j < cells, and byte i < w of id j < 8 at 4 + cells + w * j + i (each bound
       tested before the write).  Every value put is below 256: a foundation count, a card,
       an id's byte. *)
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
      if width > Bytes.length scratch then invalid_arg "index out of bounds";
      home_byte 0 f.clubs && home_byte 1 f.diamonds && home_byte 2 f.hearts &&
      home_byte 3 f.spades && fill_cells 0 cs && fill_ids 0 ids in
    let valid k = k >= 0 && k < count in
    (* For progress: [rhome] is asked first for the record being closed, and, after each
       [find], for the record found; the former are counted. *)
    let after_find = ref false and closing = ref 0 in
    let reached k =
      if !after_find then after_find := false
      else (incr closing; if !closing land 4095 = 0 then !record_reached k) in
    let no_home = { clubs = O; diamonds = O; hearts = O; spades = O } in
    (* (The proved code's numbers are [Num.t]: ints in vcheck, where these are no-ops.) *)
    let i = Num.to_int and n = Num.of_int in
    match store with
    | Flat rows ->
        let _, _, lookup = flat ~width ~count rows in
        (* Record [k]'s [width] bytes are those of [rows] from [k * width] on: [at] checks once
           that they lie in [rows] (an index out of bounds raises, as a checked read would: a
           refusal), so that the reads of bytes [0 .. width - 1] from the [base] it returns
           that follow it are unchecked (every offset read is below [width]: the foundations
           0 .. 3, the cells 4 .. 3 + cells, the ids' bytes up to 3 + cells + 8 w). *)
        let at k =
          let base = k * width in
          if base < 0 || base + width > Bytes.length rows then invalid_arg "index out of bounds";
          base in
        let byte base j = Char.code (Bytes.unsafe_get rows (base + j)) in
        let id base j =
          let off = base + 4 + cells + w * j in
          let v = (byte off 0 lsl 8) lor byte off 1 in
          if w = 2 then v
          else if w = 3 then (v lsl 8) lor byte off 2
          else (v lsl 16) lor (byte off 2 lsl 8) lor byte off 3 in
        { count = n count;
          rhome = (fun k ->
              let k = i k in
              reached k;
              if valid k then
                let b = at k in
                { clubs = nats.(byte b 0); diamonds = nats.(byte b 1);
                  hearts = nats.(byte b 2); spades = nats.(byte b 3) }
              else no_home);
          rcells = (fun k ->
              let k = i k in
              if not (valid k) then [] else
                let b = at k and l = ref [] in
                for j = cells - 1 downto 0 do
                  let c = byte b (4 + j) in if c < 52 then l := cards.(c) :: !l
                done;
                !l);
          rids = (fun k ->
              let k = i k in
              if not (valid k) then []
              else let b = at k in
                if w = 2 then
                  let o = b + 4 + cells in
                  [n (id2 rows o 0); n (id2 rows o 1); n (id2 rows o 2); n (id2 rows o 3);
                   n (id2 rows o 4); n (id2 rows o 5); n (id2 rows o 6); n (id2 rows o 7)]
                else [n (id b 0); n (id b 1); n (id b 2); n (id b 3); n (id b 4); n (id b 5);
                      n (id b 6); n (id b 7)]);
          find = (fun f cs ids ->
              after_find := true; n (if encode f cs ids then lookup scratch else count)) }
    | Packed p ->
        let source, locate, lookup = packed_records p in
        (* Byte [j] and id [j] of the record at [base] of !source. *)
        let id rows base j =
          let off = base + 4 + cells + w * j in
          let v = (Char.code (Bytes.get rows off) lsl 8)
                  lor Char.code (Bytes.get rows (off + 1)) in
          if w = 2 then v
          else if w = 3 then (v lsl 8) lor Char.code (Bytes.get rows (off + 2))
          else (v lsl 16) lor (Char.code (Bytes.get rows (off + 2)) lsl 8)
               lor Char.code (Bytes.get rows (off + 3)) in
        let row base j = Char.code (Bytes.get !source (base + j)) in
        { count = n count;
          rhome = (fun k ->
              let k = i k in
              reached k;
              if valid k then
                let k = locate k in
                { clubs = nats.(row k 0); diamonds = nats.(row k 1);
                  hearts = nats.(row k 2); spades = nats.(row k 3) }
              else no_home);
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

  (* A win's line for the proved check, from its moves given the last first (as
     [Moves.replay_words] gives them): one pass that builds the list from its end, where
     List.map would recurse as deep as the line is long, deeper than the web page's JavaScript
     stack holds for a line of a hundred thousand moves. *)
  let line back = Line (List.rev_map (fun (c, d) -> cards.(c), nats.(d)) back)

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


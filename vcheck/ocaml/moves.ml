(* The driver's own moves (not trusted): where a line starts, check's words for a position,
   a move and the first fault, and the moves a version 3 win's indices name. *)

open Proved
open Host
open Reading
open Stores

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
  (* ([Num.t]: the deal and the state pass 2 ^ 31, the product 2 ^ 49.) *)
  let two32 = Num.power 32 in
  let state = ref (if n < two32 then n else Num.sub n two32) in
  let deck = Array.init 52 (fun i -> i) and left = ref 52 and cols = Array.make 8 [] in
  for i = 0 to 51 do
    state := Num.(rem (add (mul !state (of_int 214013)) (of_int 2531011)) two32);
    let high = Num.to_int (Num.div !state (Num.of_int 65536)) in
    let r = if n < Num.power 31 then high land 0x7fff
      else if n < two32 then high land 0x7fff lor 0x8000 else (high land 0xffff) + 1 in
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
   the last first, or the first fault in check's words. *)
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
  !line

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


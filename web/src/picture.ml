(* What the page shows beside the verdict line (not trusted: it decides nothing): the header's
   facts, the start drawn as certify's SVG draws it, and the cards that never move. *)

open Js_of_ocaml
open Reading
open Stores
open Certificate

type picture = {
  mutable start : (int array * int list * int list array) option;  (* home, cells, columns *)
  mutable frozen : int array option;     (* per dealt column, how many cards never move *)
}
let picture = { start = None; frozen = None }

(* The cards that never move in the certificate's positions (certify explain's facts): for
   each dealt column, the fewest of its cards, from the bottom, that lie in their starting
   place (on the same cards) in any record; with symmetry "none" only in the same column. *)
let frozen_runs nw rows ~cells ~count ~symmetry (cols : int list array) =
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
      for b = 0 to nw.w - 1 do e := (!e lsl 8) lor Char.code (Bytes.get rows (off + b)) done;
      let j, d = places.(!e) in
      if j >= 0 && (symmetry <> "none" || j = where) then depth.(j) <- d
    done;
    for j = 0 to 7 do if depth.(j) < runs.(j) then runs.(j) <- depth.(j) done
  done;
  runs

let body : nowin option ref = ref None
let clear () = picture.start <- None; picture.frozen <- None; body := None

(* Told by Certificate of a verified single certificate: its start and a no-win's body. *)
let seen start nw = picture.start <- Some start; body := nw

let frozen (h : header) =
  match !body, picture.start with
  | Some ({ rows = Flat rows; _ } as nw), Some (_, _, cols) when Num.to_int h.count > 0 ->
      picture.frozen <- Some (frozen_runs nw rows ~cells:h.cells ~count:(Num.to_int h.count)
                                ~symmetry:h.symmetry cols)
  | _ -> ()

let jstr s : Js.Unsafe.any = Js.Unsafe.inject (Js.string s)
let jint (n : int) : Js.Unsafe.any = Js.Unsafe.inject n
let jarray (a : Js.Unsafe.any array) : Js.Unsafe.any = Js.Unsafe.inject (Js.array a)

(* The worker's answer: the verdict, the line (as vcheck prints it), the header's facts and
   the picture. *)
let answer ~verdict ~line ~text (h : header option) : Js.Unsafe.any =
  let fields = ref [ "verdict", jstr verdict; "line", jstr line; "text", jstr text ] in
  let add k v = fields := (k, v) :: !fields in
  if verdict = "verified" then Option.iter frozen h;
  Option.iter (fun (h : header) ->
      add "claim" (jstr h.claim); add "cells" (jint h.cells);
      add "foundationMoves" (Js.Unsafe.inject (Js.bool h.fm));
      add "symmetry" (jstr h.symmetry); add "closure" (jstr h.closure);
      add "count" (jstr (Num.to_string h.count));
      Option.iter (fun d -> add "deal" (jstr (Num.to_string d))) h.deal;
      if h.claim = "range" then begin
        add "first" (jstr (Num.to_string h.first)); add "last" (jstr (Num.to_string h.last))
      end) h;
  Option.iter (fun (home, cells, cols) ->
      let ints l = jarray (Array.of_list (List.map jint l)) in
      add "home" (jarray (Array.map jint home));
      add "freeCells" (ints cells);
      add "columns" (jarray (Array.map (fun c -> ints (List.rev c)) cols))) picture.start;
  Option.iter (fun runs -> add "frozen" (jarray (Array.map jint runs))) picture.frozen;
  Js.Unsafe.obj (Array.of_list (List.rev !fields))

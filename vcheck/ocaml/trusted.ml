(* The lines vcheck trusts: the claim passed to the proved functions (coq/Verdict.v,
   coq/Range.v), the text they return turned into the bytes printed, and the processes of -j N.
   Everything else reads the file and builds data and hints that the proved functions check. *)

open Proved

(* [fork f] runs [f ()] in a process of its own, which sees the data as it is now; the function
   it returns waits for that process and hands back what [f ()] returned there, or None. *)
let fork (f : unit -> 'a) : unit -> 'a option =
  flush_all ();
  let r, w = Unix.pipe () in
  match Unix.fork () with
  | 0 ->
      Unix.close r;
      let result = try Some (f ()) with _ -> None in
      let oc = Unix.out_channel_of_descr w in
      (try Marshal.to_channel oc result []; close_out oc with _ -> ());
      Unix._exit 0
  | pid ->
      Unix.close w;
      fun () ->
        let ic = Unix.in_channel_of_descr r in
        let result = try Marshal.from_channel ic with _ -> None in
        close_in ic; ignore (Unix.waitpid [] pid); result

module Make (C : CORE) = struct
  open C
  let rec nat_of n = if n = 0 then O else S (nat_of (n - 1))
  let nats = Array.init 64 nat_of
  let suits = [| Clubs; Diamonds; Hearts; Spades |]
  let cards = Array.init 52 (fun i -> { rank = nats.(i lsr 2); suit_of = suits.(i land 3) })

  (* Coq's text as bytes (a character's 8 bools are its bits, the first the lowest), and a file
     name as Coq's text. *)
  let text s =
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

  (* The sentence [verdict] returned for this start, these rules and this data. *)
  let verdict start ~path ~cells ~fm d =
    Option.map text (C.verdict start (coq_string path) nats.(cells) fm d)

  (* A no-win's data: a slice checked elsewhere counts as closed only if [slice_ok] said so of
     those very bounds, with the arguments [verdict] is given ([runs_sound]). *)
  let records_data ~cells ~fm ~sorted ~autoplay t r ~split =
    let slice lo hi = lo, hi, C.slice_ok sorted autoplay nats.(cells) fm t r lo hi in
    let bounds, results = split slice in
    let run rs lo hi = Array.exists (( = ) (Some (lo, hi, true))) rs in
    Records (sorted, autoplay, t, r, bounds, Option.map run results)

  (* A custom board as docs/certificate-format.md says ("Custom boards"): four counts, the
     cells, then eight columns (bottom card first), each ended by 0xFF. *)
  let board_position d (off, len) ~cells =
    let at i = if i < len then Char.code (Bigarray.Array1.get d (off + i)) else 0xff in
    let rec column p acc = if at p = 0xff then acc, p + 1
      else column (p + 1) (cards.(at p) :: acc) in
    let rec columns p k = if k = 0 then [] else let c, p = column p [] in c :: columns p (k - 1) in
    { home = { clubs = nats.(at 0); diamonds = nats.(at 1); hearts = nats.(at 2);
               spades = nats.(at 3) };
      cells = List.filter_map (fun j -> if at (4 + j) = 0xff then None
                                else Some cards.(at (4 + j))) (List.init cells Fun.id);
      columns = columns (4 + cells) 8 }
end

module TN = Make (Numbered)

(* Entry i of a range: its result is what [entry_result first i] returned, kept in byte i
   (1 won, 2 cannot be won) and read back so by [range_verdict] ([results_sound]). *)
let prove_entry results ~first ~i ~cells ~fm d =
  let r = Vcheck_core.entry_result first (Num.of_int i) TN.nats.(cells) fm d in
  Option.iter (fun won -> Bytes.set results i (if won then '\001' else '\002')) r;
  r
let range_verdict ~first ~last ~cells ~fm (results : int -> Bytes.t) =
  let result i = let i = Num.to_int i in match Bytes.get (results i) i with
    | '\001' -> Some true | '\002' -> Some false | _ -> None in
  Option.map (fun (t, lost) -> TN.text t, lost)
    (Vcheck_core.range_verdict first last TN.nats.(cells) fm result)

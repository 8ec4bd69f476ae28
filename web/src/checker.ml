(* The page's own trusted lines (web/README.md, "The trust base"): the file the reader gave is
   the file checked, under its name (as vcheck names a file in its folder; past 4 GiB, given by
   its size alone, it is refused by Host.read_file, as vcheck refuses it), and the line shown
   is the one vcheck prints: the verdict and the text Certificate.verify returns, for a
   verified file the sentence that the proved Verdict.verdict or Range.range_verdict returned
   (vcheck/ocaml/trusted.ml turns it into bytes).  Everything else is vcheck's driver
   (reading, stores, moves, certificate), over the page's Host, and Picture. *)

open Js_of_ocaml

let run (name : Js.js_string Js.t) (data : Typed_array.arrayBuffer Js.t)
    (sha : Js.js_string Js.t) (size : Js.number Js.t) =
  let path = Js.to_string name in
  Host.given := Some (path, Typed_array.Bigstring.of_arrayBuffer data, Js.to_string sha,
                      Js.float_of_number size);
  Host.hash_key ();
  Picture.clear ();
  Certificate.verified := Picture.seen;
  Reading.progress_every := 0.25;
  let o = Certificate.verify path in
  Host.given := None;
  let line = Reading.printable (String.uppercase_ascii o.verdict ^ ": " ^ o.text) in
  Picture.answer ~verdict:o.verdict ~line ~text:o.text o.h

let () = Js.Unsafe.set Js.Unsafe.global "vcheckRun" (Js.wrap_callback run)

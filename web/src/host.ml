(* What the driver asks of the machine it runs on (not trusted), in the page: vcheck's
   interface (vcheck/ocaml/host.ml) over JavaScript (web/src/host.js).  The file is the one the
   page was given (web/src/checker.ml), its SHA-256 the one the worker computed (the browser's
   crypto.subtle, or hash-wasm's); zstd is fzstd, given one block at a time by host.js, which
   refuses what libzstd refuses in its words; XXH3 is hash-wasm's; the lookup tables' keyed
   hash is simple tabulation under a key from crypto.getRandomValues, drawn for each file (no
   file can crowd a stretch of a table; membership is always decided by comparing bytes). *)

open Js_of_ocaml

type buf = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t
type js = Js.Unsafe.any

let host () : js = Js.Unsafe.get Js.Unsafe.global "vcheckHost"
let call name (args : js array) = Js.Unsafe.meth_call (host ()) name args
let typed (b : buf) : js = Js.Unsafe.get b "data"   (* the Uint8Array behind a Bigarray *)
let int_arg (n : int) : js = Js.Unsafe.inject n

(* The file the page was given: its name, its bytes, their SHA-256 and its size in bytes.  A
   file past 4 GiB is refused by its size, as vcheck's reader refuses it
   (vcheck/ocaml/zstd_stubs.c): the page is then given its size alone, never its bytes. *)
let most_bytes = 4. *. 1024. *. 1024. *. 1024.
let given : (string * buf * string * float) option ref = ref None
let read_file path = match !given with
  | Some (name, _, _, size) when name = path && size > most_bytes ->
      failwith (path ^ " holds more than 4 GiB")
  | Some (name, file, _, _) when name = path -> file
  | _ -> failwith (path ^ " was not given to the page")
let sha256 (file : buf) = match !given with
  | Some (_, f, sha, _) when f == file -> sha
  | _ -> failwith "no SHA-256 for this file"

type zstream = js
type xxh3_state = js

let stream_open (file : buf) : zstream = call "zstd" [| typed file |]
(* Up to [len] bytes of the data into [win] at [off], fewer only at its end; a refusal in
   zstd's words, raised as Failure. *)
let stream_read (z : zstream) (_ : buf) (win : buf) off len =
  let got : int = Js.Unsafe.meth_call z "read" [| typed win; int_arg off; int_arg len |] in
  if got < 0 then failwith (Js.to_string (Js.Unsafe.get z "error"));
  got
(* The file's bytes that a reader taking a KiB at a time has read once so much data is out. *)
let stream_got (z : zstream) (need : int) : int =
  Js.Unsafe.meth_call z "got" [| int_arg need |]

let xxh3_begin () : xxh3_state = call "xxh3" [||]
let xxh3_add (h : xxh3_state) (win : buf) off len =
  if len > 0 then ignore (Js.Unsafe.meth_call h "add" [| typed win; int_arg off; int_arg len |])
let xxh3_end (h : xxh3_state) : string = Js.to_string (Js.Unsafe.meth_call h "end" [||])

(* (Huge pages: none to ask for here.) *)
let advise_huge (_ : Bytes.t) = ()
let advise_huge_array (_ : ('a, 'b, 'c) Bigarray.Array1.t) = ()

(* Simple tabulation: the XOR of one random word for each byte and its place. *)
let key_words = 64 * 256
let key = Array.make key_words 0
let hash_key () =
  let words : js = call "randomWords" [| int_arg key_words |] in   (* a Uint32Array *)
  for i = 0 to key_words - 1 do key.(i) <- (Js.Unsafe.get words i : int) land 0x3fffffff done

let keyed_hash (b : Bytes.t) off len =
  let h = ref key.(63 * 256 + (len land 255)) in
  for j = 0 to len - 1 do
    h := !h lxor key.(((j land 63) lsl 8) lor Char.code (Bytes.unsafe_get b (off + j)))
  done;
  !h

let keyed_hash_int n =
  key.(n land 255) lxor key.(256 lor ((n lsr 8) land 255))
  lxor key.(512 lor ((n lsr 16) land 255)) lxor key.(768 lor ((n lsr 24) land 255))

let now () : float = call "now" [||]    (* (a JavaScript number is an OCaml float) *)

(* Progress: the page's status line. *)
let progress_line line = ignore (call "progress" [| Js.Unsafe.inject (Js.string line) |])

(* No packed records: the rows are held flat (at most --max-positions of them). *)
let memory = max_int

(* The page has one worker: the parts are worked in turn (the page's -j is 1, so the driver
   never asks for more than one). *)
let in_processes parts (work : int -> (int -> unit) -> 'a) (_ : int array -> unit) =
  Array.init parts (fun i -> Some (work i ignore))

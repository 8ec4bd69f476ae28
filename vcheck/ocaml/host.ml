(* What the driver asks of the machine it runs on (not trusted), here natively: the file,
   zstd, XXH3 and SHA-256 through C stubs (zstd_stubs.c, sha256.c, libxxhash), the keyed hash
   of the lookup tables (keyed_hash.c), huge pages (memory.c), the clock, progress lines on a
   terminal, this machine's memory, and the processes of -j N.  The page has the same interface
   over JavaScript (web/src/host.ml); the modules that read a certificate (reading.ml,
   stores.ml, moves.ml, certificate.ml) are the same for both. *)

type buf = (char, Bigarray.int8_unsigned_elt, Bigarray.c_layout) Bigarray.Array1.t

external read_file : string -> buf = "vc_read"         (* "-": standard input *)
external sha256 : buf -> string = "vc_sha256"
external stderr_columns : unit -> int = "vc_stderr_columns"
type zstream
type xxh3_state
external stream_start : unit -> zstream = "vc_stream_open"
(* A stream over the file (whose bytes are also given to each read). *)
let stream_open (_ : buf) = stream_start ()
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

let now = Unix.gettimeofday

(* A progress line on standard error, cut to the terminal's width when it is one, whole in a
   log. *)
let progress_line line =
  let columns = stderr_columns () in
  prerr_endline (if columns > 1 && String.length line >= columns
                 then String.sub line 0 (columns - 1) else line)

(* The memory past which a no-win's records are packed (--memory): by default half of this
   machine's memory. *)
let memory = try
    let ic = open_in "/proc/meminfo" in
    let line = input_line ic in
    close_in ic;
    Scanf.sscanf line "MemTotal: %d kB" (fun kb -> kb * 1024 / 2)
  with _ -> max_int

(* [work i tell] for each i < parts, each in a forked process of its own (so that each sees
   the same data), and their results in order (None for a process that failed), as
   [Trusted.fork] hands them back.  [tell n] says how far process i is: the parent calls [show]
   with the latest of each. *)
let in_processes parts (work : int -> (int -> unit) -> 'a) (show : int array -> unit) =
  let news, tidings = Unix.pipe () in
  let start i = Trusted.fork (fun () ->
      Unix.close news;
      let message = Bytes.create 16 and last = ref 0.0 in
      let tell n =   (* at most a few a second; 16 bytes, so that writes never interleave *)
        let now = Unix.gettimeofday () in
        if now -. !last >= 0.25 then begin
          last := now;
          Bytes.set_int64_le message 0 (Int64.of_int i);
          Bytes.set_int64_le message 8 (Int64.of_int n);
          ignore (Unix.write tidings message 0 16)
        end in
      (* Its end closed before its result is sent, so that the parent stops listening. *)
      Fun.protect ~finally:(fun () -> Unix.close tidings) (fun () -> work i tell)) in
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
  Array.map (fun wait -> wait ()) children

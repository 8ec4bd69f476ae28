(* vcheck: reads FreeCell certificates and hands their data to the checker proved in Coq.

   The command line (not trusted).  Trusted: only ocaml/trusted.ml, which passes the claim to
   the proved functions, prints nothing but the text they return, and forks.  Everything else
   (decompression, msgpack, the column tree, the hash table that finds a record) is data and
   hints for the proved checker: whatever it computes, a wrong answer can only make the check
   fail (see vcheck/README.md). *)

open Host
open Reading
open Stores
open Certificate

let version = "vcheck 1.0"

(* Several files with -j N: N at once, each in a forked process that sends back its outcome
   (one file: its records or entries are split instead).  The outcomes come back in the
   order of the files. *)
let verify_all files report =
  if !jobs = 1 || List.length files < 2 then List.map (fun p -> report p (verify p)) files
  else begin
    let start path = (path, Trusted.fork (fun () -> jobs := 1; verify path)) in
    let finish (path, wait) =
      report path (match wait () with
          | Some o -> o
          | None -> { verdict = "unreadable"; text = "the checking process died (out of memory?)";
                      h = None; lost = []; sha = None; seconds = 0.0 }) in
    let rec go running waiting done_ =
      match running, waiting with
      | [], [] -> List.rev done_
      | _, p :: rest when List.length running < !jobs -> go (running @ [start p]) rest done_
      | first :: others, _ -> go others waiting (finish first :: done_)
      | [], _ -> assert false in
    go [] files []
  end

(* ---- Command line ---- *)

let json_string s =
  let b = Buffer.create (String.length s + 2) in
  Buffer.add_char b '"';
  String.iter (fun ch -> match ch with
      | '"' -> Buffer.add_string b "\\\"" | '\\' -> Buffer.add_string b "\\\\"
      | ch when ch < ' ' || ch = '\127' ->
          Buffer.add_string b (Printf.sprintf "\\u%04x" (Char.code ch))
      | ch -> Buffer.add_char b ch) s;
  Buffer.add_char b '"';
  Buffer.contents b

(* One JSON object: check's fields (verdict: verified, rejected or unreadable; claim: win,
   no-win or range; null where unknown), and the theorem of a verified file. *)
let json path o =
  let field f = match o.h with None -> "null" | Some h -> f h in
  let number n = string_of_int n and text s = json_string s in
  let ranged f = field (fun h -> if h.claim = "range" then f h else "null") in
  let fields = [
    "path", text path; "verdict", text o.verdict;
    "claim", field (fun h -> text h.claim);
    "deal", field (fun h -> match h.deal with Some n -> Num.to_string n | None -> "null");
    "first", ranged (fun h -> Num.to_string h.first);
    "last", ranged (fun h -> Num.to_string h.last);
    "unwinnable", ranged (fun _ ->
        if o.verdict = "verified" then
          "[" ^ String.concat ", " (List.map Num.to_string o.lost) ^ "]"
        else "null");
    "cells", field (fun h -> number h.cells); "foundation_moves", field (fun h ->
        string_of_bool h.fm);
    "symmetry", field (fun h -> text h.symmetry); "closure", field (fun h -> text h.closure);
    "count", field (fun h -> h.count_text);
    "sha256", (match o.sha with Some s -> text s | None -> "null");
    "seconds", Printf.sprintf "%.3f" o.seconds;
    "theorem", (if o.verdict = "verified" then text o.text else "null");
    "reason", (if o.verdict = "verified" then "null" else text o.text)] in
  "{" ^ String.concat ", " (List.map (fun (k, v) -> json_string k ^ ": " ^ v) fields) ^ "}"

(* A folder's certificates, as check finds them: (the name to print, the path) of each
   *.msgpack.zst in it and in its subfolders, named from the folder down, in the order of their
   paths; then each subfolder that cannot be read; or the folder itself when it holds none.
   Subfolders are found by a list of those still to read, not by recursion (a tree may be nested
   thousands deep), and a symbolic link is not followed into a folder. *)
let in_folder top =
  let found = ref [] and unread = ref [] and todo = ref [(top, "")] in
  while !todo <> [] do
    let where, named = List.hd !todo in
    todo := List.tl !todo;
    match Sys.readdir where with
    | exception Sys_error _ ->
        let why = try ignore (Unix.opendir where); "unknown"
          with Unix.Unix_error (e, _, _) -> Unix.error_message e in
        Hashtbl.replace not_certificates where
          (Printf.sprintf "cannot read the folder %s: %s" where why);
        unread := (where, where) :: !unread
    | names ->
        Array.iter (fun name ->
            let path = Filename.concat where name
            and shown = if named = "" then name else named ^ "/" ^ name in
            match (Unix.lstat path).Unix.st_kind with
            | Unix.S_DIR -> todo := (path, shown) :: !todo
            | _ when Filename.check_suffix name ".msgpack.zst" -> found := (shown, path) :: !found
            | _ | exception Unix.Unix_error _ -> ()) names
  done;
  let by_path = List.sort (fun (_, a) (_, b) -> compare a b) in
  match by_path !found, by_path !unread with
  | [], [] ->
      Hashtbl.replace not_certificates top
        (Printf.sprintf "%s holds no certificate (*.msgpack.zst)" top);
      [(top, top)]
  | files, unread -> files @ unread

let usage = "usage: vcheck [-q] [--json] [-j N] [--progress-every S] [--deal N] [--range A-B] \
             [--claim {no-win,win,range}] [--cells N] [--[no-]foundation-moves] \
             [--symmetry {columns,none}] [--closure {moves,autoplay}] [--max-positions N] \
             [--max-moves N] [--max-columns N] [--range-moves N] [--range-positions N] \
             [--byte-moves N] [--byte-positions N] [--memory SIZE] CERTIFICATE|FOLDER|- ..."

let help = usage ^ "\n\n\
Check FreeCell certificates with a checker proved correct in Coq (vcheck/README.md).\n\
A folder: each *.msgpack.zst in it and its subfolders; -: a certificate on standard input.\n\
Exit 0: every certificate verified (and proving what --deal, ... ask); 1: one is rejected;\n\
2: one is unreadable, or too big (or bad usage).\n\
A verified file's line is followed by its sha256, as check prints it.\n\n\
\  -q, --quiet          print only what is not verified, and no progress\n\
\  --json               one JSON object per certificate (check's fields, and its theorem)\n\
\  -j N                 N processes: several files N at once; one file's records (a no-win)\n\
\                       or entries (a range) split N ways (default 1)\n\
\  --progress-every S   a progress line on standard error at most every S seconds of a long\n\
\                       check (default 10)\n\
What the file must prove (else it is REJECTED), as check's options:\n\
\  --deal N, --range A-B, --claim {no-win,win,range}, --cells N,\n\
\  --foundation-moves, --no-foundation-moves, --symmetry {columns,none},\n\
\  --closure {moves,autoplay}\n\
Limits (past one a file is UNREADABLE), as check's:\n\
\  --max-positions N    positions of a no-win (4000000)\n\
\  --max-moves N        moves of a win (100000)\n\
\  --max-columns N      entries of a column table (1000000)\n\
\  --range-moves N      a range's moves in all, N a deal (250)\n\
\  --range-positions N  a range's positions in all, N a deal (10000)\n\
\  --byte-moves N       a range's moves in all, N a byte of it read (4)\n\
\  --byte-positions N   and its positions, N a byte (16)\n\
\  --memory SIZE        past SIZE bytes (500M, 2G) of records and lookup table, a no-win's\n\
\                       records are packed (8 to 12 bytes a position; slower to look up;\n\
\                       default: half of this machine's memory)\n\
\  --version            print the version\n"

let () =
  (* The checker allocates many short-lived lists: a larger minor heap makes that cheaper. *)
  Gc.set { (Gc.get ()) with Gc.minor_heap_size = 1 lsl 20 };
  hash_key ();
  let quiet = ref false and as_json = ref false and paths = ref [] in
  let args = Array.to_list Sys.argv |> List.tl in
  (* Bad usage as check says it (argparse's words after the program's name), exit 2. *)
  let usage_error m = prerr_endline usage; prerr_endline ("vcheck: error: " ^ m); exit 2 in
  let python_int v = (* what Python's int() reads: digits, a sign, spaces around, _ between *)
    let s = String.trim v in
    let body = if s <> "" && (s.[0] = '+' || s.[0] = '-') then String.sub s 1 (String.length s - 1)
      else s in
    if body <> "" && String.for_all (fun c -> c >= '0' && c <= '9' || c = '_') body
       && body.[0] <> '_' && body.[String.length body - 1] <> '_'
       && not (List.exists (( = ) "") (String.split_on_char '_' body))
    then int_of_string_opt (String.concat "" (String.split_on_char '_' s)) else None in
  let number o v = match python_int v with
    | Some n -> n
    | None -> usage_error (Printf.sprintf "argument %s: invalid int value: %s" o
                             (python_quoted ~prefix:"" v)) in
  let choice o v choices =
    if List.mem v choices then v
    else usage_error (Printf.sprintf "argument %s: invalid choice: %s (choose from %s)" o
                        (python_quoted ~prefix:"" v)
                        (String.concat ", " (List.map (fun c -> python_repr (Str c)) choices))) in
  let limits = [ "--max-positions", max_positions; "--max-moves", max_moves;
                 "--max-columns", max_columns; "--range-moves", range_moves;
                 "--range-positions", range_positions; "--byte-moves", byte_moves;
                 "--byte-positions", byte_positions ] in
  let rec parse = function
    | [] -> ()
    | ("-q" | "--quiet") :: rest -> quiet := true; parse rest
    | "--json" :: rest -> as_json := true; parse rest
    | ("-j" | "--jobs") :: v :: rest -> jobs := number "-j/--jobs" v; parse rest
    | "--progress-every" :: v :: rest ->
        (match float_of_string_opt v with
         | Some s when s >= 0.0 -> progress_every := s
         | _ -> usage_error ("--progress-every: not a number of seconds: " ^ v));
        parse rest
    | "--memory" :: v :: rest ->
        let n = String.length v in
        let scale = if n = 0 then 0 else match v.[n - 1] with
          | 'K' | 'k' -> 10 | 'M' | 'm' -> 20 | 'G' | 'g' -> 30 | 'T' | 't' -> 40 | _ -> 0 in
        (match python_int (if scale > 0 then String.sub v 0 (n - 1) else v) with
         | Some m when m >= 0 && m < 1 lsl (61 - scale) -> memory_budget := m lsl scale
         | _ -> usage_error (Printf.sprintf "argument --memory: invalid size value: %s"
                               (python_quoted ~prefix:"" v)));
        parse rest
    | ("-h" | "--help") :: _ -> print_string help; exit 0
    | "--version" :: _ -> print_endline version; exit 0
    | "--deal" :: v :: rest -> want_deal := Some (number "--deal" v); parse rest
    | "--range" :: v :: rest ->
        let a, b = match String.index_opt v '-' with
          | Some i -> String.sub v 0 i, String.sub v (i + 1) (String.length v - i - 1)
          | None -> v, "" in
        (match python_int a, python_int b with
         | Some a, Some b -> want_range := Some (a, b)
         | _ -> usage_error (Printf.sprintf "argument --range: invalid <lambda> value: %s"
                               (python_quoted ~prefix:"" v)));
        parse rest
    | "--claim" :: v :: rest ->
        want_claim := Some (choice "--claim" v ["no-win"; "win"; "range"]); parse rest
    | "--cells" :: v :: rest -> want_cells := Some (number "--cells" v); parse rest
    | "--foundation-moves" :: rest -> want_fm := Some true; parse rest
    | "--no-foundation-moves" :: rest -> want_fm := Some false; parse rest
    | "--symmetry" :: v :: rest ->
        want_symmetry := Some (choice "--symmetry" v ["columns"; "none"]); parse rest
    | "--closure" :: v :: rest ->
        want_closure := Some (choice "--closure" v ["moves"; "autoplay"]); parse rest
    | o :: v :: rest when List.mem_assoc o limits ->
        List.assoc o limits := number o v; parse rest
    | [o] when List.mem o ["-j"; "--jobs"; "--progress-every"; "--memory"; "--deal"; "--range";
                          "--claim"; "--cells"; "--symmetry"; "--closure"]
               || List.mem_assoc o limits ->
        usage_error (Printf.sprintf "argument %s: expected one argument"
                       (if o = "-j" || o = "--jobs" then "-j/--jobs" else o))
    | o :: _ when String.length o > 1 && o.[0] = '-' && python_int o = None ->
        usage_error ("unrecognized arguments: " ^ o)
    | p :: rest -> paths := p :: !paths; parse rest in
  parse args;
  progress_on := not !quiet;
  let paths = List.rev !paths in
  if paths = [] then begin
    prerr_string "usage: vcheck [options] CERTIFICATE|FOLDER|- ... (see --help)\n"; exit 2
  end;
  (* Bad usage (exit 2), as is a pin that no file can meet: check's words, in its order. *)
  let first, last = Option.value !want_range ~default:(1, 1) in
  let bad, why = List.find (fun (bad, _) -> bad) [
      !jobs < 1, Printf.sprintf "-j %d: at least one process is needed" !jobs;
      List.exists (fun (_, r) -> !r < 0) limits, "a limit cannot be negative";
      (match !want_deal with Some d -> d < 1 || Num.of_int d > max_deal | None -> false),
      Printf.sprintf "--deal %d: no deal has that number (1..8,589,934,591)"
        (Option.value !want_deal ~default:0);
      not (1 <= first && first <= last && Num.of_int last <= max_deal),
      Printf.sprintf "--range %d-%d: no range is that (1 <= A <= B <= 8,589,934,591)" first last;
      (match !want_cells with Some n -> n < 0 || n > 8 | None -> false),
      Printf.sprintf "--cells %d: no rules have that many free cells (0..8)"
        (Option.value !want_cells ~default:0);
      true, ""] in
  if bad && why <> "" then usage_error why;
  let folder p = p <> "-" && Sys.file_exists p && Sys.is_directory p in
  let files = List.concat_map (fun p -> if folder p then in_folder p
                                else [((if p = "-" then p else Filename.basename p), p)]) paths in
  let several = List.length files > 1 || List.exists folder paths in
  let shown = Hashtbl.create 16 in
  List.iter (fun (name, p) -> Hashtbl.replace shown p name) files;
  let verdicts = verify_all (List.map snd files) (fun path o ->
      if !as_json then print_endline (json path o)
      else if o.verdict <> "verified" || not !quiet then begin
        let name = Hashtbl.find shown path in
        print_endline (printable ((if several then name ^ ": " else "") ^
                                  String.uppercase_ascii o.verdict ^ ": " ^ o.text));
        match o.verdict, o.sha with
        | "verified", Some sha -> print_endline ("  sha256 " ^ sha)
        | _ -> ()
      end;
      flush stdout;
      o.verdict) in
  let empty = Hashtbl.length not_certificates in   (* folders not read, or holding none *)
  let n = List.length verdicts - empty in
  let ok = List.length (List.filter (( = ) "verified") verdicts) in
  let bad = List.length (List.filter (( = ) "unreadable") verdicts) - empty in
  let plural n word = Printf.sprintf "%s %s%s" (commas n) word (if n = 1 then "" else "s") in
  if several && not !as_json && not !quiet then
    Printf.printf "%s: %s verified, %s rejected%s%s\n" (plural n "certificate") (commas ok)
      (commas (n - ok))
      (if bad > 0 then Printf.sprintf " (%s unreadable)" (commas bad) else "")
      (if empty > 0 then Printf.sprintf "; %s not read or holding no certificate"
           (plural empty "folder") else "");
  exit (if List.mem "rejected" verdicts then 1 else if bad + empty > 0 then 2 else 0)

(* The numbers of the proved checker's interface (Coq's [N], and what the header says: a deal,
   a count) in the page: JavaScript's numbers (OCaml's float under js_of_ocaml), whole and exact
   below 2 ^ 53, as web/coq/ExtractWeb.v realises [N].  vcheck's are OCaml's int
   (vcheck/ocaml/num.ml); here OCaml's int has 32 bits, too few for a deal (below 2 ^ 33). *)

type t = float

let of_int = float_of_int
(* (Only of whole numbers below 2 ^ 31: the driver clamps a larger one first.) *)
let to_int = int_of_float
(* (Of a word from -2 ^ 62 to below 2 ^ 62: exact below 2 ^ 53, else the nearest double.) *)
let of_int64 = Int64.to_float
let zero = 0.0
let one = 1.0
let add = ( +. )
let sub = ( -. )
let mul = ( *. )
let div a b = Float.floor (a /. b)   (* of whole numbers, not negative *)
let rem = Float.rem
(* Above every number msgpack's reader gives (below 2 ^ 62). *)
let largest = Float.ldexp 1.0 62
let to_string x = Printf.sprintf "%.0f" x
(* 2 ^ k *)
let power k = Float.ldexp 1.0 k
(* The number below [limit] it is, or [limit]. *)
let clamp (n : t) limit = if n < limit then n else limit

(* The numbers of the proved checker's interface (Coq's [N], and what the header says: a deal,
   a count), as vcheck/coq/Extract.v realises [N]: OCaml's native int, exact below 2 ^ 62.  The
   page's are JavaScript's numbers (web/src/num.ml), where OCaml's int has 32 bits; the driver
   reaches them only through this module, whose functions here are the int operations themselves
   (compiled inline: vcheck pays nothing for them). *)

type t = int

external of_int : int -> t = "%identity"
external to_int : t -> int = "%identity"
(* (Only of a word from -2 ^ 62 to below 2 ^ 62.) *)
let of_int64 = Int64.to_int
let zero = 0
let one = 1
let add = ( + )
let sub = ( - )
let mul = ( * )
let div = ( / )
let rem = ( mod )
let largest = max_int
let to_string = string_of_int
(* 2 ^ k *)
let power k = 1 lsl k
(* The int below [limit] it is, or [limit] (a count that cannot be held as an int here is past
   every limit). *)
let clamp (n : t) limit = if n < limit then n else limit

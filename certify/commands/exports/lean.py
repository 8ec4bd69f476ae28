"""A no-win certificate as one Lean 4 file (core and Std only), in the same shape as the Coq export.

No Lean toolchain can be installed where this project is tested, so this file is written
carefully against the documented API and kept minimal, and it is NOT compiled in CI; the tests
check its structure and read its data back independently. The data is two string literals
(Lean elaborates a few MB of string at once, where a list literal of 85,000 terms would be slow):

  columnData  every column used, cards from bottom to top, one letter a card (A..Z for card
              numbers 0..25, a..z for 26..51), '-' for the empty column, separated by spaces;
              a column's id is its place in this list.
  stateData   the positions, separated by spaces: four foundation counts as letters (A = 0),
              the free-cell cards (ascending), '.', then the ids of columns 1..8, each ID_WIDTH
              letters read as base-52 digits (A = 0 .. z = 51), most significant first.
"""

import textwrap
from string import Template

from ...game.board import describe

LEAN_VERSION = "v4.22.0"

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # card number / base-52 digit

HEADER = Template(r"""$header
import Std.Data.HashSet

namespace FreeCell

/-! ## Cards and positions -/

/-- A card: `rank` 0..12 for A 2 .. 10 J Q K, `suit` 0..3 for clubs, diamonds, hearts, spades.
Its number in the certificate format is `rank * 4 + suit`. -/
structure Card where
  rank : Nat
  suit : Nat
  deriving DecidableEq, Hashable

def Card.ofNumber (n : Nat) : Card := ⟨n / 4, n % 4⟩

def Card.number (c : Card) : Nat := c.rank * 4 + c.suit

def Card.red (c : Card) : Bool := c.suit == 1 || c.suit == 2

/-- A position. `home`: how many cards of each suit (C D H S) are on the foundations, which
hold the ranks below that count. `cells`: the cards in the free cells, a set kept in ascending
card number. `columns`: columns 1..8 in their fixed places, each from its top card (the only
one that can move) down to its bottom card. -/
structure State where
  home : List Nat
  cells : List Card
  columns : List (List Card)
  deriving DecidableEq, Hashable

/-- Won: all 52 cards are home. -/
def Won (s : State) : Prop := s.home = [13, 13, 13, 13]

instance : DecidablePred Won := fun s => inferInstanceAs (Decidable (s.home = [13, 13, 13, 13]))

$start_section

/-! ## The rules: single-card moves -/

def freeCells : Nat := $free_cells

/-- May a foundation's top card move back onto a column? (A variant of the rules.) -/
def foundationMoves : Bool := $foundation_moves

/-- `c` may lie on `onto` in a column: one rank lower and the other colour. -/
def canStack (c onto : Card) : Bool := onto.rank == c.rank + 1 && c.red != onto.red

/-- `c` may go home when its foundation holds exactly the ranks below it. -/
def canHome (home : List Nat) (c : Card) : Bool := home.getD c.suit 0 == c.rank

/-- `c` may land on a column that is empty or whose top card it stacks on. -/
def canLand (c : Card) : List Card → Bool
  | [] => true
  | top :: _ => canStack c top

def insertCell (c : Card) : List Card → List Card
  | [] => [c]
  | d :: rest => if c.number ≤ d.number then c :: d :: rest else d :: insertCell c rest

/-- Where a moving card comes from. -/
inductive Source where
  | column (i : Nat)
  | cell
  | home

def mayGoHome : Source → Bool
  | .home => false
  | _ => true

def mayGoToColumn (src : Source) (j : Nat) : Bool :=
  match src with
  | .column i => i != j
  | _ => true

def mayGoToCell : Source → Bool
  | .column _ => true
  | _ => false

/-- The top card of each non-empty column, with the position without it. -/
def fromColumns (s : State) : List (Card × Source × State) :=
  (List.range s.columns.length).flatMap fun i =>
    match s.columns.getD i [] with
    | [] => []
    | c :: rest => [(c, Source.column i, { s with columns := s.columns.set i rest })]

/-- The top card of each non-empty foundation, with the position without it. -/
def fromHome (s : State) : List (Card × Source × State) :=
  (List.range 4).flatMap fun suit =>
    match s.home.getD suit 0 with
    | 0 => []
    | r + 1 => [(Card.mk r suit, Source.home, { s with home := s.home.set suit r })]

/-- Every card that may be picked up, where from, and the position without it: the top card
of a column, any card in a free cell, and (only with `foundationMoves`) a foundation's top. -/
def pickups (s : State) : List (Card × Source × State) :=
  fromColumns s
    ++ s.cells.map (fun c => (c, Source.cell, { s with cells := s.cells.erase c }))
    ++ (if foundationMoves then fromHome s else [])

/-- Every position reached by putting `c`, picked up from `src`, down in `s` (the position
without it): on its foundation, on another column, or in an empty free cell. -/
def putdowns (c : Card) (src : Source) (s : State) : List State :=
  let toHome :=
    if mayGoHome src && canHome s.home c then
      [{ s with home := s.home.set c.suit (c.rank + 1) }]
    else []
  let toColumns := (List.range s.columns.length).flatMap fun j =>
    if mayGoToColumn src j && canLand c (s.columns.getD j []) then
      [{ s with columns := s.columns.set j (c :: s.columns.getD j []) }]
    else []
  let toCell :=
    if mayGoToCell src && decide (s.cells.length < freeCells) then
      [{ s with cells := insertCell c s.cells }]
    else []
  toHome ++ toColumns ++ toCell

/-- Every position one single-card move away. Nothing else is a move. -/
def moves (s : State) : List State :=
  (pickups s).flatMap fun (c, src, rest) => putdowns c src rest

/-- The positions reachable from the start. -/
inductive Reachable : State → Prop where
  | dealt : Reachable start
  | step (s t : State) : Reachable s → t ∈ moves s → Reachable t

/-! ## The certificate's positions: data, decoded (nothing from here on needs to be trusted)

`columnData`: every column used, as cards from bottom to top, one letter a card (A..Z for card
numbers 0..25, a..z for 26..51), `-` for the empty column, separated by spaces; a column's id
is its place in this list. `stateData`: the positions, separated by spaces, each the four
foundation counts as letters (A = 0), the cards in the free cells, `.`, then the ids of
columns 1..8, each `idWidth` letters read as base-52 digits (A = 0 .. z = 51). -/
""")

DEAL_START = Template(r"""/-! ## The deal, regenerated from its number

Microsoft's rand(), as numbered by FreeCell Pro (deals 1 .. 2^33 - 1). -/

def nextState (x : Nat) : Nat := (x * 214013 + 2531011) % 2 ^ 32

/-- What rand() returns for deal `n` once its state has become `x`. -/
def randValue (n x : Nat) : Nat :=
  if n < 2 ^ 31 then (x / 2 ^ 16) % 2 ^ 15
  else if n < 2 ^ 32 then (x / 2 ^ 16) % 2 ^ 15 + 2 ^ 15
  else (x / 2 ^ 16) % 2 ^ 16 + 1

/-- The cards in the order dealt: draw `deck[j]` with `j = rand() % (cards left)`, then move
the deck's last card into its place. -/
def shuffle : Nat → Nat → Nat → List Nat → List Nat
  | 0, _, _, _ => []
  | k + 1, n, x, deck =>
    let x' := nextState x
    let j := randValue n x' % deck.length
    deck.getD j 0 :: shuffle k n x' (deck.set j (deck.getLastD 0)).dropLast

/-- Card `i` of the shuffle goes on top of column `i % 8`; the first eight are the bottoms. -/
def deal (n : Nat) : List (List Card) :=
  let dealt := shuffle 52 n (if n < 2 ^ 32 then n else n - 2 ^ 32) (List.range 52)
  (List.range 8).map fun col =>
    (((List.range 52).filter (· % 8 == col)).map fun i => Card.ofNumber (dealt.getD i 0)).reverse

def start : State := ⟨[0, 0, 0, 0], [], deal $deal⟩""")

BOARD_START = Template(r"""/-! ## The start position, spelled out

Card numbers as in `Card.ofNumber`; columns 1..8 from the bottom card to the top:
$board_text -/

def start : State :=
  ⟨[$home], [$cells].map Card.ofNumber,
   ([$columns] : List (List Nat)).map fun col => (col.map Card.ofNumber).reverse⟩""")

FOOTER = Template(r"""
def idWidth : Nat := $width

def letterValue (ch : Char) : Nat :=
  if ch.isUpper then ch.toNat - 'A'.toNat else ch.toNat - 'a'.toNat + 26

def columnOf (word : String) : List Card :=
  ((word.toList.filter Char.isAlpha).map fun ch => Card.ofNumber (letterValue ch)).reverse

def columnTable : Array (List Card) := ((columnData.splitOn " ").map columnOf).toArray

def decodeState (record : String) : State :=
  match record.splitOn "." with
  | [head, ids] =>
    let column (k : Nat) : List Card :=
      let digits := (ids.toList.drop (k * idWidth)).take idWidth
      columnTable.getD (digits.foldl (fun n ch => n * 52 + letterValue ch) 0) []
    ⟨(head.toList.take 4).map letterValue,
     (head.toList.drop 4).map fun ch => Card.ofNumber (letterValue ch),
     (List.range 8).map column⟩
  | _ => ⟨[], [], []⟩

def certStates : List State := (stateData.splitOn " ").map decodeState

def certSet : Std.HashSet State := Std.HashSet.ofList certStates

/-! ## The check, and why it suffices -/

/-- What `checkCert` asks of each position: it is not won, and every move from it leads to a
position of the certificate. -/
def closedAt (s : State) : Bool := decide (¬ Won s) && (moves s).all certSet.contains

def checkCert : Bool := certSet.contains start && certStates.all closedAt

/-- What the hash set contains is in the list it was made from. (The alternatives cover the
names Lean has given the membership lemma; none of them is a deprecated one.) -/
theorem mem_of_contains {s : State} (h : certSet.contains s = true) : s ∈ certStates := by
  have h' : certStates.contains s = true := by
    simpa only [certSet, Std.HashSet.contains_ofList] using h
  first
  | exact List.elem_iff.mp h'
  | exact List.contains_iff_mem.mp h'
  | simpa using h'

theorem closedAt_spec {s : State} (h : closedAt s = true) :
    ¬ Won s ∧ ∀ t ∈ moves s, t ∈ certStates := by
  unfold closedAt at h
  rw [Bool.and_eq_true, List.all_eq_true] at h
  exact ⟨of_decide_eq_true h.1, fun t ht => mem_of_contains (h.2 t ht)⟩

/-- A set that holds the start, is closed under `moves` and holds no won position holds every
reachable position, so none is won: by induction on `Reachable`, not by computation. -/
theorem cert_sound (h : checkCert = true) : ∀ s, Reachable s → s ∈ certStates ∧ ¬ Won s := by
  unfold checkCert at h
  rw [Bool.and_eq_true, List.all_eq_true] at h
  have closed : ∀ s ∈ certStates, ¬ Won s ∧ ∀ t ∈ moves s, t ∈ certStates :=
    fun s hs => closedAt_spec (h.2 s hs)
  intro s hs
  induction hs with
  | dealt => exact ⟨mem_of_contains h.1, (closed _ (mem_of_contains h.1)).1⟩
  | step s t _ hmove ih =>
    have ht : t ∈ certStates := (closed s ih.1).2 t hmove
    exact ⟨ht, (closed t ht).1⟩

theorem checkCert_ok : checkCert = true := by decide +native

theorem $theorem : ∀ s, Reachable s → ¬ Won s :=
  fun s hs => (cert_sound checkCert_ok s hs).2

#print axioms $theorem

end FreeCell
""")


def header_comment(title, filename, start_what, count, symmetry_note):
    paragraphs = [
        f"Written by `certify export --lean` for Lean 4 ({LEAN_VERSION}), core and `Std` only. "
        f"Check it with `lean {filename}`. This file is not compiled by the project's CI, "
        f"which has no Lean toolchain; the Coq export (`certify export --coq`) is the one CI "
        f"checks.",
        f"What a reader must trust: the cards, {start_what}, `State`, the rules (`canStack`, "
        f"`canHome`, `moves`), `Reachable`, `Won`, and the statement of the last theorem.",
        f"What a reader need not trust: the certificate's {count} positions (data), their "
        f"decoding, `checkCert` and the proofs. `cert_sound` is proved by induction on "
        f"`Reachable` for whatever `certStates` holds, given only that `checkCert` is true. "
        f"That is established by `decide +native` (the same as `native_decide`), which runs "
        f"compiled code and so trusts Lean's compiler as well as its kernel; `#print axioms` "
        f"at the end lists the axiom this adds.",
        symmetry_note]
    body = "\n\n".join(textwrap.fill(p, 96, break_on_hyphens=False) for p in paragraphs)
    return f"/-!\n# {title}\n\n{body}\n-/"


def theorem_name(deal):
    return f"deal_{deal}_unwinnable" if deal is not None else "board_unwinnable"


def statement(deal):
    """The final theorem's statement exactly as the file writes it."""
    return f"theorem {theorem_name(deal)} : ∀ s, Reachable s → ¬ Won s :="


def letters(cards):
    return "".join(LETTERS[c] for c in cards)


def id_width(count):
    width = 1
    while 52 ** width < count:
        width += 1
    return width


def base52(n, width):
    digits = []
    for _ in range(width):
        n, d = divmod(n, 52)
        digits.append(LETTERS[d])
    return "".join(reversed(digits))


def numbers(cards):
    return ", ".join(str(c) for c in cards)


def start_section(deal, start):
    if deal is not None:
        return DEAL_START.substitute(deal=deal)
    found, cells, cols = start
    board_text = describe(start, "    ")
    return BOARD_START.substitute(
        board_text=board_text, home=numbers(found), cells=numbers(cells),
        columns=",\n     ".join(f"[{numbers(col)}]" for col in cols))


def data_strings(positions):
    """(columnData, stateData, id width) for fixed-column positions (bottom-to-top columns)."""
    table = sorted({bytes(c) for p in positions for c in p[2]})
    ids = {c: i for i, c in enumerate(table)}
    width = id_width(len(table))
    column_data = " ".join(letters(c) or "-" for c in table)
    records = sorted(
        (LETTERS[found[0]] + LETTERS[found[1]] + LETTERS[found[2]] + LETTERS[found[3]]
         + letters(sorted(cells)) + "." + "".join(base52(ids[bytes(c)], width) for c in cols))
        for found, cells, cols in positions)
    return column_data, " ".join(records), width


def lean_file(head, start, positions, symmetry_note, filename):
    """The text of the Lean 4 file proving that no position reachable from `start` is won."""
    deal = head["deal"]
    title = (f"FreeCell deal {deal} cannot be won" if deal is not None else
             "This FreeCell layout cannot be won")
    setting = (f"{head['cells']} free cells, single-card moves" +
               (", foundation moves allowed" if head["foundation_moves"] else ""))
    column_data, state_data, width = data_strings(positions)
    header = HEADER.substitute(
        header=header_comment(
            f"{title} ({setting})", filename,
            "the deal (regenerated from its number)" if deal is not None else "the start position",
            f"{len(positions):,}", symmetry_note),
        start_section=start_section(deal, start), free_cells=head["cells"],
        foundation_moves="true" if head["foundation_moves"] else "false")
    data = (f'def columnData : String :=\n  "{column_data}"\n\n'
            f'def stateData : String :=\n  "{state_data}"\n')
    return header + "\n" + data + FOOTER.substitute(width=width, theorem=theorem_name(deal))

(** What vcheck prints, from Coq: the verdict on one certificate and its sentence.

    The driver parses the header (untrusted) into the deal, the free cells, the
    foundation-moves rule and the certificate's data ([data]: a win's line, or a no-win's
    records with its symmetry and closure), and hands them to [verdict], which runs the proved
    check and, when it holds, returns the very text printed after [VERIFIED: ].
    [verdict_sound]: that text is [win_sentence] or [nowin_sentence] of the deal, cells and
    rule the check was run on, and what it says holds of [Reachable] and [Won].

    A no-win's records may be checked in slices, some of them in other processes: [run lo hi]
    is what the process that checked the slice [lo .. hi] returned ([runs_sound] is that
    promise, kept by the driver's forking lines); with [run = None] every slice is checked
    here, and the promise is void. *)

From Coq Require Import List NArith Arith Bool Lia.
From Coq Require Ascii.
From Coq Require Import String.
From VCheck Require Import Rules Check.
From VCheck Require Import Autoplay.
Import ListNotations.

Local Open Scope string_scope.
Local Open Scope N_scope.   (* after: [<?] and the numbers are N's, [++] and "" strings *)

(** * Numbers in words: decimal, and with a comma between thousands *)

Definition digit (n : N) : Ascii.ascii := Ascii.ascii_of_N (48 + n).

Fixpoint decimal_from (fuel : nat) (n : N) (acc : String.string) : String.string :=
  match fuel with
  | O => acc
  | S f =>
      let acc' := String.String (digit (n mod 10)) acc in
      if n <? 10 then acc' else decimal_from f (n / 10) acc'
  end.

Definition decimal (n : N) : String.string := decimal_from 64%nat n "".

(** [n] below 1000, in three digits. *)
Definition three (n : N) : String.string :=
  String.String (digit (n / 100))
    (String.String (digit (n / 10 mod 10)) (String.String (digit (n mod 10)) "")).

Fixpoint commas_from (fuel : nat) (n : N) (acc : String.string) : String.string :=
  match fuel with
  | O => acc
  | S f =>
      if n <? 1000 then decimal n ++ acc
      else commas_from f (n / 1000) ("," ++ three (n mod 1000) ++ acc)
  end.

Definition commas (n : N) : String.string := commas_from 32%nat n "".

Definition plural (n : N) (word : String.string) : String.string :=
  commas n ++ " " ++ word ++ (if n =? 1 then "" else "s").

(** * The sentences *)

Definition rules_words (fc : nat) (fm : bool) : String.string :=
  decimal (N.of_nat fc) ++ " free cell" ++ (if Nat.eqb fc 1 then "" else "s")
  ++ ", single-card moves, "
  ++ (if fm then "a foundation's top card may go back onto a column"
      else "no moves off foundations").

(** The start's name: the deal's number (a custom layout's build names the file instead). *)
Definition who (deal_number : N) (name : String.string) : String.string :=
  if deal_number <? 2147483648 then "Microsoft FreeCell deal " ++ decimal deal_number
  else "FreeCell Pro's extended deal " ++ decimal deal_number.

Definition win_sentence (deal_number : N) (name : String.string) (fc : nat) (fm : bool)
           (n : N) : String.string :=
  who deal_number name ++ " (" ++ rules_words fc fm ++ ") can be won: "
  ++ plural n "single-card move" ++ " replay" ++ (if n =? 1 then "s" else "")
  ++ " to a won position".

Definition nowin_sentence (deal_number : N) (name : String.string) (fc : nat) (fm : bool)
           (autoplay : bool) (n : N) : String.string :=
  who deal_number name ++ " (" ++ rules_words fc fm ++ ") cannot be won: "
  ++ plural n "position" ++ " closed under "
  ++ (if autoplay then "every legal move then safe autoplay" else "every legal move")
  ++ ", none won".

(** * The verdict *)

Inductive data :=
  | Line (line : list (card * nat))
  | Records (sorted autoplay : bool) (T : table) (R : records) (bounds : list N)
            (run : option (N -> N -> bool)).

(** The records [lo .. hi] closed, under every move or every move then safe autoplay. *)
Definition slice_ok (sorted autoplay : bool) (fc : nat) (fm : bool) (T : table) (R : records)
           (lo hi : N) : bool :=
  if autoplay then slice_closed_ap T R sorted fc 64 lo hi
  else slice_closed T R sorted fc fm 64 lo hi.

Definition start_ok (deal_number : N) (fm sorted autoplay : bool) (T : table) (R : records)
  : bool :=
  if autoplay then start_held_ap T R sorted deal_number fm else start_held T R sorted deal_number.

Fixpoint slices_by (run : N -> N -> bool) (lo : N) (bounds : list N) (hi : N) : bool :=
  match bounds with
  | [] => run lo hi
  | b :: rest => run lo b && slices_by run b rest hi
  end.

Lemma slices_by_spec (P : N -> Prop) run bounds :
  (forall lo hi, run lo hi = true -> forall j, lo <= j < hi -> P j) ->
  forall lo hi, slices_by run lo bounds hi = true -> forall j, lo <= j < hi -> P j.
Proof.
  intros Hrun; induction bounds as [|b rest IH]; intros lo hi H j Hj; simpl in H.
  { exact (Hrun _ _ H _ Hj). }
  apply andb_true_iff in H as [H1 H2]; destruct (N.ltb_spec j b).
  - apply (Hrun _ _ H1); lia.
  - apply (IH _ _ H2); lia.
Qed.

(** What the driver promises of the slices checked elsewhere. *)
Definition runs_sound (fc : nat) (fm : bool) (d : data) : Prop :=
  match d with
  | Records sorted autoplay T R _ (Some run) =>
      forall lo hi, run lo hi = true -> slice_ok sorted autoplay fc fm T R lo hi = true
  | _ => True
  end.

(** [Some true]: the line wins; [Some false]: the records prove no win; [None]: neither. *)
Definition decide (deal_number : N) (fc : nat) (fm : bool) (d : data) : option bool :=
  match d with
  | Line line => if check_win deal_number fc fm line then Some true else None
  | Records sorted autoplay T R bounds run =>
      let run' := match run with Some r => r | None => slice_ok sorted autoplay fc fm T R end in
      if start_ok deal_number fm sorted autoplay T R && slices_by run' 0 bounds (count R)
      then Some false else None
  end.

Definition holds (deal_number : N) (fc : nat) (fm : bool) (won : bool) : Prop :=
  if won then exists s, Reachable deal_number fc fm s /\ Won s
  else forall s, Reachable deal_number fc fm s -> ~ Won s.

(* (Stated apart: the kernel is slow to see through [slice_ok] unfolded in a hypothesis.) *)
Lemma slice_ok_ap sorted fc fm T R lo hi :
  slice_ok sorted true fc fm T R lo hi = slice_closed_ap T R sorted fc 64 lo hi.
Proof. reflexivity. Qed.

Lemma slice_ok_moves sorted fc fm T R lo hi :
  slice_ok sorted false fc fm T R lo hi = slice_closed T R sorted fc fm 64 lo hi.
Proof. reflexivity. Qed.

Lemma nowin_by (deal_number : N) fc fm sorted autoplay T R bounds run :
  (forall lo hi, run lo hi = true -> slice_ok sorted autoplay fc fm T R lo hi = true) ->
  start_ok deal_number fm sorted autoplay T R = true ->
  slices_by run 0 bounds (count R) = true ->
  forall s, Reachable deal_number fc fm s -> ~ Won s.
Proof.
  intros Hrun Start Slices; destruct autoplay; unfold start_ok in Start.
  - apply (nowin_autoplay_of deal_number fc fm sorted T R Start); intros j Hj.
    apply (slices_by_spec (fun j => record_closed_ap T R sorted fc j = true) run bounds)
      with (lo := 0) (hi := count R); [|exact Slices|lia].
    intros lo hi H k Hk; specialize (Hrun lo hi H); rewrite slice_ok_ap in Hrun.
    exact (slice_closed_ap_spec T R sorted fc 64 lo hi Hrun k Hk).
  - apply (none_won T R sorted deal_number fc fm); [|exact Start]; intros j Hj.
    apply (slices_by_spec (fun j => record_closed T R sorted fc fm j = true) run bounds)
      with (lo := 0) (hi := count R); [|exact Slices|lia].
    intros lo hi H k Hk; specialize (Hrun lo hi H); rewrite slice_ok_moves in Hrun.
    exact (slice_closed_spec T R sorted fc fm 64 lo hi Hrun k Hk).
Qed.

Theorem decide_sound (deal_number : N) fc fm d b :
  runs_sound fc fm d -> decide deal_number fc fm d = Some b -> holds deal_number fc fm b.
Proof.
  intros Runs; destruct d as [line | sorted autoplay T R bounds [run|]]; unfold decide.
  - destruct (check_win deal_number fc fm line) eqn:E; [|discriminate].
    intros H; injection H as <-; exact (win_sound _ _ _ _ E).
  - destruct (start_ok deal_number fm sorted autoplay T R && slices_by run 0 bounds (count R))
      eqn:E; [|discriminate].
    intros H; injection H as <-; apply andb_true_iff in E as [Start Slices].
    exact (nowin_by deal_number fc fm sorted autoplay T R bounds run Runs Start Slices).
  - destruct (start_ok deal_number fm sorted autoplay T R
              && slices_by (slice_ok sorted autoplay fc fm T R) 0 bounds (count R))
      eqn:E; [|discriminate].
    intros H; injection H as <-; apply andb_true_iff in E as [Start Slices].
    exact (nowin_by deal_number fc fm sorted autoplay T R bounds _ (fun _ _ H => H)
             Start Slices).
Qed.

(** [acc] plus the length of [l], counted in [N] a step at a time: a loop once extracted, where
    [N.of_nat (List.length l)] recurses as deep as [l] is long, deeper than the web page's
    JavaScript stack for a line of a hundred thousand moves. *)
Fixpoint length_from {A} (l : list A) (acc : N) : N :=
  match l with
  | [] => acc
  | _ :: rest => length_from rest (N.succ acc)
  end.

Lemma length_from_length {A} (l : list A) : length_from l 0 = N.of_nat (List.length l).
Proof.
  assert (E : forall acc, length_from l acc = acc + N.of_nat (List.length l)).
  { induction l as [|x l IH]; intros acc; cbn [length_from List.length]; [lia|].
    rewrite IH, Nat2N.inj_succ; lia. }
  rewrite E; reflexivity.
Qed.

(** The number the sentence gives: a win's moves, a no-win's records. *)
Definition size (d : data) : N :=
  match d with
  | Line line => length_from line 0
  | Records _ _ _ R _ _ => count R
  end.

Lemma size_line line : size (Line line) = N.of_nat (List.length line).
Proof. exact (length_from_length line). Qed.

Definition autoplay_of (d : data) : bool :=
  match d with Records _ a _ _ _ _ => a | Line _ => false end.

(** The text printed after [VERIFIED: ], or [None]: the certificate proves nothing. *)
Definition verdict (deal_number : N) (name : String.string) (fc : nat) (fm : bool) (d : data)
  : option String.string :=
  match decide deal_number fc fm d with
  | Some true => Some (win_sentence deal_number name fc fm (size d))
  | Some false => Some (nowin_sentence deal_number name fc fm (autoplay_of d) (size d))
  | None => None
  end.

Theorem verdict_sound (deal_number : N) name fc fm d text :
  runs_sound fc fm d -> verdict deal_number name fc fm d = Some text ->
  (exists n, text = win_sentence deal_number name fc fm n
             /\ exists s, Reachable deal_number fc fm s /\ Won s)
  \/ (exists autoplay n, text = nowin_sentence deal_number name fc fm autoplay n
             /\ forall s, Reachable deal_number fc fm s -> ~ Won s).
Proof.
  intros Runs; unfold verdict.
  destruct (decide deal_number fc fm d) as [[|]|] eqn:E; try discriminate;
    injection 1 as <-; pose proof (decide_sound deal_number fc fm d _ Runs E) as H; simpl in H.
  - left; exists (size d); split; [reflexivity | exact H].
  - right; exists (autoplay_of d), (size d); split; [reflexivity | exact H].
Qed.

(** A range certificate's verdict and sentence, from Coq.

    Entry [i] of a range is about deal [first + i]: [entry_result first i] is [decide] of that
    deal on the entry's data.  The driver reads the entries in turn (in one process, or split
    among several) and keeps what [entry_result] returned for each; [range_verdict] reads
    those results, each once and in order, and returns the printed text and the deals it
    names as unwinnable.  [range_verdict_sound]: when every result came from [entry_result]
    (the driver's promise, [results_sound]), every deal of [first .. last] has its result,
    each holds, and the deals named are exactly those of [first .. last] that cannot be won. *)

From Coq Require Import List NArith Arith Bool Lia.
From Coq Require Import String.
From VCheck Require Import Rules Check Verdict.
Import ListNotations.

Local Open Scope N_scope.

Definition entry_result (first i : N) (fc : nat) (fm : bool) (d : data) : option bool :=
  decide (first + i) fc fm d.

Definition results_sound (first : N) (fc : nat) (fm : bool) (result : N -> option bool)
  : Prop :=
  forall i b, result i = Some b ->
  exists d, runs_sound fc fm d /\ entry_result first i fc fm d = Some b.

(** Results [k], [k + 1], ... below [hi], up to [2 ^ b] of them, each asked once and in
    order; the deals that cannot be won put before [lost]. *)
Fixpoint walk (b : nat) (first hi k : N) (result : N -> option bool) (lost : list N)
  : option (N * list N) :=
  match b with
  | O =>
      if k <? hi then
        match result k with
        | Some true => Some (N.succ k, lost)
        | Some false => Some (N.succ k, (first + k) :: lost)
        | None => None
        end
      else Some (k, lost)
  | S b' =>
      if hi <=? k then Some (k, lost)
      else match walk b' first hi k result lost with
           | Some (k', lost') => walk b' first hi k' result lost'
           | None => None
           end
  end.

Lemma walk_spec b first hi result : forall k lost k' lost',
  walk b first hi k result lost = Some (k', lost') ->
  k <= k' /\ (forall j, k <= j < k' -> result j <> None) /\
  (forall d, In d lost' <->
             In d lost \/ exists j, k <= j < k' /\ result j = Some false /\ d = first + j).
Proof.
  induction b as [|b IH]; intros k lost k' lost' H; simpl in H.
  - destruct (N.ltb_spec k hi).
    + destruct (result k) as [[|]|] eqn:R; [| |discriminate]; injection H as <- <-;
        (split; [lia | split]).
      * intros j Hj; replace j with k by lia; congruence.
      * intros d; split; [tauto|]; intros [I | [j [Hj [Rj _]]]]; [exact I|].
        replace j with k in Rj by lia; congruence.
      * intros j Hj; replace j with k by lia; congruence.
      * intros d; split.
        -- intros [<- | I]; [right; exists k; repeat split; auto; lia | left; exact I].
        -- intros [I | [j [Hj [Rj ->]]]]; [right; exact I|].
           replace j with k by lia; left; reflexivity.
    + injection H as <- <-; split; [lia | split; [intros; lia|]].
      intros d; split; [tauto|]; intros [I | [j [Hj _]]]; [exact I | lia].
  - destruct (N.leb_spec hi k).
    { injection H as <- <-; split; [lia | split; [intros; lia|]].
      intros d; split; [tauto|]; intros [I | [j [Hj _]]]; [exact I | lia]. }
    destruct (walk b first hi k result lost) as [[m l]|] eqn:E; [|discriminate].
    destruct (IH _ _ _ _ E) as [L1 [C1 M1]], (IH _ _ _ _ H) as [L2 [C2 M2]].
    split; [lia | split].
    + intros j Hj; destruct (N.ltb_spec j m); [apply C1 | apply C2]; lia.
    + intros d; rewrite M2, M1; split.
      * intros [[I | [j [Hj R]]] | [j [Hj R]]]; [left; exact I | right | right];
          exists j; split; [lia | exact R | lia | exact R].
      * intros [I | [j [Hj R]]]; [left; left; exact I|].
        destruct (N.ltb_spec j m); [left; right | right]; exists j; split; auto; lia.
Qed.

(** The deals of [first .. last] that cannot be won, in order, when every entry's result is
    there. *)
Definition check_range (first last : N) (result : N -> option bool) : option (list N) :=
  if first <=? last then
    match walk 64 first (last - first + 1) 0 result [] with
    | Some (k, lost) => if k =? last - first + 1 then Some (rev' lost) else None
    | None => None
    end
  else None.

Definition range_holds (first last : N) (fc : nat) (fm : bool) (result : N -> option bool)
           (lost : list N) : Prop :=
  (forall i, i < last - first + 1 -> result i <> None) /\
  (forall d, first <= d <= last -> holds d fc fm true \/ holds d fc fm false) /\
  (forall d, In d lost <-> first <= d <= last /\ forall s, Reachable d fc fm s -> ~ Won s).

Theorem check_range_sound first last fc fm result lost :
  results_sound first fc fm result -> check_range first last result = Some lost ->
  range_holds first last fc fm result lost.
Proof.
  intros Sound; unfold check_range.
  destruct (N.leb_spec first last) as [Le|]; [|discriminate].
  destruct (walk 64 first (last - first + 1) 0 result []) as [[k l]|] eqn:W; [|discriminate].
  destruct (N.eqb_spec k (last - first + 1)) as [->|]; [|discriminate].
  injection 1 as <-; unfold rev'; rewrite <- rev_alt.
  destruct (walk_spec _ _ _ _ _ _ _ _ W) as [_ [Cover M]].
  assert (Of : forall i b, result i = Some b -> holds (first + i) fc fm b).
  { intros i b R; destruct (Sound i b R) as [d [Rd E]]; exact (decide_sound _ _ _ _ _ Rd E). }
  assert (Each : forall d, first <= d <= last -> exists b, result (d - first) = Some b).
  { intros d Hd; destruct (result (d - first)) as [b|] eqn:R; [exists b; reflexivity|].
    exfalso; apply (Cover (d - first)); [lia | exact R]. }
  split; [intros i Hi; apply Cover; lia | split].
  - intros d Hd; destruct (Each d Hd) as [b R]; apply Of in R.
    replace (first + (d - first)) with d in R by lia; destruct b; [left | right]; exact R.
  - intros d; rewrite <- in_rev, M; split.
    + intros [[] | [j [Hj [R ->]]]]; split; [lia|]; apply Of in R; exact R.
    + intros [Hd Lost]; right; exists (d - first); split; [lia|].
      destruct (Each d Hd) as [[|] R]; [|split; [exact R | lia]].
      apply Of in R; replace (first + (d - first)) with d in R by lia.
      destruct R as [s [Rs Ws]]; exfalso; exact (Lost s Rs Ws).
Qed.

(** * The sentence *)

Local Open Scope string_scope.
Local Open Scope N_scope.

Definition deals_words (first last : N) : String.string :=
  if last <? 2147483648 then "Microsoft FreeCell deals"
  else if 2147483648 <=? first then "FreeCell Pro's extended deals"
  else "FreeCell Pro's deals".

Fixpoint listed (l : list N) : String.string :=
  match l with
  | [] => ""
  | [d] => decimal d
  | d :: rest => decimal d ++ ", " ++ listed rest
  end.

Definition range_sentence (first last : N) (fc : nat) (fm : bool) (lost : list N)
  : String.string :=
  let k := N.of_nat (List.length lost) in
  "of " ++ deals_words first last ++ " " ++ commas first ++ ".." ++ commas last
  ++ " (" ++ rules_words fc fm ++ ") exactly " ++ commas k ++ " cannot be won"
  ++ (match lost with [] => "" | _ => ": " end) ++ listed lost
  ++ "; each of the other " ++ commas (last - first + 1 - k) ++ " is won by a line that replays".

(** The same sentence, built so that no recursion is as deep as the list of deals or the text
    is long (the web page's JavaScript stack is shallow): the deals are listed from the last,
    each put before the text that follows it ([listed_onto]), and counted in [N] a step at a
    time ([length_from]). *)

Lemma sapp_assoc (a b c : string) : ((a ++ b) ++ c)%string = (a ++ b ++ c)%string.
Proof. induction a as [|x a IH]; simpl; [reflexivity | rewrite IH; reflexivity]. Qed.

(** [listed] of the list given backwards as [back], before [acc]. *)
Fixpoint listed_onto (back : list N) (acc : String.string) : String.string :=
  match back with
  | [] => acc
  | [d] => decimal d ++ acc
  | d :: rest => listed_onto rest (", " ++ decimal d ++ acc)
  end.

Lemma listed_cons a b l : listed (a :: b :: l) = decimal a ++ ", " ++ listed (b :: l).
Proof. reflexivity. Qed.

Lemma listed_snoc l d acc : l <> [] ->
  listed (l ++ [d]) ++ acc = listed l ++ ", " ++ decimal d ++ acc.
Proof.
  intros NE; induction l as [|a l IH]; [contradiction|].
  destruct l as [|b l].
  - change ((decimal a ++ ", " ++ decimal d) ++ acc = decimal a ++ ", " ++ decimal d ++ acc).
    rewrite !sapp_assoc; reflexivity.
  - change (listed (a :: b :: (l ++ [d])) ++ acc
            = listed (a :: b :: l) ++ ", " ++ decimal d ++ acc).
    rewrite !listed_cons, !sapp_assoc, <- IH by discriminate; reflexivity.
Qed.

Lemma listed_onto_spec back acc : listed_onto back acc = listed (rev back) ++ acc.
Proof.
  revert acc; induction back as [|d rest IH]; intros acc; [reflexivity|].
  destruct rest as [|e rest]; [reflexivity|].
  change (listed_onto (e :: rest) (", " ++ decimal d ++ acc)
          = listed (rev (e :: rest) ++ [d]) ++ acc).
  rewrite IH, (listed_snoc (rev (e :: rest)) d acc); [reflexivity|].
  intros E; apply (f_equal (@List.length N)) in E; rewrite rev_length in E; discriminate E.
Qed.

Definition range_text (first last : N) (fc : nat) (fm : bool) (lost : list N)
  : String.string :=
  let k := length_from lost 0 in
  "of " ++ deals_words first last ++ " " ++ commas first ++ ".." ++ commas last
  ++ " (" ++ rules_words fc fm ++ ") exactly " ++ commas k ++ " cannot be won"
  ++ (match lost with [] => "" | _ => ": " end)
  ++ listed_onto (rev' lost)
       ("; each of the other " ++ commas (last - first + 1 - k)
        ++ " is won by a line that replays").

Lemma range_text_sentence first last fc fm lost :
  range_text first last fc fm lost = range_sentence first last fc fm lost.
Proof.
  unfold range_text, range_sentence, rev'; cbv zeta.
  rewrite length_from_length, <- rev_alt, listed_onto_spec, rev_involutive; reflexivity.
Qed.

(** The text printed after [VERIFIED: ], and the deals it names. *)
Definition range_verdict (first last : N) (fc : nat) (fm : bool) (result : N -> option bool)
  : option (String.string * list N) :=
  match check_range first last result with
  | Some lost => Some (range_text first last fc fm lost, lost)
  | None => None
  end.

Theorem range_verdict_sound first last fc fm result text lost :
  results_sound first fc fm result ->
  range_verdict first last fc fm result = Some (text, lost) ->
  text = range_sentence first last fc fm lost /\ range_holds first last fc fm result lost.
Proof.
  intros Sound; unfold range_verdict.
  destruct (check_range first last result) as [l|] eqn:E; [|discriminate].
  injection 1 as <- <-; split;
    [apply range_text_sentence | exact (check_range_sound _ _ _ _ _ _ Sound E)].
Qed.

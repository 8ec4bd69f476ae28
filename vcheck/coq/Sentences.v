(** The printed sentences name one claim each: no two different claims give the same text.

    [verdict] and [range_verdict] (coq/Verdict.v, coq/Range.v) return the text printed after
    [VERIFIED: ]; [verdict_sound] and [range_verdict_sound] say what it claims holds.  Here,
    the other way: the text gives back the claim.  Two win sentences are equal only for the
    same deal, free cells, foundation-moves rule and count of moves ([win_sentence_inj]), two
    no-win sentences only for the same deal, cells, rule, closure and count of records
    ([nowin_sentence_inj]), two range sentences only for the same first and last deals, cells,
    rule and list of deals that cannot be won ([range_sentence_inj]); and no text is two kinds
    of sentence ([win_nowin_differ], [range_deal_differ]).  So a reader who reads back the
    numbers and words of a line reads the claim the theorem is about.

    The numbers are read back by [read] (the digits in order, commas skipped): [decimal] and
    [commas] write with fuel enough for every number below 2 ^ 64 ([fits]); the driver's
    numbers are OCaml ints, below 2 ^ 62.  A custom layout's sentence names the layout's file,
    which may hold any text, so it is not covered: these are the numbered deals'. *)

From Coq Require Import List NArith Arith Bool Lia.
From Coq Require Import Ascii String.
From VCheck Require Import Verdict Range.
Import ListNotations.

Local Open Scope N_scope.

(** * Strings *)

Lemma sapp_cancel (p s t : string) : (p ++ s)%string = (p ++ t)%string -> s = t.
Proof. induction p as [|x p IH]; simpl; [auto | intros H; injection H; auto]. Qed.

(** * Numbers read back *)

Definition is_digit (c : Ascii.ascii) : bool :=
  (48 <=? Ascii.N_of_ascii c) && (Ascii.N_of_ascii c <=? 57).

(** The characters of a number as [commas] writes it ([decimal] writes digits only). *)
Definition numeral (c : Ascii.ascii) : bool := is_digit c || Ascii.eqb c ","%char.

Fixpoint all_of (p : Ascii.ascii -> bool) (s : string) : bool :=
  match s with EmptyString => true | String c s' => p c && all_of p s' end.

Definition starts_other (p : Ascii.ascii -> bool) (s : string) : bool :=
  match s with EmptyString => true | String c _ => negb (p c) end.

Lemma all_of_app p s t :
  all_of p (s ++ t) = true <-> all_of p s = true /\ all_of p t = true.
Proof.
  induction s as [|c s IH]; simpl; [tauto|]; rewrite !andb_true_iff, IH; tauto.
Qed.

Lemma all_of_digits s : all_of is_digit s = true -> all_of numeral s = true.
Proof.
  induction s as [|c s IH]; simpl; auto.
  intros H; apply andb_true_iff in H as [H1 H2]; rewrite IH by exact H2.
  unfold numeral at 1; rewrite H1; reflexivity.
Qed.

(** A number's characters end where the next word begins. *)
Lemma word_cancel p u v s t :
  all_of p u = true -> all_of p v = true -> starts_other p s = true ->
  starts_other p t = true -> (u ++ s)%string = (v ++ t)%string -> u = v /\ s = t.
Proof.
  revert v; induction u as [|c u IH]; intros [|c' v] U V S T H; simpl in *; auto.
  - subst s; simpl in S; apply andb_true_iff in V as [V _]; rewrite V in S; discriminate.
  - subst t; simpl in T; apply andb_true_iff in U as [U _]; rewrite U in T; discriminate.
  - injection H as <- H; apply andb_true_iff in U as [_ U], V as [_ V].
    destruct (IH v U V S T H) as [<- <-]; auto.
Qed.

(** The number a string of digits and commas spells, after [v] (commas are skipped). *)
Fixpoint read (s : string) (v : N) : N :=
  match s with
  | EmptyString => v
  | String c s' =>
      if Ascii.eqb c ","%char then read s' v else read s' (v * 10 + (Ascii.N_of_ascii c - 48))
  end.

Lemma read_app s t v : read (s ++ t) v = read t (read s v).
Proof. revert v; induction s as [|c s IH]; simpl; intros v; [|destruct Ascii.eqb]; auto. Qed.

Lemma digit_spec k : k < 10 ->
  is_digit (digit k) = true /\ Ascii.eqb (digit k) ","%char = false /\
  Ascii.N_of_ascii (digit k) - 48 = k.
Proof.
  intros K; unfold is_digit, digit; rewrite Ascii.N_ascii_embedding by lia.
  destruct (Ascii.eqb_spec (Ascii.ascii_of_N (48 + k)) ","%char) as [E|E].
  - apply (f_equal Ascii.N_of_ascii) in E; rewrite Ascii.N_ascii_embedding in E by lia.
    change (Ascii.N_of_ascii ","%char) with 44 in E; lia.
  - repeat split; [apply andb_true_iff; split; apply N.leb_le|]; lia.
Qed.

Lemma pow10_succ f : 10 ^ N.of_nat (S f) = 10 * 10 ^ N.of_nat f.
Proof. rewrite Nat2N.inj_succ, N.pow_succ_r'; reflexivity. Qed.

Lemma decimal_from_spec f : forall n acc, n < 10 ^ N.of_nat f ->
  exists u, decimal_from f n acc = (u ++ acc)%string /\ all_of is_digit u = true /\
            read (decimal_from f n acc) 0 = read acc n.
Proof.
  induction f as [|f IH]; intros n acc L; simpl decimal_from.
  - exists ""%string; simpl in L; replace n with 0 by lia; auto.
  - rewrite pow10_succ in L.
    destruct (digit_spec (n mod 10) (N.mod_lt n 10 ltac:(lia))) as [D1 [D2 D3]].
    destruct (N.ltb_spec n 10) as [Small | Big].
    + exists (String (digit (n mod 10)) ""%string); simpl; rewrite D1, D2, D3; repeat split.
      rewrite N.mod_small by lia; f_equal; lia.
    + destruct (IH (n / 10) (String (digit (n mod 10)) acc)) as [u [E [U R]]].
      { apply N.div_lt_upper_bound; lia. }
      exists (u ++ String (digit (n mod 10)) ""%string)%string; rewrite E, sapp_assoc; simpl.
      rewrite all_of_app; simpl; rewrite U, D1; repeat split.
      rewrite <- E, R; simpl; rewrite D2, D3.
      rewrite (N.div_mod n 10) at 3 by lia; f_equal; lia.
Qed.

Lemma two64_bound : 2 ^ 64 < 10 ^ N.of_nat 64.
Proof. reflexivity. Qed.

Lemma sapp_nil_r s : (s ++ "")%string = s.
Proof. induction s as [|c s IH]; simpl; [|rewrite IH]; reflexivity. Qed.

Lemma decimal_spec n : n < 2 ^ 64 -> all_of is_digit (decimal n) = true /\ read (decimal n) 0 = n.
Proof.
  intros L; unfold decimal.
  destruct (decimal_from_spec 64 n "" ltac:(pose proof two64_bound; lia)) as [u [E [U R]]].
  rewrite R, E, sapp_nil_r; auto.
Qed.

Lemma decimal_inj a b : a < 2 ^ 64 -> b < 2 ^ 64 -> decimal a = decimal b -> a = b.
Proof.
  intros A B E; rewrite <- (proj2 (decimal_spec a A)), <- (proj2 (decimal_spec b B)), E.
  reflexivity.
Qed.

Lemma three_spec r v :
  r < 1000 -> all_of numeral (three r) = true /\ read (three r) v = v * 1000 + r.
Proof.
  intros L; unfold three.
  destruct (digit_spec (r / 100)) as [A1 [A2 A3]]; [apply N.div_lt_upper_bound; lia|].
  destruct (digit_spec (r / 10 mod 10)) as [B1 [B2 B3]]; [apply N.mod_lt; lia|].
  destruct (digit_spec (r mod 10)) as [C1 [C2 C3]]; [apply N.mod_lt; lia|].
  simpl; unfold numeral; rewrite A1, B1, C1, A2, B2, C2, A3, B3, C3; split; [reflexivity|].
  pose proof (N.div_mod r 10 ltac:(lia)) as D1.
  pose proof (N.div_mod (r / 10) 10 ltac:(lia)) as D2.
  rewrite N.div_div in D2 by lia; change (10 * 10) with 100 in D2.
  lia.
Qed.

Lemma commas_from_spec f : forall n acc, n < 1000 ^ N.of_nat f ->
  exists u, commas_from f n acc = (u ++ acc)%string /\ all_of numeral u = true /\
            read (commas_from f n acc) 0 = read acc n.
Proof.
  induction f as [|f IH]; intros n acc L; cbn [commas_from].
  - exists ""%string; simpl in L; replace n with 0 by lia; auto.
  - rewrite Nat2N.inj_succ, N.pow_succ_r' in L.
    destruct (N.ltb_spec n 1000) as [Small | Big].
    + destruct (decimal_spec n ltac:(lia)) as [U R].
      exists (decimal n); repeat split; auto using all_of_digits; rewrite read_app, R; reflexivity.
    + destruct (three_spec (n mod 1000) (n / 1000) (N.mod_lt n 1000 ltac:(lia))) as [T R3].
      destruct (IH (n / 1000) ("," ++ three (n mod 1000) ++ acc)%string) as [u [E [U R]]].
      { apply N.div_lt_upper_bound; lia. }
      exists (u ++ "," ++ three (n mod 1000))%string; rewrite E, !sapp_assoc.
      split; [reflexivity | split].
      { rewrite all_of_app, U; split; [reflexivity|].
        change (numeral ","%char && all_of numeral (three (n mod 1000)) = true).
        rewrite T; reflexivity. }
      rewrite <- E, R.
      change (read (three (n mod 1000) ++ acc) (n / 1000) = read acc n).
      rewrite read_app, R3.
      rewrite (N.div_mod n 1000) at 3 by lia; f_equal; lia.
Qed.

Lemma two64_commas : 2 ^ 64 < 1000 ^ N.of_nat 32.
Proof. reflexivity. Qed.

Lemma commas_spec n : n < 2 ^ 64 -> all_of numeral (commas n) = true /\ read (commas n) 0 = n.
Proof.
  intros L; unfold commas.
  destruct (commas_from_spec 32 n "" ltac:(pose proof two64_commas; lia)) as [u [E [U R]]].
  rewrite R, E, sapp_nil_r; auto.
Qed.

Lemma commas_inj a b : a < 2 ^ 64 -> b < 2 ^ 64 -> commas a = commas b -> a = b.
Proof.
  intros A B E; rewrite <- (proj2 (commas_spec a A)), <- (proj2 (commas_spec b B)), E.
  reflexivity.
Qed.

Lemma decimal_then a b s t :
  a < 2 ^ 64 -> b < 2 ^ 64 -> starts_other is_digit s = true -> starts_other is_digit t = true ->
  (decimal a ++ s)%string = (decimal b ++ t)%string -> a = b /\ s = t.
Proof.
  intros A B S T H.
  destruct (decimal_spec a A) as [UA _], (decimal_spec b B) as [UB _].
  destruct (word_cancel _ _ _ _ _ UA UB S T H) as [E <-]; split; auto.
  apply decimal_inj; auto.
Qed.

Lemma commas_then a b s t :
  a < 2 ^ 64 -> b < 2 ^ 64 -> starts_other numeral s = true -> starts_other numeral t = true ->
  (commas a ++ s)%string = (commas b ++ t)%string -> a = b /\ s = t.
Proof.
  intros A B S T H.
  destruct (commas_spec a A) as [UA _], (commas_spec b B) as [UB _].
  destruct (word_cancel _ _ _ _ _ UA UB S T H) as [E <-]; split; auto.
  apply commas_inj; auto.
Qed.

(** * The sentences name one claim each *)

(** The rules' words give back the free cells and the foundation-moves rule. *)
Lemma rules_then fc fc' fm fm' x x' :
  N.of_nat fc < 2 ^ 64 -> N.of_nat fc' < 2 ^ 64 ->
  (rules_words fc fm ++ x)%string = (rules_words fc' fm' ++ x')%string ->
  fc = fc' /\ fm = fm' /\ x = x'.
Proof.
  intros F F' H; unfold rules_words in H; rewrite !sapp_assoc in H.
  apply decimal_then in H as [E H]; auto; apply Nat2N.inj in E; subst fc'.
  apply sapp_cancel, sapp_cancel, sapp_cancel in H.
  destruct fm, fm'; try discriminate H; apply sapp_cancel in H; auto.
Qed.

(** A deal's name gives back its number. *)
Lemma who_then d d' name name' x x' :
  d < 2 ^ 64 -> d' < 2 ^ 64 ->
  (who d name ++ " (" ++ x)%string = (who d' name' ++ " (" ++ x')%string -> d = d' /\ x = x'.
Proof.
  intros D D' H; unfold who in H.
  destruct (d <? 2147483648), (d' <? 2147483648); rewrite !sapp_assoc in H;
    try discriminate H; apply sapp_cancel in H;
    apply decimal_then in H as [E H]; auto; apply sapp_cancel in H; auto.
Qed.

Definition fits (n : N) : Prop := n < 2 ^ 64.

(** Two win sentences are the same text only for the same deal, cells, rule and count. *)
Theorem win_sentence_inj d d' name name' fc fc' fm fm' n n' :
  fits d -> fits d' -> fits (N.of_nat fc) -> fits (N.of_nat fc') -> fits n -> fits n' ->
  win_sentence d name fc fm n = win_sentence d' name' fc' fm' n' ->
  d = d' /\ fc = fc' /\ fm = fm' /\ n = n'.
Proof.
  unfold fits, win_sentence; intros D D' F F' Nn Nn' H.
  apply who_then in H as [<- H]; auto; apply rules_then in H as [<- [<- H]]; auto.
  apply sapp_cancel in H; unfold plural in H; rewrite !sapp_assoc in H.
  apply commas_then in H as [<- _]; auto.
Qed.

(** Two no-win sentences are the same text only for the same deal, cells, rule, closure and
    count. *)
Theorem nowin_sentence_inj d d' name name' fc fc' fm fm' a a' n n' :
  fits d -> fits d' -> fits (N.of_nat fc) -> fits (N.of_nat fc') -> fits n -> fits n' ->
  nowin_sentence d name fc fm a n = nowin_sentence d' name' fc' fm' a' n' ->
  d = d' /\ fc = fc' /\ fm = fm' /\ a = a' /\ n = n'.
Proof.
  unfold fits, nowin_sentence; intros D D' F F' Nn Nn' H.
  apply who_then in H as [<- H]; auto; apply rules_then in H as [<- [<- H]]; auto.
  apply sapp_cancel in H; unfold plural in H; rewrite !sapp_assoc in H.
  apply commas_then in H as [<- H]; auto.
  do 4 apply sapp_cancel in H; destruct a, a'; try discriminate H; auto.
Qed.

(** A win sentence is never a no-win sentence. *)
Theorem win_nowin_differ d d' name name' fc fc' fm fm' a n n' :
  fits d -> fits d' -> fits (N.of_nat fc) -> fits (N.of_nat fc') ->
  win_sentence d name fc fm n <> nowin_sentence d' name' fc' fm' a n'.
Proof.
  unfold fits, win_sentence, nowin_sentence; intros D D' F F' H.
  apply who_then in H as [<- H]; auto; apply rules_then in H as [<- [<- H]]; auto.
  discriminate H.
Qed.

(** A list of deals, as the range's sentence gives it, gives back the deals. *)
Lemma listed_then l l' x x' :
  Forall fits l -> Forall fits l' -> List.length l = List.length l' ->
  starts_other is_digit x = true -> starts_other is_digit x' = true ->
  (listed l ++ x)%string = (listed l' ++ x')%string -> l = l' /\ x = x'.
Proof.
  revert l'; induction l as [|a l IH]; intros [|a' l'] F F' L X X' H; try discriminate L;
    [auto|].
  apply Forall_cons_iff in F as [Fa F], F' as [Fa' F']; injection L as L.
  destruct l as [|b l], l' as [|b' l']; try discriminate L; rewrite ?listed_cons in H.
  - apply decimal_then in H as [<- <-]; auto.
  - rewrite !sapp_assoc in H; apply decimal_then in H as [<- H]; auto.
    apply sapp_cancel in H; apply IH in H as [<- <-]; auto.
Qed.

(** Two range sentences are the same text only for the same deals, cells, rule and list of
    deals that cannot be won. *)
Theorem range_sentence_inj first first' last last' fc fc' fm fm' lost lost' :
  fits first -> fits first' -> fits last -> fits last' ->
  fits (N.of_nat fc) -> fits (N.of_nat fc') ->
  fits (N.of_nat (List.length lost)) -> fits (N.of_nat (List.length lost')) ->
  Forall fits lost -> Forall fits lost' ->
  range_sentence first last fc fm lost = range_sentence first' last' fc' fm' lost' ->
  first = first' /\ last = last' /\ fc = fc' /\ fm = fm' /\ lost = lost'.
Proof.
  unfold fits, range_sentence; intros A A' B B' F F' K K' L L' H.
  apply sapp_cancel in H; unfold deals_words in H.
  destruct (last <? 2147483648), (2147483648 <=? first), (last' <? 2147483648),
    (2147483648 <=? first'); try discriminate H;
    apply sapp_cancel, sapp_cancel in H;
    apply commas_then in H as [<- H]; auto; apply sapp_cancel in H;
    apply commas_then in H as [<- H]; auto; apply sapp_cancel in H;
    apply rules_then in H as [<- [<- H]]; auto; apply sapp_cancel in H;
    apply commas_then in H as [E H]; auto; apply Nat2N.inj in E; apply sapp_cancel in H;
    (destruct lost as [|a lost], lost' as [|a' lost']; try discriminate E;
     [auto | apply sapp_cancel, listed_then in H as [<- _]; auto]).
Qed.

(** A range's sentence is never a deal's. *)
Theorem range_deal_differ first last fc fm lost d name fc' fm' a n :
  range_sentence first last fc fm lost <> win_sentence d name fc' fm' n /\
  range_sentence first last fc fm lost <> nowin_sentence d name fc' fm' a n.
Proof.
  unfold range_sentence, win_sentence, nowin_sentence, who;
    destruct (d <? 2147483648); split; discriminate.
Qed.

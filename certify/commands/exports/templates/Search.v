From FreeCell Require Import Rules Equality NoWin. (* template only *)
From Coq Require Import Bool Arith List NArith. (* template only *)
Import ListNotations. (* template only *)

(** * The search, run by the kernel's virtual machine

    A depth-first search over positions in their canonical order of columns: [seen] holds
    every position found so far, [todo] those whose moves are still to be followed, [count]
    how many were found.  The seeds (the certificate's positions, when the file holds them)
    and the start are found first.  [budget] only makes the recursion structural: [explore b]
    takes up to 2 ^ b steps, and stops early once nothing is left to do. *)

Inductive search :=
  | Searching (seen : trie) (todo : list position) (count : N)
  | Found_won (s : position).

Definition visit (acc : trie * list position * N) (t : position) : trie * list position * N :=
  let '(seen, todo, n) := acc in
  let u := canonical t in
  let k := key u in
  if has u (bucket k seen) then acc else (insert k u seen, u :: todo, N.succ n).

Definition step (st : search) : search :=
  match st with
  | Searching seen (p :: todo) n =>
      if won p then Found_won p
      else let '(seen', todo', n') := fold_left visit (fast_moves p) (seen, todo, n) in
           Searching seen' todo' n'
  | _ => st
  end.

Definition finished (st : search) : bool :=
  match st with Searching _ (_ :: _) _ => false | _ => true end.

Fixpoint explore (budget : nat) (st : search) : search :=
  match budget with
  | O => step st
  | S b => let st' := explore b st in if finished st' then st' else explore b st'
  end.

Definition initial_search (seeds : list position) : search :=
  let '(seen, todo, n) := fold_left visit (start :: seeds) (Empty, [], 0%N) in
  Searching seen todo n.

(** [Some (first, n)]: the search started with [first] positions (the seeds and the start,
    up to the order of columns), and ended with nothing left to do and no won position, after
    finding [n] positions in all; [first = n] says that the seeds were closed. *)
Definition search_result (budget : nat) (seeds : list position) : option (N * N) :=
  let st := initial_search seeds in
  match st, explore budget st with
  | Searching _ _ first, Searching _ [] n => Some (first, n)
  | _, _ => None
  end.

(** * Why the search's answer proves the theorem: induction, no computation *)

Definition closed_in (seen : trie) (q : position) : Prop :=
  won q = false /\ forall t, In t (moves q) -> member (canonical t) seen = true.

Definition invariant (st : search) : Prop :=
  match st with
  | Searching seen todo _ =>
      member (canonical start) seen = true /\
      forall q, member q seen = true -> In q todo \/ closed_in seen q
  | Found_won _ => True
  end.

Lemma visit_cases seen todo n t :
  (member (canonical t) seen = true /\ visit (seen, todo, n) t = (seen, todo, n)) \/
  (member (canonical t) seen = false /\
   visit (seen, todo, n) t = (insert (key (canonical t)) (canonical t) seen, canonical t :: todo,
                              N.succ n)).
Proof. unfold visit, member; cbv zeta; destruct (has _ _); auto. Qed.

Lemma visit_fold ts : forall seen todo n seen' todo' n',
  fold_left visit ts (seen, todo, n) = (seen', todo', n') ->
  (forall q, member q seen = true -> member q seen' = true) /\
  (forall t, In t ts -> member (canonical t) seen' = true) /\
  (forall q, member q seen' = true -> member q seen = true \/ In q todo') /\
  (forall q, In q todo -> In q todo').
Proof.
  induction ts as [|t ts IH]; intros seen todo n seen' todo' n' H; cbn [fold_left] in H.
  - injection H as <- <- <-; repeat split; auto; intros _ [].
  - destruct (visit_cases seen todo n t) as [[M V] | [M V]]; rewrite V in H;
      destruct (IH _ _ _ _ _ _ H) as [Mono [Has [New Keep]]].
    + repeat split; auto; intros t' [<-|T]; auto.
    + repeat split.
      * intros q Q; apply Mono; rewrite member_insert, Q, orb_true_r; reflexivity.
      * intros t' [<-|T]; auto; apply Mono; rewrite member_insert, position_eqb_refl; reflexivity.
      * intros q Q; destruct (New q Q) as [Q'|]; auto; rewrite member_insert in Q'.
        apply orb_true_iff in Q' as [E|]; auto; apply position_eqb_eq in E; subst.
        right; apply Keep; left; reflexivity.
      * intros q Q; apply Keep; right; exact Q.
Qed.

Lemma step_invariant st : invariant st -> invariant (step st).
Proof.
  destruct st as [seen [|p todo] n|w]; simpl; auto.
  intros [Start Inv]; destruct (won p) eqn:W; simpl; auto.
  rewrite fast_moves_eq.
  destruct (fold_left visit (moves p) (seen, todo, n)) as [[seen' todo'] n'] eqn:F.
  destruct (visit_fold _ _ _ _ _ _ _ F) as [Mono [Has [New Keep]]]; split; auto.
  intros q Q; destruct (New q Q) as [Q'|]; auto.
  destruct (Inv q Q') as [[<-|T] | [Wq Cq]].
  - right; split; [exact W | exact Has].
  - left; apply Keep, T.
  - right; split; [exact Wq | intros t T; apply Mono, Cq, T].
Qed.

Lemma explore_invariant budget st : invariant st -> invariant (explore budget st).
Proof.
  revert st; induction budget as [|b IH]; intros st H; simpl; auto using step_invariant.
  destruct (finished (explore b st)); auto.
Qed.

Lemma initial_search_invariant seeds : invariant (initial_search seeds).
Proof.
  unfold initial_search.
  destruct (fold_left visit (start :: seeds) (Empty, [], 0%N)) as [[seen todo] n] eqn:F.
  destruct (visit_fold _ _ _ _ _ _ _ F) as [Mono [Has [New Keep]]]; split.
  - apply Has; left; reflexivity.
  - intros q Q; destruct (New q Q) as [Q'|]; auto; rewrite member_empty in Q'; discriminate.
Qed.

Theorem search_sound budget seeds r :
  search_result budget seeds = Some r -> forall s, Reachable s -> ~ Won s.
Proof.
  unfold search_result; intros H.
  pose proof (explore_invariant budget _ (initial_search_invariant seeds)) as Inv.
  destruct (initial_search seeds) as [seen0 todo0 n0|w0]; [|discriminate].
  destruct (explore budget (Searching seen0 todo0 n0)) as [seen [|p todo] m|w]; try discriminate.
  destruct Inv as [Start Closed].
  apply (closed_up_to_order (fun q => member q seen = true)); [exact Start | |].
  - intros p t P T; destruct (Closed p P) as [[]|[_ C]]; exact (C t T).
  - intros p P; destruct (Closed p P) as [[]|[W _]]; exact (not_won p W).
Qed.

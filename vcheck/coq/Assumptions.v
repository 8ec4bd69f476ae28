(** What the main theorems rest on: the build fails unless each is closed. *)
From VCheck Require Import Check.
From VCheck Require Import Autoplay.
Print Assumptions nowin_sound.
Print Assumptions nowin_slices_sound.
Print Assumptions win_sound.
Print Assumptions nowin_autoplay_sound.
Print Assumptions nowin_autoplay_slices_sound.
From VCheck Require Import Verdict.
Print Assumptions verdict_sound.
From VCheck Require Import Range.
Print Assumptions range_verdict_sound.
From VCheck Require Import Lemmas.
Print Assumptions deck_cards.
Print Assumptions deal_cards.
Print Assumptions moves_keep_cards.
Print Assumptions moves_keep_each_card_once.
Print Assumptions reachable_each_card_once.
From VCheck Require Import Supermove.
Print Assumptions supermove_steps.
Print Assumptions supermoves_add_nothing.
Print Assumptions won_with_supermoves.
From VCheck Require Import Sentences.
Print Assumptions win_sentence_inj.
Print Assumptions nowin_sentence_inj.
Print Assumptions win_nowin_differ.
Print Assumptions range_sentence_inj.
Print Assumptions range_deal_differ.

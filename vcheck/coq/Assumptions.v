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

(* For a custom layout, this takes the place of the deal in Rules.v. *) (* template only *)
(** * The start position, spelled out

    Card numbers as in [card_of_number]; columns 1 .. 8 from the bottom card to the top:
$board_text *)

Definition start : position :=
  Position (Home $home) (map card_of_number [$cells])
    (map (fun bottom_up => rev (map card_of_number bottom_up))
      [$columns]).

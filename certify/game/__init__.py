"""The game: cards, Microsoft's deals, the rules (moves, autoplay, the won position), and a
position as text (Freecell Solver's board format, the players' notation). Imports nothing of
certify's outside this folder."""

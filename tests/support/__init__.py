"""What the tests share and are not tests themselves: an independent reading of the rules
(oracle), a certificate writer of its own (certgen), small boards (boards), hand-made closure
cases (closure_cases), and a census driven from a test (census_runs). Tests import them as
`from support import oracle`: pyproject.toml puts tests/ on pytest's path."""

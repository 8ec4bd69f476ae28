"""What the tests share and are not tests themselves: an independent reading of the rules
(oracle), a certificate writer of its own (certgen), small boards (boards), hand-made closure
cases (closure_cases), a census driven from a test (census_runs), the search on disk's key
files written and read from their description (key_files), and the engine built with a
sanitizer and run in a child process (sanitized). Tests import them as
`from support import oracle`: pyproject.toml puts tests/ on pytest's path."""

"""The certificate format (docs/certificate-format.md), a module a job: spec.py (what the format
fixes: its constants, record sizes, move order, and the checks of a header's rules and start),
writer.py (the version certify writes), reader.py (load(): the one reader, of every version),
legacy.py (the old versions' read paths, behind one dispatch), ranges.py (range certificates)
and names.py (the default file names). Imports the game and the words, nothing above them; the
order inside is tools/import_graph.py's INSIDE."""

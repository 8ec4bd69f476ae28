"""The commands: cli.py (certify DEAL, show) and what it dispatches to (census/, explain.py,
importer.py, exports/, extract.py), with what they share (options.py, inputs.py). Only
certify/__main__.py imports cli.py."""

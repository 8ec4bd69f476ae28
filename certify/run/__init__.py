"""One deal's run: prove.py finds a verdict (a plan of solver attempts and searches), encodes
its certificate and delivers it; progress.py draws what a long run is doing on stderr."""

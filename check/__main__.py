"""`python -m check` runs the checker."""
from check.checker import main

raise SystemExit(main())

"""`python -m pith`."""

from pith.cli import main

raise SystemExit(main())

"""``python -m cvxtop``: the same as the ``cvxtop`` command."""

from .cli import main

raise SystemExit(main())

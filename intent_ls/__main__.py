"""Allows ``python -m intent_ls`` as a synonym of the ``intent-ls`` script."""

from intent_ls.cli.main import main

raise SystemExit(main())

"""``python -m satcp`` is the ``satcp`` command."""

import sys

from .cli import main

sys.exit(main())

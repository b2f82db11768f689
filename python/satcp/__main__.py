"""``python -m satcp`` is the ``satcp`` command."""

from .cli import console

console()

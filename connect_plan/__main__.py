"""``python -m connect_plan`` is the ``connect-plan`` command."""

from .cli import entry

entry()

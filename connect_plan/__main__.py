"""``python -m connect_plan`` is the ``connect-plan`` command."""

import sys

from .cli import main

sys.exit(main())

"""Every ``ErrorDetail`` code constructed during a test session, and where first.

tests/conftest.py installs the recorder when the session starts and fails the session at its
end if a code was constructed that connect_plan/error_codes.py does not register: the
static scan of tests/unit/test_error_codes.py reads the call sites, this sees the codes that
are computed while the tests run (copies, codes returned by helpers). The package itself
never checks a code at run time: an unregistered code must not break a caller.

Cheap: one wrapper around ``ErrorDetail.__init__`` and a dict lookup per detail. Codes
built in CLI subprocesses are not seen (their call sites are in the static scan).
"""

from __future__ import annotations

import os
from typing import Any

#: code → the test that first constructed it (pytest's PYTEST_CURRENT_TEST)
SEEN: dict[str, str] = {}

_installed = False


def install() -> None:
    """Wrap ``ErrorDetail.__init__`` once to record each code (idempotent)."""
    global _installed
    if _installed:
        return
    from connect_plan.errors import ErrorDetail

    original = ErrorDetail.__init__

    def recording_init(self: ErrorDetail, *args: Any, **kwargs: Any) -> None:
        code = args[0] if args else kwargs.get("code")
        if code not in SEEN:
            SEEN[str(code)] = os.environ.get("PYTEST_CURRENT_TEST", "outside a test")
        original(self, *args, **kwargs)

    ErrorDetail.__init__ = recording_init  # type: ignore[method-assign]
    _installed = True


def installed() -> bool:
    return _installed


def unregistered() -> dict[str, str]:
    """The codes seen that connect_plan.error_codes.CODES lacks, with their first test."""
    from connect_plan.error_codes import CODES

    return {code: where for code, where in sorted(SEEN.items()) if code not in CODES}

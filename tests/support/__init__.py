"""What the tests share: doubles of a Spark Connect server at each level, and helpers.

Doubles, from the inside out:

* transport level — :mod:`.transport`: :class:`~.transport.RecordedTransport` replays
  responses recorded from a real server (tests/golden/transport/) behind the client's
  ``Transport`` seam, its errors typed by the production mapping; ``CountingTransport``
  answers nothing and counts what was asked. :mod:`.reference_transport`: PySpark's own
  Connect client as a transport, the oracle of the production transport.
  :mod:`.tampering`: recorded responses broken one invariant at a time.
* stub level — :mod:`.stub`: the real stub with one call's answers replaced.
* servicer level — :mod:`.servicer`: an in-process gRPC server playing Spark Connect's failures.
* network level — :mod:`.proxies`: TLS and TCP proxies in front of a real server (recording
  calls, stalling and dropping connections), and test certificates.
* process level — :mod:`.processes`: the installed ``connect-plan`` entry point in a
  subprocess, and a Spark Connect server of a test's own to pause, kill and restart.

Helpers: :mod:`.tables` (tables compared as the differential tests compare them, inline
rows converted as a plan's are).

A test reaches a client's inside only through ``Client.internals`` (its connector,
session, executor and transport).
"""

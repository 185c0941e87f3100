"""What the tests share: doubles of the server at each level, and small helpers.

* :mod:`.reference_transport` — PySpark's own Connect client as a transport: the oracle of
  the production transport (``connect_plan.grpc_transport``), field by field.
"""

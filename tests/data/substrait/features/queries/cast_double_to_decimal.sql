-- a double to decimal(10,3)
SELECT id, cast(f8 AS decimal(20, 3)) AS r FROM t

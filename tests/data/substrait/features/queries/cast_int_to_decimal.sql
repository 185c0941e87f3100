-- an integer to decimal(12,2)
SELECT id, cast(ii AS decimal(12, 2)) AS r FROM t

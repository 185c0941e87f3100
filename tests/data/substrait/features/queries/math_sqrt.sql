-- sqrt() of non-negative values
SELECT id, sqrt(abs(f8)) AS r FROM t

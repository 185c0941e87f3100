-- isnan() and comparisons of NaN
SELECT id, isnan(fn) AS n1, fn > 1.5 AS gt FROM t

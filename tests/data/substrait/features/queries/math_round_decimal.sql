-- round(decimal, 1)
SELECT id, round(d2, 1) AS r FROM t

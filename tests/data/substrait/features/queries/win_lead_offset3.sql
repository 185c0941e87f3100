-- lead(x, 3) with no default
SELECT id, bi, lead(bi, 3) OVER (ORDER BY id) AS nx FROM t

-- lag and lead of the same column together
SELECT id, lag(k, 1, 0) OVER (ORDER BY id) AS p, lead(k, 1, 0) OVER (ORDER BY id) AS nx FROM t

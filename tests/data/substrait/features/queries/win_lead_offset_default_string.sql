-- lead(s, 1, 'none') over strings with NULLs
SELECT id, s, lead(s, 1, 'none') OVER (ORDER BY id) AS nx FROM t

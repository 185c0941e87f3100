-- LEFT JOIN keeps unmatched and NULL-key rows with NULLs on the right
SELECT t.id, t.k, u.v FROM t LEFT JOIN u ON t.k = u.k

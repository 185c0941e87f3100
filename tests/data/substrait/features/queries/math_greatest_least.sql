-- greatest() and least() skip NULLs
SELECT id, greatest(ii, ti, 3) AS g1, least(ii, ti, 3) AS l1 FROM t

-- cume_dist() over a key with ties
SELECT id, k, cume_dist() OVER (ORDER BY k NULLS FIRST) AS cd FROM t

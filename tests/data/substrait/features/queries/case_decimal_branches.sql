-- CASE whose branches are decimals of different scales
SELECT id, CASE WHEN b THEN d1 ELSE d2 END AS c FROM t

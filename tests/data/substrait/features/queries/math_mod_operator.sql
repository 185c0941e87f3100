-- the % operator on bigints
SELECT id, bi % 7 AS m FROM t

-- the % operator on bigints
SELECT id, mod(bi, 7) AS m FROM t

-- join on IS NOT DISTINCT FROM: NULL keys match
SELECT t.id, u.id AS uid FROM t JOIN u ON t.k IS NOT DISTINCT FROM u.k

-- FULL OUTER JOIN with unmatched rows on both sides
SELECT t.id, u.id AS uid FROM t FULL OUTER JOIN u ON t.k = u.k

-- LEFT JOIN then WHERE on the right side (drops the unmatched rows)
SELECT t.id, u.id AS uid FROM t LEFT JOIN u ON t.k = u.k WHERE u.v > 1

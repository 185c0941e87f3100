-- LEFT JOIN whose ON clause filters the right side (not the result)
SELECT t.id, u.id AS uid FROM t LEFT JOIN u ON t.k = u.k AND u.v > 1

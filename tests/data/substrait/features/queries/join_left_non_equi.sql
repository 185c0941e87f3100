-- LEFT JOIN on an equality and an inequality
SELECT t.id, u.id AS uid FROM t LEFT JOIN u ON t.k = u.k AND t.id > u.id

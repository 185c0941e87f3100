-- CROSS JOIN of two small inputs
SELECT t.id, u.id AS uid FROM t CROSS JOIN u WHERE t.id <= 2 AND u.id <= 3

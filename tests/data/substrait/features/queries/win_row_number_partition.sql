-- row_number() per partition ordered by a unique key
SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM t

-- the first row of each group through row_number() in a subquery
SELECT id, g, s FROM (SELECT id, g, s, row_number() OVER (PARTITION BY g ORDER BY id DESC) AS rn FROM t) x WHERE rn = 1

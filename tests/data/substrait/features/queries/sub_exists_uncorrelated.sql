-- uncorrelated EXISTS (true for every row)
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.v > 5)

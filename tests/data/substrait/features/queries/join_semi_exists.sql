-- semi join written as EXISTS
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)

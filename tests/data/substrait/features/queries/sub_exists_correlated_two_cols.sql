-- correlated EXISTS on two columns
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.g = t.g)

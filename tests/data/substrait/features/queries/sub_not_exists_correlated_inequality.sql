-- correlated NOT EXISTS with an inequality
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.v > t.ii)

-- NOT EXISTS over an empty table keeps every row
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM e)

-- LIMIT 0 returns no rows
SELECT id FROM t ORDER BY id LIMIT 0

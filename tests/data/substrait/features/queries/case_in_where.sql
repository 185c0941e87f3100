-- CASE in a WHERE clause
SELECT id FROM t WHERE CASE WHEN g = 'a' THEN ii > 5 ELSE ii < 5 END

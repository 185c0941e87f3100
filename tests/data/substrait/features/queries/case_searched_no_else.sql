-- searched CASE without ELSE (NULL when nothing matches)
SELECT id, CASE WHEN ii > 5 THEN ii * 2 WHEN ii < 0 THEN -ii END AS c FROM t

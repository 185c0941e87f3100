-- NOT IN (.., NULL) is never true
SELECT id FROM t WHERE k NOT IN (20, NULL)

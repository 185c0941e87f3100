-- IN over a literal list
SELECT id FROM t WHERE k IN (10, 30, 50)

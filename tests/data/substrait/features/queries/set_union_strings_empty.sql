-- UNION of strings including '' and NULL
SELECT s FROM t UNION SELECT s FROM u

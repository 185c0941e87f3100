-- NOT IN over an empty subquery keeps every row, NULL probes too
SELECT id FROM t WHERE k NOT IN (SELECT k FROM e)

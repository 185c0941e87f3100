-- NOT IN over a NULL-free subquery; NULL probes still drop out
SELECT id FROM t WHERE k NOT IN (SELECT k FROM u WHERE k IS NOT NULL)

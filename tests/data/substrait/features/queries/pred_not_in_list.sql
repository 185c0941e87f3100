-- NOT IN over a literal list (NULL probes drop out)
SELECT id FROM t WHERE k NOT IN (10, 20)

-- searched CASE whose first THEN is NULL
SELECT id, CASE WHEN ii IS NULL THEN NULL WHEN ii > 5 THEN 'high' ELSE 'low' END AS c FROM t

-- searched CASE with a NULL THEN branch and an ELSE
SELECT id, CASE WHEN k > 20 THEN 'big' WHEN k IS NULL THEN NULL ELSE 'small' END AS c FROM t

-- IN (subquery) as a value: true, false or NULL
SELECT id, k IN (SELECT k FROM u WHERE k IS NOT NULL) AS m FROM t

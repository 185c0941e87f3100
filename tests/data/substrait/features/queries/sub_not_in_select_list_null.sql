-- NOT IN (subquery with a NULL) as a value: false or NULL
SELECT id, k NOT IN (SELECT k FROM u) AS m FROM t

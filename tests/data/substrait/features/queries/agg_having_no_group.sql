-- HAVING without GROUP BY
SELECT count(*) AS n FROM t HAVING count(*) > 5
